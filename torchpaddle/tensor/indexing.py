"""Indexing functions: gather/scatter families, take/put_along_axis, index_add/fill/put, masked ops, unique.

``gather``, ``scatter`` (and ``scatter_``), ``index_select`` and ``index_add`` also take Paddle 3's torch-style
argument order, told apart as Paddle does it: an int in the second position is torch's ``dim``.
"""
import numbers

import numpy as np
import torch

from .. import ops as _ops
from ..framework import dtype as _dtype
from ..framework.program import Variable
from ..framework.tensor import Tensor, wrap
from ..ops.defs.indexing import along_axis_shape as _along_axis_shape
from ..ops.defs.manipulation import DtypeError
from .manipulation import _compat, _int, _ints, _rebind, tensor_int

__all__ = ["gather", "gather_nd", "index_select", "index_sample", "take_along_axis", "put_along_axis",
           "scatter", "scatter_", "scatter_nd", "scatter_nd_add", "masked_select", "masked_fill", "masked_fill_",
           "masked_scatter", "masked_scatter_", "multiplex", "shard_index", "unique", "unique_consecutive",
           "index_add", "index_add_", "index_fill", "index_fill_", "index_put", "index_put_", "take",
           "select_scatter", "slice_scatter", "diagonal_scatter"]
__methods__ = list(__all__) + ["put_along_axis_"]


def _is_dim(v):
    return isinstance(v, (int, np.integer)) and not isinstance(v, bool)


# -- gather family ------------------------------------------------------------------------------------------

def gather(*args, **kwargs):
    """gather(x, index, axis=None); or torch's gather(input, dim, index): take_along_axis without broadcasting."""
    if _is_torch_style(args, kwargs):
        return _torch_gather(*args, **kwargs)
    return _gather(*args, **kwargs)


def _gather(x, index, axis=None, name=None, out=None):
    if isinstance(axis, Variable):   # known when the program runs: the op's Axis input, as Paddle writes it
        return _ops.gather(x, index, axis)
    return _ops.gather(x, index, axis=0 if axis is None else _int("gather", "axis", axis))


def _torch_gather(input, dim, index, out=None):
    return _ops.take_along_axis(input, index, Axis=_int("gather", "dim", dim))


def _is_torch_style(args, kwargs):
    """Paddle tells torch's (input, dim, index, ...) order by an int second argument (or ``dim=``)."""
    return _is_dim(args[1]) if len(args) >= 2 else "dim" in kwargs


def gather_nd(x, index, name=None):
    return _ops.gather_nd(x, index)


@_compat(input="x", dim="axis")
def index_select(x, index, axis=0, name=None, *, out=None):
    if _is_dim(index) and not _is_dim(axis):  # torch order: (input, dim, index)
        index, axis = axis, index
    return _ops.index_select(x, index, dim=_int("index_select", "axis", axis))


def index_sample(x, index):
    return _ops.index_sample(x, index)


def _along_axis(api, arr, indices, axis):
    """``axis`` as an int in [0, rank) and the shape ``indices`` broadcast to (None: the op raises, naming what
    is wrong; or the sizes are known only when the program runs)."""
    axis = _int(api, "axis", axis)
    rank = len(arr.shape)
    if not rank or len(indices.shape) != rank or not -rank <= axis < rank:
        return axis, None
    axis %= rank
    arr_shape, index_shape = list(arr.shape), list(indices.shape)
    if -1 in arr_shape or -1 in index_shape:
        return axis, None
    return axis, _along_axis_shape(arr_shape, index_shape, axis)


def _expand(x, shape):
    return x if list(x.shape) == list(shape) else _ops.expand_v2(x, shape=list(shape))


def _broadcast_at_run_time(x, other, axis):
    """``x`` broadcast against ``other`` outside ``axis``, when a program's sizes are unknown until it runs:
    adds zeros shaped like a one-wide slice of ``other`` along ``axis``."""
    if -1 not in list(x.shape) and -1 not in list(other.shape):
        return x
    zero = _ops.slice(other, axes=[axis], starts=[0], ends=[1], infer_flags=[1], decrease_axis=[])
    return _ops.elementwise_add(x, _zeros(zero, x.dtype))


def _zeros(like, dtype):
    return _ops.cast(_ops.scale(like, scale=0.0), in_dtype=like.dtype.proto, out_dtype=dtype.proto)


def _broadcast_along(arr, indices, axis):
    """Paddle's broadcast=True: ``indices`` broadcast to arr outside ``axis``, arr to indices outside it."""
    axis_, shape = _along_axis("along_axis", arr, indices, axis)
    if shape is not None:
        indices = _expand(indices, shape)
        shape[axis_] = arr.shape[axis_]
        return _expand(arr, shape), indices
    if _fits_along(arr, indices, axis_):
        axis_ %= len(arr.shape)
        return _broadcast_at_run_time(arr, indices, axis_), _broadcast_at_run_time(indices, arr, axis_)
    return arr, indices


def _fits_along(arr, indices, axis):
    rank = len(arr.shape)
    return rank and len(indices.shape) == rank and -rank <= axis < rank


@_compat(input="arr", dim="axis")
def take_along_axis(arr, indices, axis, broadcast=True, *, out=None):
    axis = _int("take_along_axis", "axis", axis)
    if broadcast:
        arr, indices = _broadcast_along(arr, indices, axis)
    return _ops.take_along_axis(arr, indices, Axis=axis)


def put_along_axis(arr, indices, values, axis, reduce="assign", include_self=True, broadcast=True):
    if not isinstance(values, (Tensor, numbers.Number)):
        values = np.asarray(values)
    axis = _int("put_along_axis", "axis", axis)
    axis_, shape = _along_axis("put_along_axis", arr, indices, axis)
    if broadcast and shape is not None:
        indices = _expand(indices, shape)
        if not isinstance(values, numbers.Number) and list(values.shape) != shape:
            try:
                values = np.broadcast_to(values, shape) if isinstance(values, np.ndarray) else _expand(values, shape)
            except ValueError:
                raise ValueError(f"put_along_axis: values of shape {list(values.shape)} cannot broadcast to "
                                 f"indices of shape {shape}") from None
    elif broadcast and _fits_along(arr, indices, axis_):
        indices = _broadcast_at_run_time(indices, arr, axis_ % len(arr.shape))
        if not isinstance(values, (numbers.Number, np.ndarray)):
            values = _ops.elementwise_add(values, _zeros(indices, values.dtype))
    return _ops.put_along_axis(arr, indices, values, Axis=axis, Reduce=reduce, Include_self=include_self)


def put_along_axis_(arr, indices, values, axis, reduce="assign", include_self=True, broadcast=True):
    return _rebind(arr, put_along_axis(arr, indices, values, axis, reduce, include_self, broadcast),
                   "put_along_axis_")


def take(x, index, mode="raise", name=None):
    return _ops.take(x, index, mode=mode)


# -- scatter family -----------------------------------------------------------------------------------------

def _torch_scatter(input, dim, index, src=None, reduce=None, out=None, value=None):
    """torch.scatter(input, dim, index, src | value, reduce=...) -> put_along_axis without broadcasting."""
    if src is None:
        src = value
        if src is None:
            raise TypeError("scatter: torch-style scatter(input, dim, index, src) needs src (or value)")
    elif value is not None:
        raise TypeError("scatter: give src or value, not both")
    return put_along_axis(input, index, src, dim, reduce or "assign", broadcast=False)


def scatter(*args, **kwargs):
    """scatter(x, index, updates, overwrite=True); or torch's scatter(input, dim, index, src, reduce=None)."""
    if _is_torch_style(args, kwargs):
        return _torch_scatter(*args, **kwargs)
    return _scatter(*args, **kwargs)


def _scatter(x, index, updates, overwrite=True, name=None, out=None):
    return _ops.scatter(x, index, updates, overwrite=bool(overwrite))


def scatter_(*args, **kwargs):
    x = args[0] if args else kwargs.get("x", kwargs.get("input"))
    return _rebind(x, scatter(*args, **kwargs), "scatter_")


def scatter_nd_add(x, index, updates, name=None):
    return _ops.scatter_nd_add(x, index, updates)


def scatter_nd(index, updates, shape, name=None):
    dims = _ints("scatter_nd", "shape", shape)
    zeros = wrap(torch.zeros(dims, dtype=updates._t.dtype, device=updates._t.device))
    return _ops.scatter_nd_add(zeros, index, updates)


def select_scatter(x, values, axis, index, name=None):
    return _ops.select_scatter(x, values, axis=_int("select_scatter", "axis", axis),
                               index=_int("select_scatter", "index", index))


def slice_scatter(x, value, axes, starts, ends, strides, name=None):
    return _ops.slice_scatter(x, value, axes=_ints("slice_scatter", "axes", axes),
                              starts=_ints("slice_scatter", "starts", starts),
                              ends=_ints("slice_scatter", "ends", ends),
                              strides=_ints("slice_scatter", "strides", strides))


def diagonal_scatter(x, y, offset=0, axis1=0, axis2=1, name=None):
    return _ops.diagonal_scatter(x, y, offset=offset, axis1=axis1, axis2=axis2)


# -- index_add / index_fill / index_put ------------------------------------------------------------------------

def _index_add_args(args, kwargs):
    """Map index_add's Paddle order (x, index, axis, value) and torch order (x, dim, index, source)."""
    for alias, name in (("input", "x"), ("dim", "axis"), ("source", "value")):
        if alias in kwargs:
            kwargs[name] = kwargs.pop(alias)
    if len(args) >= 2 and _is_dim(args[1]):
        names = ("x", "axis", "index", "value")
    else:
        names = ("x", "index", "axis", "value", "alpha")
    kwargs.update(zip(names, args))
    return kwargs


def _index_add(x, index, axis, value, alpha=1, name=None, out=None):
    if alpha != 1:   # as Paddle: the value scaled first
        value = value * alpha
    return _ops.index_add(x, index, value, axis=_int("index_add", "axis", axis))


def index_add(*args, **kwargs):
    return _index_add(**_index_add_args(args, kwargs))


def index_add_(*args, **kwargs):
    kwargs = _index_add_args(args, kwargs)
    return _rebind(kwargs["x"], _index_add(**kwargs), "index_add_")


def index_fill(x, index, axis, value, name=None):
    axis = _int("index_fill", "axis", axis, exc=ValueError)
    if isinstance(value, Tensor):
        return _ops.index_fill(x, index, value, axis=axis, value=0)
    return _ops.index_fill(x, index, None, axis=axis, value=value)


def index_fill_(x, index, axis, value, name=None):
    return _rebind(x, index_fill(x, index, axis, value), "index_fill_")


def index_put(x, indices, value, accumulate=False, name=None):
    if not isinstance(indices, (list, tuple)):
        indices = (indices,)
    return _ops.index_put(x, list(indices), value, accumulate=bool(accumulate))


def index_put_(x, indices, value, accumulate=False, name=None):
    return _rebind(x, index_put(x, indices, value, accumulate), "index_put_")


# -- masks, multiplex, shard_index --------------------------------------------------------------------------

@_compat(input="x")
def masked_select(x, mask, name=None, *, out=None):
    return _ops.masked_select(x, mask)


def masked_fill(x, mask, value, name=None):
    if not isinstance(value, (Tensor, numbers.Number)):
        raise TypeError(f"masked_fill: value must be a number or a Tensor, got {type(value).__name__}")
    return _ops.masked_fill(x, mask, value)


def masked_fill_(x, mask, value, name=None):
    return _rebind(x, masked_fill(x, mask, value), "masked_fill_")


def masked_scatter(x, mask, value, name=None):
    return _ops.masked_scatter(x, mask, value)


def masked_scatter_(x, mask, value, name=None):
    return _rebind(x, masked_scatter(x, mask, value), "masked_scatter_")


def multiplex(inputs, index, name=None):
    return _ops.multiplex(inputs, index)


def shard_index(input, index_num, nshards, shard_id, ignore_value=-1):
    return _ops.shard_index(input, index_num=index_num, nshards=nshards, shard_id=shard_id,
                            ignore_value=ignore_value)


# -- unique -------------------------------------------------------------------------------------------------

def _unique_axis(api, axis):
    if axis is None:
        return []
    if isinstance(axis, Tensor):
        return [tensor_int(api, "axis", axis)]
    if not _is_dim(axis):
        raise TypeError(f"{api}: axis must be an int or None, got {type(axis).__name__}")
    return [int(axis)]


def _index_dtype(api, dtype):
    d = _dtype.convert_dtype(dtype)
    if d.name not in ("int32", "int64"):
        raise DtypeError(f"{api}: dtype must be int32 or int64, got {d.name}")
    return d.proto


def unique(x, return_index=False, return_inverse=False, return_counts=False, axis=None, dtype="int64",
           sorted=True, name=None):
    out, indices, inverse, counts = _ops.unique(
        x, dtype=_index_dtype("unique", dtype), return_index=return_index, return_inverse=return_inverse,
        return_counts=return_counts, axis=_unique_axis("unique", axis), is_sorted=sorted)
    extra = [t for t, want in ((indices, return_index), (inverse, return_inverse), (counts, return_counts)) if want]
    return tuple([out] + extra) if extra else out


@_compat(input="x", dim="axis")
def unique_consecutive(x, return_inverse=False, return_counts=False, axis=None, dtype="int64", name=None):
    out, inverse, counts = _ops.unique_consecutive(
        x, dtype=_index_dtype("unique_consecutive", dtype), return_inverse=return_inverse,
        return_counts=return_counts, axis=_unique_axis("unique_consecutive", axis))
    extra = [t for t, want in ((inverse, return_inverse), (counts, return_counts)) if want]
    return tuple([out] + extra) if extra else out
