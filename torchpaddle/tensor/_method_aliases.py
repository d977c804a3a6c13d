"""Tensor methods that Paddle 3.x adds on top of its functions: dtype conversions (``x.float()``), torch-style
aliases (``x.permute``, ``x.eq``...), storage queries (``x.strides``) and small in-place fills."""
import torch

from ..framework import dtype as _dtype
from ..framework.tensor import Tensor, wrap

_CASTS = {"float": "float32", "double": "float64", "half": "float16", "int": "int32", "long": "int64",
          "bool": "bool", "byte": "uint8", "char": "int8", "short": "int16", "cfloat": "complex64",
          "cdouble": "complex128", "bfloat16": "bfloat16", "float16": "float16", "float32": "float32",
          "float64": "float64", "int8": "int8", "int16": "int16", "int32": "int32", "int64": "int64",
          "uint8": "uint8", "complex64": "complex64", "complex128": "complex128"}
# method alias -> paddle function name
_ALIASES = {"eq": "equal", "ne": "not_equal", "lt": "less_than", "le": "less_equal", "gt": "greater_than",
            "ge": "greater_equal", "greater": "greater_than", "negative": "neg", "true_divide": "divide",
            "ravel": "flatten", "swapaxes": "transpose_axes", "swapdims": "transpose_axes", "absolute": "abs",
            "arccos": "acos", "arcsin": "asin", "arctan": "atan", "clamp": "clip", "multiply_": "multiply_"}


def _cast_method(target):
    def method(self):
        return self.astype(target)
    method.__name__ = target.name
    return method


def _swap(x, axis0, axis1):
    from . import manipulation
    perm = list(range(x.ndim))
    perm[axis0], perm[axis1] = perm[axis1], perm[axis0]
    return manipulation.transpose(x, perm)


def _permute(self, *dims):
    from .manipulation import transpose
    if len(dims) == 1 and isinstance(dims[0], (list, tuple)):
        dims = dims[0]
    return transpose(self, list(dims))


def _repeat(self, *repeats):
    from .manipulation import tile
    if len(repeats) == 1 and isinstance(repeats[0], (list, tuple)):
        repeats = repeats[0]
    return tile(self, list(repeats))


def _type_as(self, other):
    return self.astype(other.dtype)


def _new_factory(kind):
    """``x.new_<kind>(size, ...)``: size is a shape (list, tuple, Tensor) or, as in Paddle, the dims as
    separate arguments (``x.new_ones(3, 3)``); dtype and device default to ``x``'s."""
    def method(self, *size, dtype=None, device=None, requires_grad=False, pin_memory=False, **kwargs):
        from . import creation
        if "size" in kwargs:
            size = (kwargs.pop("size"),) + size
        fill = ()
        if kind == "full":
            if "fill_value" in kwargs:
                fill = (kwargs.pop("fill_value"),)
            elif len(size) > 1:
                size, fill = size[:-1], size[-1:]
            if not fill:
                raise TypeError("new_full() missing required argument: 'fill_value'")
        if kwargs:
            raise TypeError(f"new_{kind}() got unexpected keyword arguments {sorted(kwargs)}")
        if not size:
            raise TypeError(f"new_{kind}() missing required argument: 'size'")
        shape = size[0] if len(size) == 1 else list(size)
        return getattr(creation, kind)(shape, *fill, dtype=self.dtype if dtype is None else dtype,
                                       device=self.place if device is None else device,
                                       requires_grad=requires_grad, pin_memory=pin_memory)
    method.__name__ = f"new_{kind}"
    return method


def _narrow(self, dim, start, length):
    from .manipulation import slice as slice_
    return slice_(self, [dim], [start], [start + length])


def _unflatten(self, axis, shape):
    from .manipulation import reshape
    current = list(self.shape)
    axis = axis + len(current) if axis < 0 else axis
    return reshape(self, current[:axis] + list(shape) + current[axis + 1:])


def _zero_(self):
    with torch.no_grad():
        self._t.zero_()
    return self


def _fill_(self, value):
    with torch.no_grad():
        self._t.fill_(value)
    return self


def _requires_grad_(self, requires_grad=True):
    self.stop_gradient = not requires_grad
    return self


def _stride(self, dim=None):
    # NOTE: Paddle returns a list (torch a tuple)
    return list(self._t.stride()) if dim is None else self._t.stride(dim)


_PROPERTIES = {
    "requires_grad": property(lambda self: not self.stop_gradient,
                              lambda self, value: setattr(self, "stop_gradient", not value)),
    "is_cuda": property(lambda self: self._t.is_cuda),
    "itemsize": property(lambda self: self._t.element_size()),
    "strides": property(lambda self: list(self._t.stride())),
    "inplace_version": property(lambda self: self._t._version),
    "device": property(lambda self: "cpu" if self._t.device.type == "cpu" else f"gpu:{self._t.device.index or 0}"),
}
_METHODS = {
    "permute": _permute, "repeat": _repeat, "type_as": _type_as, "narrow": _narrow, "unflatten": _unflatten,
    "zero_": _zero_, "fill_": _fill_, "requires_grad_": _requires_grad_, "stride": _stride,
    "get_strides": lambda self: list(self._t.stride()), "is_contiguous": lambda self: self._t.is_contiguous(),
    "contiguous": lambda self: self if self._t.is_contiguous() else wrap(self._t.contiguous()),
    "new_empty": _new_factory("empty"), "new_zeros": _new_factory("zeros"), "new_ones": _new_factory("ones"),
    "new_full": _new_factory("full"), "element_size": lambda self: self._t.element_size(),
    "get_device": lambda self: -1 if self._t.device.type == "cpu" else self._t.device.index,
}


def install(namespace):
    for name, target in _CASTS.items():
        if name not in Tensor.__dict__:
            setattr(Tensor, name, _cast_method(_dtype.convert_dtype(target)))
    namespace = dict(namespace, transpose_axes=_swap)
    for alias, target in _ALIASES.items():
        if alias not in Tensor.__dict__ and callable(namespace.get(target)):
            setattr(Tensor, alias, namespace[target])
    for name, value in list(_PROPERTIES.items()) + list(_METHODS.items()):
        if name not in Tensor.__dict__:
            setattr(Tensor, name, value)
