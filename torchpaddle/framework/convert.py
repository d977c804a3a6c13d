"""Python, NumPy and torch data -> a new torch tensor, inferring the dtype as ``paddle.to_tensor`` does (the
framework's own Tensor(...) constructor needs it, so it lives below the tensor package)."""
import builtins
import numbers

import numpy as np
import torch

from . import dtype as _dtype
from .place import to_torch_device
from .tensor import InputTypeError, Tensor


def _as_torch(data, dtype=None, place=None):
    """Build a new torch tensor from Paddle-style data, inferring dtype as paddle.to_tensor does."""
    device = to_torch_device(place)
    target = None if dtype is None else _dtype.to_torch_dtype(dtype)
    if isinstance(data, Tensor):
        t = data._t.detach().clone()
    elif isinstance(data, torch.Tensor):
        t = data.detach().clone()
    elif isinstance(data, np.ndarray):
        t = _from_numpy(data, copy=True)
    elif isinstance(data, np.generic):
        t = _from_numpy(np.array(data), copy=False)
    elif isinstance(data, (builtins.bool, numbers.Number)):
        t = _from_python_scalar(data, target)
    elif isinstance(data, (list, tuple)):
        t = _from_sequence(data, target)
    else:
        raise TypeError(f"to_tensor: can't construct a Tensor from data of type {type(data).__name__}; data must "
                        f"be a scalar, list, tuple, numpy.ndarray or Tensor")
    if target is not None and t.dtype is not target:
        if target is torch.float16 and t.dtype is torch.float64 and not isinstance(data, (Tensor, torch.Tensor)):
            # NOTE: Paddle rounds Python/NumPy float64 data to float16 once, as NumPy does; torch goes via float32
            t = torch.from_numpy(t.numpy().astype(np.float16))
        else:
            t = t.to(target)
    if t.device != device:
        t = t.to(device)
    return t


def _from_numpy(array, copy):
    if array.dtype == np.uint16:
        # Paddle's convention: a uint16 array holds bfloat16 bits.
        return torch.from_numpy(array.astype(np.int16)).view(torch.bfloat16)
    if array.dtype not in _NUMPY_OK:
        raise InputTypeError(f"to_tensor: NumPy arrays of dtype {array.dtype} cannot be converted to a Tensor; "
                             f"supported are bool, float16/32/64, int8/16/32/64, uint8, complex64/128")
    return torch.from_numpy(np.array(array, copy=True) if copy else array)


_NUMPY_OK = {np.dtype(n) for n in ("bool", "float16", "float32", "float64", "int8", "int16", "int32", "int64",
                                   "uint8", "complex64", "complex128")}


def _from_python_scalar(value, target=None):
    """A 0-D tensor; with a ``target`` dtype the value is converted once, from its full precision."""
    if isinstance(value, builtins.bool):
        return torch.tensor(value)
    if isinstance(value, builtins.int):
        if not -2 ** 63 <= value < 2 ** 63:
            raise ValueError(f"to_tensor: the integer {value} does not fit in int64")
        return torch.tensor(value, dtype=torch.int64)
    if isinstance(value, builtins.complex):
        return torch.tensor(value, dtype=torch.complex128 if target is not None else _default_complex())
    return torch.tensor(float(value), dtype=torch.float64 if target is not None else _dtype.default_float().torch)


def _default_complex():
    return torch.complex128 if _dtype.get_default_dtype() == "float64" else torch.complex64


def _from_sequence(data, target=None):
    # NOTE: as in Paddle, floats in a list become the default dtype and int32 becomes int64, but a list
    # holding a Tensor keeps the dtype NumPy infers from the elements. With a ``target`` dtype the values are
    # converted once, from NumPy's float64/complex128, so float64 data stays exact.
    has_tensor = any(isinstance(v, Tensor) for v in data)
    try:
        array = np.array(data)
    except (ValueError, TypeError) as exc:
        raise ValueError(f"to_tensor: failed to convert the nested sequence to a regular array (nested lists "
                         f"of different lengths?): {exc}") from None
    if array.dtype == np.object_:
        raise ValueError("to_tensor: failed to convert the data to a regular array; it usually means nested lists "
                         "of different lengths or elements that are not numbers")
    if array.dtype.kind in "USV":
        raise InputTypeError(f"to_tensor: data holds values of type {array.dtype}, which cannot be converted to a "
                             f"Tensor")
    if target is None and not has_tensor:
        kind = array.dtype.kind
        if kind == "f":
            array = array.astype(_dtype.default_float().numpy or np.float32)
        elif kind == "c":
            array = array.astype(np.complex128 if _dtype.get_default_dtype() == "float64" else np.complex64)
        elif array.dtype == np.int32:
            array = array.astype(np.int64)
    t = _from_numpy(array, copy=False)
    if target is None and not has_tensor and _dtype.get_default_dtype() == "bfloat16" and t.is_floating_point():
        t = t.to(torch.bfloat16)
    return t
