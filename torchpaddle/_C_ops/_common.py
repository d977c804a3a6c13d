"""Helpers shared by the _C_ops function modules; ``FUNCTIONS`` is the namespace they fill."""
from .. import nn as _nn
from ..framework import dtype as _dtype
from ..framework.tensor import Tensor as _Tensor
from ..tensor.creation import _write_out

_F = _nn.functional
FUNCTIONS = {}


def _register(name, fn):
    fn.__name__ = fn.__qualname__ = name
    fn.__module__ = "torchpaddle._C_ops"
    FUNCTIONS[name] = fn
    return fn


def _op(fn):
    return _register(fn.__name__, fn)


def _result(value, out, name):
    return value if out is None else _write_out(out, value, name)


def _axes(axis):
    """Paddle's reduce ``axis``: [] (or None) is every axis; an IntArray may come as a Tensor."""
    if isinstance(axis, _Tensor):
        axis = axis.tolist()
    if axis is None or (isinstance(axis, (list, tuple)) and len(axis) == 0):
        return None
    return list(axis) if isinstance(axis, tuple) else axis


def _ints(value):
    """An IntArray argument: a list (of ints or 0-D Tensors), a tuple or a Tensor -> list of ints."""
    if isinstance(value, _Tensor):
        return [int(v) for v in value.reshape([-1]).tolist()]
    if isinstance(value, int):
        return [value]
    return [int(v) if isinstance(v, _Tensor) else v for v in value]


def _proto(dtype):
    return _dtype.convert_dtype(dtype).proto


def _dtype_or_none(dtype):
    """Paddle passes DataType.UNDEFINED (or None) for 'keep the input's dtype'."""
    if dtype is None or (not isinstance(dtype, (str, int)) and "UNDEFINED" in str(dtype)):
        return None
    return dtype


def _device(place):
    return None if place is None or isinstance(place, dict) else place
