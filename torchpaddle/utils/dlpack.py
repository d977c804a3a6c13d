"""paddle.utils.dlpack: exchange tensors with other frameworks without copying, through DLPack capsules
(torch.utils.dlpack underneath)."""
import torch
import torch.utils.dlpack as _dlpack

from ..framework.place import to_torch_device
from ..framework.tensor import Tensor, wrap

__all__ = ["to_dlpack", "from_dlpack"]


def to_dlpack(x):
    """A DLPack capsule sharing ``x``'s memory; it can be consumed once."""
    if not isinstance(x, Tensor):
        raise TypeError(f"The type of 'x' in to_dlpack must be paddle.Tensor, but received {type(x)}.")
    return _dlpack.to_dlpack(x._t.detach())


def from_dlpack(dlpack, *, device=None, copy=None):
    """A Tensor sharing the memory of a DLPack capsule or of any object with ``__dlpack__`` (NumPy arrays, torch
    tensors, Tensors); ``device`` moves it and ``copy=True`` copies it."""
    if isinstance(dlpack, Tensor):
        if dlpack._t.requires_grad:
            # as Paddle (and torch) refuse to export a tensor that requires gradient
            raise BufferError("Can't export tensors that require gradient, use tensor.detach()")
        t = dlpack._t
    elif isinstance(dlpack, torch.Tensor):
        t = dlpack.detach()
    elif hasattr(dlpack, "__dlpack__") or type(dlpack).__name__ == "PyCapsule":
        try:
            t = _dlpack.from_dlpack(dlpack)
        except (RuntimeError, BufferError) as exc:
            # torch says why (a capsule is consumed by its first use); Paddle raises ValueError here
            raise ValueError(f"from_dlpack: {exc}") from None
    else:
        raise ValueError(f"from_dlpack: expected a DLPack capsule or an object with __dlpack__, got "
                         f"{type(dlpack).__name__}")
    if device is not None:
        t = t.to(to_torch_device(device))
    if copy:
        t = t.clone()
    return wrap(t)
