"""no_grad, enable_grad, set_grad_enabled, is_grad_enabled: torch's grad mode under Paddle's names."""
import functools

import torch

__all__ = ["no_grad", "enable_grad", "set_grad_enabled", "is_grad_enabled"]


class _GradModeContext:
    _enabled = False

    def __init__(self, func=None):
        self._func = func
        self._previous = []
        if func is not None:
            functools.update_wrapper(self, func)

    def __enter__(self):
        self._previous.append(torch.is_grad_enabled())
        torch.set_grad_enabled(self._enabled)
        return self

    def __exit__(self, *exc):
        torch.set_grad_enabled(self._previous.pop())
        return False

    def __call__(self, *args, **kwargs):
        if self._func is None:
            # Used as ``@no_grad()``: wrap the function given now.
            return type(self)(args[0])
        with type(self)():
            return self._func(*args, **kwargs)

    def __get__(self, obj, objtype=None):
        if obj is None or self._func is None:
            return self
        return functools.partial(self.__call__, obj)


class no_grad(_GradModeContext):
    """Context manager and decorator (``@no_grad`` or ``@no_grad()``) that disables gradient recording."""
    _enabled = False


class enable_grad(_GradModeContext):
    _enabled = True


class set_grad_enabled:
    def __init__(self, mode):
        self._previous = torch.is_grad_enabled()
        torch.set_grad_enabled(bool(mode))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        torch.set_grad_enabled(self._previous)
        return False


def is_grad_enabled():
    return torch.is_grad_enabled()
