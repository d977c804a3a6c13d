"""no_grad, enable_grad, set_grad_enabled, is_grad_enabled: torch's grad mode under Paddle's names.

Each works as a context manager and as a decorator of functions, methods and generator functions.
``@no_grad`` without parentheses is accepted too (Paddle 3.3.1 itself only takes ``@no_grad()``).
"""
import functools
import inspect

import torch

__all__ = ["no_grad", "enable_grad", "set_grad_enabled", "is_grad_enabled"]


def _decorate(func, make_context):
    """Run ``func`` (or each step of a generator function) inside a fresh ``make_context()``."""
    if inspect.isgeneratorfunction(func):
        @functools.wraps(func)
        def generator_wrapper(*args, **kwargs):
            # Only the generator's own steps run in the mode; the caller's mode is back between steps.
            with make_context():
                gen = func(*args, **kwargs)
            try:
                with make_context():
                    value = next(gen)
                while True:
                    try:
                        sent = yield value
                    except GeneratorExit:
                        with make_context():
                            gen.close()
                        raise
                    except BaseException as exc:
                        with make_context():
                            value = gen.throw(exc)
                    else:
                        with make_context():
                            value = gen.send(sent)
            except StopIteration as stop:
                return stop.value
        return generator_wrapper

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        with make_context():
            return func(*args, **kwargs)
    return wrapper


class _GradModeContext:
    """Sets torch's grad mode to ``_enabled`` inside; reentrant (one saved state per ``with``)."""
    _enabled = False

    def __new__(cls, func=None):
        if func is not None:
            # ``@no_grad`` without parentheses: the class is called with the function itself.
            if not callable(func):
                raise TypeError(f"{cls.__name__}() takes no arguments (got {type(func).__name__})")
            return _decorate(func, cls)
        return super().__new__(cls)

    def __init__(self, func=None):
        self._previous = []

    def __enter__(self):
        self._previous.append(torch.is_grad_enabled())
        torch.set_grad_enabled(self._enabled)
        return self

    def __exit__(self, *exc):
        torch.set_grad_enabled(self._previous.pop())
        return False

    def __call__(self, func):
        if not callable(func):
            raise TypeError(f"{type(self).__name__}() decorates a function, got {type(func).__name__}")
        return _decorate(func, type(self))


class no_grad(_GradModeContext):
    """Disable gradient recording: ``with paddle.no_grad():``, ``@paddle.no_grad()``."""
    _enabled = False


class enable_grad(_GradModeContext):
    """Enable gradient recording (e.g. inside a ``no_grad`` block)."""
    _enabled = True


class set_grad_enabled:
    """Set the grad mode now; as a context manager it restores the previous mode on exit."""

    def __init__(self, mode):
        self._mode = bool(mode)
        self._previous = torch.is_grad_enabled()
        torch.set_grad_enabled(self._mode)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        torch.set_grad_enabled(self._previous)
        return False

    def __call__(self, func):
        # NOTE: used as a decorator the mode applies only while ``func`` runs (as torch does); Paddle
        # leaves it switched from decoration time until the first call returns.
        torch.set_grad_enabled(self._previous)
        mode = self._mode
        return _decorate(func, lambda: _SetMode(mode))


class _SetMode:
    __slots__ = ("_mode", "_previous")

    def __init__(self, mode):
        self._mode = mode

    def __enter__(self):
        self._previous = torch.is_grad_enabled()
        torch.set_grad_enabled(self._mode)

    def __exit__(self, *exc):
        torch.set_grad_enabled(self._previous)
        return False


def is_grad_enabled():
    """True when operations record gradients (not inside ``no_grad``)."""
    return torch.is_grad_enabled()
