"""``paddle.static.py_func``: an op that calls a Python function on its inputs' values when the program runs.

The function gets LoDTensors (``np.array(t)`` reads them) and returns arrays, LoDTensors, Tensors or numbers.
Like Paddle, the op refers to the function by an id (``forward_callable_id``) in a process-wide registry, so a
program holding a py_func op runs only in the process that built it. With a ``backward_func`` the op's
gradient calls it with the forward inputs and outputs (less ``skip_vars_in_backward_input``) and the outputs'
gradients, and it returns one gradient (or None) per input.
"""
import numpy as np
import torch

from ..framework import hooks as _hooks
from ..framework.mode import STATE as _MODE
from ..framework.program import Variable, default_main_program
from .scope import LoDTensor, torch_value

__all__ = ["py_func"]


class _Record:
    __slots__ = ("func", "backward", "n_out", "skip_in", "skip_out")

    def __init__(self, func, backward, n_out, skip_in, skip_out):
        self.func, self.backward, self.n_out = func, backward, n_out
        self.skip_in, self.skip_out = skip_in, skip_out


# callable id -> the function (Paddle's PyFuncRegistry); forward ids also map to their op's record
_CALLABLES = []
_RECORDS = {}


def _register(fn):
    _CALLABLES.append(fn)
    return len(_CALLABLES) - 1


def _as_lod_tensor(t):
    holder = LoDTensor()
    holder.set(t)
    return holder


def _to_torch(value, what, like):
    t = torch_value(value)
    if t is None:
        array = np.asarray(value)
        if array.dtype.kind not in "biufc":
            raise TypeError(f"py_func: {what} is a {type(value).__name__}, not an array of numbers")
        t = torch.from_numpy(np.ascontiguousarray(array) if array.ndim else array.copy())
    return t.to(like.device) if like is not None else t


def _results(value, count, what, like):
    """The function's return value -> a list of ``count`` torch tensors (None entries kept)."""
    if value is None:
        value = ()
    elif not isinstance(value, (list, tuple)):
        value = (value,)
    if len(value) != count:
        raise ValueError(f"py_func: {what} returned {len(value)} value(s), but {count} were expected")
    return [None if v is None else _to_torch(v, f"{what}'s result {i}", like) for i, v in enumerate(value)]


def _call_forward(record, xs):
    like = xs[0] if xs else None
    outs = _results(record.func(*[_as_lod_tensor(x) for x in xs]), record.n_out, "func", like)
    for i, o in enumerate(outs):
        if o is None:
            raise ValueError(f"py_func: func returned None for output {i}; every output variable needs a value")
    return outs


class _WithBackward(torch.autograd.Function):
    @staticmethod
    def forward(ctx, record, *xs):
        outs = _call_forward(record, xs)
        ctx.record = record
        ctx.save_for_backward(*xs, *outs)
        ctx.n_in = len(xs)
        ctx.mark_non_differentiable(*[o for o in outs if not (o.is_floating_point() or o.is_complex())])
        return tuple(outs)

    @staticmethod
    def backward(ctx, *grads):
        record, saved = ctx.record, ctx.saved_tensors
        xs, outs = saved[:ctx.n_in], saved[ctx.n_in:]
        args = [x for i, x in enumerate(xs) if i not in record.skip_in]
        args += [o for i, o in enumerate(outs) if i not in record.skip_out]
        args += [g if g is not None else torch.zeros_like(o) for g, o in zip(grads, outs)]
        found = _results(record.backward(*[_as_lod_tensor(a.detach()) for a in args]), len(xs), "backward_func",
                         xs[0] if xs else None)
        grads_in = [None if g is None else g.to(x.dtype).reshape(x.shape) for g, x in zip(found, xs)]
        return (None,) + tuple(grads_in)


def _run_py_func(X, forward_callable_id):
    """The kernel of the ``py_func`` op (ops/defs/control_flow.py)."""
    record = _RECORDS.get(forward_callable_id)
    if record is None:
        raise RuntimeError(f"py_func: no Python function is registered under id {forward_callable_id} in this "
                           "process (a py_func op runs only where its program was built)")
    xs = list(X)
    if record.backward is not None and torch.is_grad_enabled() and any(x.requires_grad for x in xs):
        return list(_WithBackward.apply(record, *xs))
    # without a backward_func the outputs are new values: no gradient flows back through the function
    return _call_forward(record, [x.detach() for x in xs])


_hooks.provide("py_func", _run_py_func)


def _var_list(value, what):
    if value is None:
        return []
    items = [value] if isinstance(value, Variable) else value
    if not isinstance(items, (list, tuple)):
        raise TypeError(f"py_func: {what} must be a Variable, a list or tuple of Variables, or None, got "
                        f"{type(value).__name__}")
    for v in items:
        if not isinstance(v, Variable):
            raise TypeError(f"py_func: {what} must hold static Variables, got {type(v).__name__}")
    return list(items)


def py_func(func, x, out, backward_func=None, skip_vars_in_backward_input=None):
    """Append a ``py_func`` op computing ``out`` (Variables the caller created, with their shapes and dtypes)
    from ``x`` by calling ``func`` when the program runs; returns ``out``."""
    if not _MODE.static:
        # AssertionError, as Paddle
        raise AssertionError("py_func() is only supported in static graph mode; call paddle.enable_static() first")
    if not callable(func):
        raise TypeError(f"py_func: func must be callable, got {type(func).__name__}")
    if backward_func is not None and not callable(backward_func):
        raise TypeError(f"py_func: backward_func must be callable or None, got {type(backward_func).__name__}")
    xs, outs = _var_list(x, "x"), _var_list(out, "out")
    skip = skip_vars_in_backward_input
    skip = [] if skip is None else [skip] if isinstance(skip, (Variable, str)) else skip
    if not isinstance(skip, (list, tuple)):
        raise TypeError(f"py_func: skip_vars_in_backward_input must be a Variable, a name or a list of them, got "
                        f"{type(skip).__name__}")
    skip_names = []
    for v in skip:
        if not isinstance(v, (Variable, str)):
            raise TypeError(f"py_func: skip_vars_in_backward_input must hold Variables or names, got "
                            f"{type(v).__name__}")
        skip_names.append(v if isinstance(v, str) else v.name)
    x_names, out_names = [v.name for v in xs], [v.name for v in outs]
    for n in skip_names:
        if n not in x_names and n not in out_names:
            raise ValueError(f"py_func: {n} in skip_vars_in_backward_input is neither in x nor in out")
    forward_id = _register(func)
    backward_id = _register(backward_func) if backward_func is not None else -1
    _RECORDS[forward_id] = _Record(func, backward_func, len(outs),
                                   {i for i, n in enumerate(x_names) if n in skip_names},
                                   {i for i, n in enumerate(out_names) if n in skip_names})
    block = default_main_program().current_block()
    block.append_op("py_func", {"X": x_names}, {"Out": out_names},
                    {"forward_callable_id": forward_id, "backward_callable_id": backward_id,
                     "backward_skip_vars": skip_names})
    return out
