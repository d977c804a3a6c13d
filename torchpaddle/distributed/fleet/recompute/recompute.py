"""Activation recomputation (``fleet.utils.recompute``) on ``torch.utils.checkpoint``.

The checkpointed callable works on torch tensors: it wraps them as Tensors, runs the user's function and
unwraps what it returns, so torch's checkpoint sees plain tensors while the function sees Paddle ones.
Paddle's RNG is torch's default generators (framework/random.py), so torch's ``preserve_rng_state``
replays dropout masks exactly as Paddle's does.
"""
import contextlib
import inspect
import warnings

import torch
import torch.utils.checkpoint as _checkpoint

from ....framework.mode import in_dynamic_mode
from ....framework.tensor import Tensor, wrap

__all__ = ["recompute", "recompute_sequential", "recompute_hybrid"]


def _map(value, leaf):
    """``leaf`` over the tensors of a (nested tuple/list/dict) structure; other values unchanged."""
    if isinstance(value, (Tensor, torch.Tensor)):
        return leaf(value)
    if isinstance(value, (tuple, list)):
        return type(value)(_map(v, leaf) for v in value)
    if isinstance(value, dict):
        return {k: _map(v, leaf) for k, v in value.items()}
    return value


def _to_torch(value):
    return value._t if isinstance(value, Tensor) else value


def _to_paddle(value):
    return value if isinstance(value, Tensor) else wrap(value)


def _positional(function, args, kwargs):
    """Bind ``kwargs`` into positions, as Paddle's reentrant recompute does (its PyLayer takes no kwargs)."""
    target = function.forward if hasattr(function, "forward") and not inspect.isfunction(function) else function
    try:
        signature = inspect.signature(target)
    except (TypeError, ValueError):
        if kwargs:
            raise ValueError("recompute: cannot bind keyword arguments to a function without a signature; "
                             "pass use_reentrant=False") from None
        return list(args)
    bound = signature.bind(*args, **kwargs)
    bound.apply_defaults()
    out = []
    for value, param in zip(bound.arguments.values(), signature.parameters.values()):
        if param.kind == param.VAR_POSITIONAL:
            out.extend(value)
        elif param.kind in (param.POSITIONAL_ONLY, param.POSITIONAL_OR_KEYWORD):
            out.append(value)
        elif param.kind == param.VAR_KEYWORD:
            if value:
                raise ValueError("recompute: with use_reentrant=True the function's **kwargs cannot be passed; "
                                 "pass use_reentrant=False")
        else:
            raise ValueError(f"recompute: keyword-only argument {param.name!r} needs use_reentrant=False")
    return out


def _warn_if_unneeded(values):
    if torch.is_grad_enabled() and not any(isinstance(v, Tensor) and not v.stop_gradient for v in values):
        warnings.warn("recompute: none of the inputs to this recompute block needs a gradient, so it will not be "
                      "recomputed in backward (with use_reentrant=True its parameters get no gradient either)",
                      stacklevel=3)
        return True
    return False


def recompute(function, *args, **kwargs):
    """Run ``function(*args, **kwargs)`` keeping only its inputs; backward recomputes its activations.

    Keyword options (popped from kwargs, as in Paddle): ``preserve_rng_state=True``, ``use_reentrant=True``,
    ``offload_indices`` (accepted; CPU offload of those inputs is not done). Gradients equal a plain call's.
    """
    preserve = kwargs.pop("preserve_rng_state", True)
    use_reentrant = kwargs.pop("use_reentrant", True)
    kwargs.pop("offload_indices", None)
    if not callable(function):
        raise TypeError(f"recompute: function must be a Layer or a callable, got {type(function).__name__}")
    if not in_dynamic_mode():
        # Static programs keep the forward's activations for the grad ops of the same run; a plain call
        # gives the same Program values and gradients.
        return function(*args, **kwargs)
    unneeded = _warn_if_unneeded(list(args) + list(kwargs.values()))
    if use_reentrant:
        args, kwargs = _positional(function, args, kwargs), {}

    def run(*torch_args, **torch_kwargs):
        out = function(*_map(torch_args, _to_paddle), **_map(torch_kwargs, _to_paddle))
        return _map(out, _to_torch)

    with warnings.catch_warnings() if unneeded else contextlib.nullcontext():
        if unneeded:   # torch's own warning would repeat ours
            warnings.filterwarnings("ignore", message="None of the inputs have requires_grad")
        out = _checkpoint.checkpoint(run, *_map(tuple(args), _to_torch), use_reentrant=bool(use_reentrant),
                                     preserve_rng_state=bool(preserve), **_map(kwargs, _to_torch))
    return _map(out, _to_paddle)


def recompute_sequential(ctx, functions, *args, **kwargs):
    """Recompute a Sequential (or a list of callables) in ``ctx['segments']`` chunks; the last runs plainly."""
    segments = ctx.get("segments", 1)
    preserve = ctx.get("preserve_rng_state", True)
    if hasattr(functions, "children") and not isinstance(functions, (list, tuple)):
        functions = list(functions.children())
    functions = list(functions)
    if not isinstance(segments, int) or segments < 1:
        raise ValueError(f"recompute_sequential: ctx['segments'] must be a positive int, got {segments!r}")

    def chunk(begin, end):
        def run(x):
            for f in functions[begin:end]:
                x = f(x)
            return x
        return run

    size = len(functions) // segments
    end = 0
    for begin in range(0, size * (segments - 1), size):
        end = begin + size
        args = (recompute(chunk(begin, end), *args, preserve_rng_state=preserve, **kwargs),)
    return chunk(end, len(functions))(*args)


def recompute_hybrid(ctx, function, *args, **kwargs):
    """Recompute for hybrid parallel. ``ctx['mp_group']``/``offload``/``partition`` select memory savings
    (activation partitioning across model-parallel ranks, CPU offload) that are not done here; the
    recomputation and its gradients are those of ``recompute``."""
    # Paddle asserts here
    if not isinstance(ctx, dict) or ctx.get("mp_group") is None:
        raise AssertionError("recompute_hybrid: ctx must be a dict holding a non-None 'mp_group'")
    kwargs.setdefault("preserve_rng_state", ctx.get("preserve_rng_state", True))
    return recompute(function, *args, **kwargs)
