"""``Tensor.__getitem__`` / ``__setitem__`` with Paddle 3.3.1's indexing rules on top of torch's.

Differences from torch that are handled here: negative slice steps (torch has none), lists and NumPy arrays
as advanced indices (a nested list is one index array, as in NumPy, never a tuple), only bool and int32/int64
index tensors, a single Ellipsis, range checks for index tensors on devices (where torch would assert), and
setitem values cast to the tensor's dtype.
"""
import numpy as np
import torch

from .tensor import Tensor, wrap

__all__ = ["getitem", "setitem", "convert_index"]

_INDEX_DTYPES = (torch.int64, torch.int32, torch.bool)
_PLAIN = (int, type(None))


def _reject(item):
    raise ValueError("Tensor indexing only supports bool, int, slice, Ellipsis, None, and lists, NumPy arrays or "
                     f"Tensors of bool or int, got {type(item).__name__}: {item!r}")


def _from_array(array):
    if array.dtype == np.bool_:
        return torch.from_numpy(array)
    if array.dtype.kind in "iu" or array.size == 0:
        return torch.from_numpy(array.astype(np.int64))
    _reject(array)


def _scalar(v):
    if isinstance(v, Tensor):
        return v.item()
    if isinstance(v, (list, tuple)):
        return [_scalar(u) for u in v]
    return v


def _item(item):
    """One index item -> what torch accepts; returns (item, kind) with kind in
    'none', 'ellipsis', 'int', 'slice', 'bool' (python bool), 'tensor'."""
    if item is None:
        return None, "none"
    if item is Ellipsis:
        return item, "ellipsis"
    cls = item.__class__
    if cls is int:
        return item, "int"
    if cls is slice:
        start, stop, step = item.start, item.stop, item.step
        if not all(v is None or v.__class__ is int for v in (start, stop, step)):
            start, stop, step = (None if v is None else v.__index__() for v in (start, stop, step))
            item = slice(start, stop, step)
        if step == 0:
            raise ValueError("Tensor indexing: slice step cannot be 0")
        return item, "slice"
    if cls is bool or isinstance(item, np.bool_):
        return bool(item), "bool"
    if isinstance(item, Tensor):
        t = item._t
        if t.dtype not in _INDEX_DTYPES:
            raise ValueError(f"Tensor indexing: an index Tensor must be bool, int32 or int64, got {item.dtype}")
        return t, "tensor"
    if isinstance(item, (int, np.integer)):
        return int(item), "int"
    if isinstance(item, np.ndarray):
        return _from_array(item), "tensor"
    if isinstance(item, (list, tuple)):
        try:
            array = np.asarray(_scalar(item))
        except ValueError:
            _reject(item)
        return _from_array(array), "tensor"
    _reject(item)


def convert_index(index, t, check=False):
    """Paddle index -> (torch index tuple, dims to flip first). Flips implement negative slice steps.
    ``check`` range-checks index tensors up front (torch's CPU kernels check too, but only while writing)."""
    if index.__class__ is tuple and t.device.type == "cpu" and not check:
        for item in index:  # fast path: ints, None, Ellipsis and forward slices of ints go to torch as they are
            cls = item.__class__
            if cls is int or item is None or item is Ellipsis:
                continue
            if cls is slice and item.step is None and item.start.__class__ in _PLAIN and item.stop.__class__ in _PLAIN:
                continue
            break
        else:
            if index.count(Ellipsis) <= 1:
                return index, None
    items = index if isinstance(index, tuple) else (index,)
    out, kinds = [], []
    negative = False
    ellipses = 0
    for item in items:
        item, kind = _item(item)
        if kind == "slice" and item.step is not None and item.step < 0:
            negative = True
        elif kind == "ellipsis":
            ellipses += 1
        out.append(item)
        kinds.append(kind)
    if ellipses > 1:
        raise ValueError("Tensor indexing: an index can only have a single ellipsis ('...')")
    if not negative and t.device.type == "cpu" and not (check and "tensor" in kinds):
        return tuple(out), None
    return _resolve_dims(out, kinds, t)


def _resolve_dims(out, kinds, t):
    """Map each item to the input dim it consumes, to flip negative-step slices and range-check index tensors."""
    ndim = t.dim()
    consumed = sum(1 if k in ("int", "slice") else (x.dim() if x.dtype is torch.bool else 1) if k == "tensor" else 0
                   for x, k in zip(out, kinds))
    dim, flips = 0, []
    for i, (item, kind) in enumerate(zip(out, kinds)):
        if kind == "ellipsis":
            dim += max(ndim - consumed, 0)
        elif kind in ("int", "slice"):
            if dim >= ndim:
                raise IndexError(f"Tensor indexing: too many indices for a tensor of shape {list(t.shape)}")
            if kind == "slice" and item.step is not None and item.step < 0:
                size = t.shape[dim]
                r = range(*item.indices(size))
                flips.append(dim)
                out[i] = slice(size - 1 - r[0], size - r[-1], -item.step) if len(r) else slice(0, 0, 1)
            dim += 1
        elif kind == "tensor":
            if item.dtype is torch.bool:
                dim += item.dim()
                continue
            if dim >= ndim:
                raise IndexError(f"Tensor indexing: too many indices for a tensor of shape {list(t.shape)}")
            size = t.shape[dim]
            if item.numel() and item.device.type != "meta":
                lo, hi = torch.stack(torch.aminmax(item)).tolist()
                if lo < -size or hi >= size:
                    raise IndexError(f"Tensor indexing: index {lo if lo < -size else hi} is out of bounds for "
                                     f"axis {dim} with size {size}")
            dim += 1
    return tuple(out), flips or None


def getitem(self, index):
    t = self._t
    cls = index.__class__
    if cls is int or (cls is slice and index.step is None and index.start.__class__ in _PLAIN
                      and index.stop.__class__ in _PLAIN):
        return wrap(t[index])
    converted, flips = convert_index(index, t)
    if flips:
        t = t.flip(flips)
    return wrap(t[converted])


def _value(value, t):
    if isinstance(value, Tensor):
        v = value._t
    elif isinstance(value, (bool, int, float, np.bool_, np.number)) and not isinstance(value, (complex, np.complexfloating)):
        return value.item() if isinstance(value, np.generic) else value
    elif isinstance(value, (complex, np.complexfloating)):
        if not t.is_complex():
            raise TypeError(f"Tensor setitem: cannot assign a complex value to a {t.dtype} tensor")
        return complex(value)
    elif isinstance(value, np.ndarray):
        if value.dtype.kind not in "biufc":
            raise ValueError(f"Tensor setitem: cannot assign a NumPy array of dtype {value.dtype}")
        v = torch.from_numpy(value)
    else:
        raise ValueError("Tensor setitem: the value must be a Tensor, numpy.ndarray, int, float, complex or bool, "
                         f"got {type(value).__name__}")
    if v.is_complex() and not t.is_complex():
        raise TypeError(f"Tensor setitem: cannot assign a complex value to a {t.dtype} tensor")
    if v.dtype is not t.dtype or v.device != t.device:
        v = v.to(device=t.device, dtype=t.dtype)
    return v


def setitem(self, index, value):
    t = self._t
    if t.requires_grad and t.is_leaf and torch.is_grad_enabled():
        raise ValueError(f"Leaf Tensor ({self.name}) that doesn't stop gradient can't use inplace strategy.")
    v = _value(value, t)
    converted, flips = convert_index(index, t, check=True)
    try:
        if flips:
            # negative steps: write through a flipped copy, then copy it back (autograd sees two ops)
            flipped = t.flip(flips)
            flipped[converted] = v
            t.copy_(flipped.flip(flips))
        else:
            t[converted] = v
        if not t.requires_grad and isinstance(value, Tensor) and value._t.requires_grad:
            self._sg_false = True  # Paddle: an int tensor given a differentiable value stops stopping gradient
    except RuntimeError as exc:
        raise ValueError(f"Tensor setitem: a value of shape {list(getattr(v, 'shape', []))} cannot be assigned to "
                         f"x{list(t.shape)}[{index!r}]: {exc}") from None
