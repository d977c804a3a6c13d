"""Search and sort functions: argmax/argmin, sort/argsort, topk, nonzero, where, searchsorted, bucketize."""
import collections
import numbers

import numpy as np

from .. import ops as _ops
from ..framework.dtype import convert_dtype
from ..framework.tensor import Tensor
from .creation import to_tensor

__all__ = ["argmax", "argmin", "argsort", "sort", "topk", "nonzero", "where", "where_", "searchsorted", "bucketize"]
__methods__ = ["argmax", "argmin", "argsort", "sort", "topk", "nonzero", "where", "where_", "bucketize"]

TopKRetType = collections.namedtuple("TopKRetType", ["values", "indices"])


def _out(result, out):
    """Paddle's ``out=``: the given Tensor takes the result's value and is returned."""
    if out is None:
        return result
    out._t = result._t
    return out


def _mark_like(source, *outputs):
    """Paddle marks the integer outputs of sort/topk stop_gradient=False when the values need a gradient."""
    if isinstance(source, Tensor) and source._t.requires_grad:
        for o in outputs:
            o.stop_gradient = False


def _int_arg(api, name, value):
    """An int-like argument; Paddle also takes a float or a one-element Tensor and truncates it."""
    if isinstance(value, Tensor):
        if value.size != 1:
            raise ValueError(f"{api}: {name} given as a Tensor must hold one value, got shape {value.shape}")
        value = value.item()
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{api}: {name} must be an int, got {type(value).__name__}")
    return int(value)


def _arg_reduce(api, fn, x, axis, keepdim, dtype):
    if dtype is None:
        raise ValueError(f"{api}: dtype must be int32 or int64, got None")
    d = convert_dtype(dtype)
    if d.name not in ("int32", "int64"):
        raise ValueError(f"{api}: dtype must be int32 or int64, got {d.name}")
    if axis is None:
        return fn(x, axis=0, keepdims=keepdim, flatten=True, dtype=d.proto)
    return fn(x, axis=_int_arg(api, "axis", axis), keepdims=keepdim, flatten=False, dtype=d.proto)


def argmax(x, axis=None, keepdim=False, dtype="int64", name=None):
    """Indices of the maximum along ``axis`` (the flattened tensor if None). NaN is skipped."""
    return _arg_reduce("argmax", _ops.arg_max, x, axis, keepdim, dtype)


def argmin(x, axis=None, keepdim=False, dtype="int64", name=None):
    """Indices of the minimum along ``axis`` (the flattened tensor if None). NaN is skipped."""
    return _arg_reduce("argmin", _ops.arg_min, x, axis, keepdim, dtype)


def argsort(x, axis=-1, descending=False, stable=False, name=None):
    values, indices = _ops.argsort(x, axis=_int_arg("argsort", "axis", axis), descending=descending, stable=stable)
    _mark_like(values, indices)
    return indices


def sort(x, axis=-1, descending=False, stable=False, name=None):
    return _ops.argsort(x, axis=_int_arg("sort", "axis", axis), descending=descending, stable=stable)[0]


def topk(x, k, axis=None, largest=True, sorted=True, name=None, *, out=None):
    """The k largest (or smallest) values along ``axis`` (default -1) and their indices."""
    axis = -1 if axis is None else _int_arg("topk", "axis", axis)
    if isinstance(k, Tensor):
        values, indices = _ops.top_k_v2(x, k, axis=axis, largest=largest, sorted=sorted)
    else:
        values, indices = _ops.top_k_v2(x, None, k=_int_arg("topk", "k", k), axis=axis, largest=largest,
                                        sorted=sorted)
    _mark_like(values, indices)
    if out is not None:
        values, indices = _out(values, out[0]), _out(indices, out[1])
    return TopKRetType(values, indices)


def nonzero(x, as_tuple=False, *, out=None):
    """Indices of non-zero elements: a [count, rank] Tensor, or one [count] Tensor per dimension."""
    index = _ops.where_index(x)
    if not as_tuple:
        return _out(index, out)
    return tuple(index[:, i] for i in range(index.shape[1]))


def where(condition, x=None, y=None, name=None, *, out=None):
    """Elements of ``x`` where ``condition`` holds, else of ``y``; with neither, ``nonzero(as_tuple=True)``."""
    # NOTE: as in Paddle, a Python scalar becomes a Tensor first (int -> int64, float -> default float), so
    # where(c, 2, float64_tensor) is an int64/float64 mix and raises TypeError.
    for arg, value in (("x", x), ("y", y)):
        if isinstance(value, (str, bytes)):
            raise TypeError(f"where: {arg} must be a Tensor or a number, got {type(value).__name__}")
    if np.isscalar(x):
        x = to_tensor(x)
    if np.isscalar(y):
        y = to_tensor(y)
    if x is None and y is None:
        return nonzero(condition, as_tuple=True)
    if x is None or y is None:
        raise ValueError("where: either both or neither of x and y should be given")
    return _out(_ops.where(condition, x, y), out)


def where_(condition, x=None, y=None, name=None):
    """In-place where: ``x`` (not the condition) takes the result."""
    from ._inplace import commit
    return commit(x, where(condition, x, y), "where_")


def searchsorted(sorted_sequence, values, out_int32=False, right=False, name=None, *, side=None, out=None,
                 sorter=None):
    """Insertion indices of ``values`` into the innermost axis of ``sorted_sequence``."""
    if side == "right":
        right = True
    if sorter is not None:   # as Paddle: the sequence put in order first
        if list(sorter.shape) != list(sorted_sequence.shape):
            raise ValueError(f"searchsorted: sorter{list(sorter.shape)} must have the shape of "
                             f"sorted_sequence{list(sorted_sequence.shape)}")
        sorted_sequence = _ops.take_along_axis(sorted_sequence, sorter, Axis=-1)
    return _out(_ops.searchsorted(sorted_sequence, values, out_int32=out_int32, right=right), out)


def bucketize(x, sorted_sequence, out_int32=False, right=False, name=None, *, out=None):
    """The bucket of each element of ``x`` given 1-D boundaries ``sorted_sequence``."""
    if isinstance(sorted_sequence, Tensor) and sorted_sequence.ndim != 1:
        raise ValueError(f"bucketize: sorted_sequence must be 1-D, got shape {sorted_sequence.shape}")
    return _out(_ops.searchsorted(sorted_sequence, x, out_int32=out_int32, right=right), out)
