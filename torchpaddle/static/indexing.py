"""``Variable[...]`` in static mode: basic indexing (ints, slices, None, Ellipsis) as slice ops, index Variables
as gather ops."""
from .. import ops
from ..framework.program import Variable

__all__ = ["getitem", "setitem"]

_BIG = 2 ** 31 - 1


def _expand(item, ndim):
    items = list(item) if isinstance(item, tuple) else [item]
    if sum(1 for i in items if i is Ellipsis) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    consumed = sum(1 for i in items if i is not None and i is not Ellipsis)
    if consumed > ndim:
        raise IndexError(f"too many indices: the Variable is {ndim}-D but {consumed} indices were given")
    if Ellipsis in [i for i in items if not isinstance(i, Variable)]:
        at = next(k for k, i in enumerate(items) if i is Ellipsis)
        items[at:at + 1] = [slice(None)] * (ndim - consumed)
    return items


def getitem(x, item):
    items = _expand(item, x.ndim)
    axes, starts, ends, strides, decrease, newaxes, gathers = [], [], [], [], [], [], []
    dim = 0
    out_dim = 0
    for it in items:
        if it is None:
            newaxes.append(out_dim)
            out_dim += 1
            continue
        if isinstance(it, bool):
            raise IndexError("static Variable indexing by a Python bool is not supported")
        if isinstance(it, int):
            size = x.shape[dim]
            if size >= 0 and not -size <= it < size:
                raise IndexError(f"index {it} is out of range for axis {dim} of size {size}")
            axes.append(dim)
            starts.append(it)
            ends.append(it + 1 if it != -1 else _BIG)
            strides.append(1)
            decrease.append(dim)
        elif isinstance(it, slice):
            step = 1 if it.step is None else it.step
            if step == 0:
                raise ValueError("slice step cannot be zero")
            if (it.start, it.stop, it.step) != (None, None, None):
                axes.append(dim)
                starts.append(it.start if it.start is not None else (0 if step > 0 else _BIG))
                ends.append(it.stop if it.stop is not None else (_BIG if step > 0 else -_BIG))
                strides.append(step)
            out_dim += 1
        elif isinstance(it, (Variable, list)):
            gathers.append((dim, out_dim, it))
            out_dim += 1
        else:
            raise IndexError(f"static Variable indexing does not support {type(it).__name__} indices")
        dim += 1
    out = x
    if axes:
        out = ops.strided_slice(out, axes=axes, starts=starts, ends=ends, strides=strides, infer_flags=[1] * len(axes),
                                decrease_axis=decrease)
    for _, out_axis, index in gathers:
        out = ops.gather(out, index if isinstance(index, Variable) else _const(index), axis=out_axis)
    if newaxes:
        out = ops.unsqueeze2(out, axes=newaxes)
    if out is x:
        out = ops.assign(x)
    return out


def _const(values):
    from .append import constant_variable
    import numpy as np
    return constant_variable(np.asarray(values, dtype=np.int64))


def setitem(x, item, value):
    raise NotImplementedError("Variable.__setitem__: assigning into a static Variable is not supported yet; use "
                              "paddle.static.nn / paddle.where to build the new value")
