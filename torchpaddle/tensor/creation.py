"""Tensor creation: to_tensor and the factory functions."""
import numbers

import numpy as np
import torch

from ..framework import dtype as _dtype
from ..framework.place import to_torch_device
from ..framework.tensor import Tensor, wrap

__all__ = ["to_tensor"]
__methods__ = []


def _as_torch(data, dtype=None, place=None):
    """Build a new torch tensor from Paddle-style data, inferring dtype as paddle.to_tensor does."""
    device = to_torch_device(place)
    target = None if dtype is None else _dtype.to_torch_dtype(dtype)
    if isinstance(data, Tensor):
        t = data._t.detach().clone()
    elif isinstance(data, torch.Tensor):
        t = data.detach().clone()
    elif isinstance(data, np.ndarray):
        if data.dtype == np.uint16 and target is torch.bfloat16:
            return torch.from_numpy(data.astype(np.int16)).view(torch.bfloat16).to(device)
        if data.dtype.kind in "OUS":
            raise TypeError(f"to_tensor: data of NumPy dtype {data.dtype} cannot be converted to a Tensor")
        t = torch.from_numpy(np.array(data, copy=True))
    elif isinstance(data, np.generic):
        t = torch.from_numpy(np.array(data))
    elif isinstance(data, (bool, numbers.Number)):
        t = torch.tensor(data)
        if t.is_complex() and target is None:
            t = t.to(torch.complex64 if _dtype.get_default_dtype() != "float64" else torch.complex128)
    elif isinstance(data, (list, tuple)):
        t = _from_sequence(data)
    else:
        raise TypeError(f"to_tensor: data must be a scalar, list, tuple, numpy.ndarray or Tensor, "
                        f"got {type(data).__name__}")
    if target is not None and t.dtype is not target:
        t = t.to(target)
    if t.device != device:
        t = t.to(device)
    return t


def _from_sequence(data):
    if any(isinstance(v, Tensor) for v in data):
        parts = [_as_torch(v) for v in data]
        return torch.stack([p.to(parts[0].dtype) for p in parts]) if parts else torch.tensor([])
    try:
        array = np.array(data)
    except ValueError as exc:
        raise ValueError(f"to_tensor: data is a ragged nested sequence and cannot be converted: {exc}") from None
    if array.dtype.kind in "OUS":
        raise TypeError(f"to_tensor: data holds values of type {array.dtype} that cannot be converted to a Tensor")
    if array.dtype == np.float64 and not _has_numpy_float64(data):
        array = array.astype(_dtype.default_float().numpy)
    elif array.dtype == np.complex128 and _dtype.get_default_dtype() != "float64":
        array = array.astype(np.complex64)
    return torch.from_numpy(array)


def _has_numpy_float64(data):
    for v in data:
        if isinstance(v, (list, tuple)):
            if _has_numpy_float64(v):
                return True
        elif isinstance(v, (np.floating, np.ndarray)) and np.asarray(v).dtype == np.float64:
            return True
    return False


def to_tensor(data, dtype=None, place=None, stop_gradient=True):
    out = wrap(_as_torch(data, dtype, place))
    if not stop_gradient:
        out.stop_gradient = False
    return out
