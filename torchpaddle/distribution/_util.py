"""What the distributions share: turning parameters and values into torch tensors the way Paddle 3.3.1 does
(dtypes, broadcasting, accepted types), sample shapes, and small reductions.

The distributions compute on the torch tensors inside Paddle Tensors, so gradients flow through torch autograd
and a result's stop_gradient follows its inputs', as Paddle's does. Dynamic mode only.
"""
import numbers

import numpy as np
import torch

from ..framework import dtype as _dtype
from ..framework.place import current_torch_device
from ..framework.tensor import Tensor, wrap

__all__ = []


class ValueTypeError(TypeError, ValueError, AttributeError):
    """A non-Tensor where a distribution needs a Tensor. Paddle fails there with TypeError, ValueError or
    AttributeError depending on the class, so this is all three."""


def default_torch_dtype():
    return _dtype.default_float().torch


def eager(x, api):
    """``x`` itself, refusing static-graph Variables: the distributions run in dynamic mode only."""
    if x._is_variable:
        raise NotImplementedError(f"{api}: static-graph Variables are not supported; paddle.distribution runs in "
                                  "dynamic mode (paddle.disable_static())")
    return x


def full(value, dtype=None, device=None):
    return wrap(torch.full((), float(value), dtype=dtype or default_torch_dtype(),
                           device=device or current_torch_device()))


def numpy_params(api, *args):
    """Paddle's ``Distribution._to_tensor``: float/list/tuple/ndarray parameters as float32 Tensors broadcast to
    one shape (Paddle's assign stores even float64 data as float32 here)."""
    arrays = []
    for arg in args:
        if isinstance(arg, bool) or not isinstance(arg, (float, list, tuple, np.ndarray)):
            raise TypeError(f"{api}: parameters must be float, list, tuple, numpy.ndarray or Tensor, got "
                            f"{type(arg).__name__}")
        arrays.append(np.asarray(arg, dtype=np.float32))
    try:
        arrays = np.broadcast_arrays(*arrays)
    except ValueError:
        raise ValueError(f"{api}: parameter shapes {[list(a.shape) for a in arrays]} cannot broadcast") from None
    device = current_torch_device()
    return tuple(wrap(torch.tensor(a, device=device)) for a in arrays)


def tensor_params(api, *args):
    """Paddle's ``_validate_args`` + ``_to_tensor``: all Tensors (kept as given) or none (``numpy_params``)."""
    tensors = [isinstance(a, Tensor) for a in args]
    if all(tensors):
        return tuple(eager(a, api) for a in args)
    if any(tensors):
        raise ValueError(f"{api}: if one argument is Tensor, all arguments should be Tensor")
    return numpy_params(api, *args)


def real_or_tensor(x, api, name):
    """A Real becomes a 0-D Tensor of the default dtype; a Tensor stays; anything else is a TypeError."""
    if isinstance(x, Tensor):
        return eager(x, api)
    if isinstance(x, numbers.Real) and not isinstance(x, bool):
        return full(x)
    raise TypeError(f"{api}: {name} must be a Real or a Tensor, got {type(x).__name__}")


def broadcast(api, *tensors, copy=False):
    """torch tensors broadcast to one shape: views, or with ``copy`` (for stored parameters) fresh tensors
    where a view would repeat elements."""
    try:
        out = torch.broadcast_tensors(*tensors)
    except RuntimeError:
        raise ValueError(f"{api}: shapes {[list(t.shape) for t in tensors]} cannot broadcast") from None
    return tuple(o.contiguous() for o in out) if copy else out


def expand(t, shape):
    """``t`` broadcast to ``shape`` as a tensor of its own (Paddle's results never alias their inputs)."""
    return t if t.shape == shape else t.expand(shape).contiguous()


def value_of(value, dtype, api, numbers_ok=False, cast=True):
    """A value given to log_prob/cdf/...: its torch tensor in the parameters' dtype. Without ``cast`` a float
    value keeps its dtype and promotes as Paddle's arithmetic does; integer values are always cast (Paddle
    casts or promotes them, which gives the same numbers)."""
    if isinstance(value, Tensor):
        t = eager(value, api)._t
        if t.dtype == dtype or (not cast and (t.is_floating_point() or t.is_complex())):
            return t
        return t.to(dtype)
    if numbers_ok and isinstance(value, numbers.Real) and not isinstance(value, bool):
        return torch.tensor(float(value), dtype=dtype, device=current_torch_device())
    raise ValueTypeError(f"{api}: value must be a Tensor, got {type(value).__name__}")


def sample_shape(shape, api):
    """A sample shape as a tuple of ints; Paddle takes a list, tuple, ndarray or Tensor, never a bare int."""
    if isinstance(shape, Tensor):
        shape = shape._t.tolist()
    if not isinstance(shape, (list, tuple, np.ndarray, torch.Size)):
        raise TypeError(f"{api}: sample shape must be a list or tuple of ints, got {type(shape).__name__}")
    try:
        return tuple(int(s) for s in shape)
    except (TypeError, ValueError):
        raise TypeError(f"{api}: sample shape must hold ints, got {list(shape)}") from None


def sum_rightmost(t, n):
    return t.sum(tuple(range(-n, 0))) if n > 0 else t


def eps(dtype):
    return torch.finfo(dtype).eps


def clip_probs(t):
    e = eps(t.dtype)
    return t.clamp(e, 1 - e)


def dtype_name(dtype):
    """'float32' for torch.float32: the ``dtype`` attribute most distributions carry, as a string like Paddle's."""
    return _dtype.from_torch_dtype(dtype).name


def generator(seed, device):
    """A torch generator for Paddle's per-call ``seed`` argument (0 means the global generator)."""
    if not seed:
        return None
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral):
        raise TypeError(f"sample: seed must be an int, got {type(seed).__name__}")
    return torch.Generator(device=device).manual_seed(int(seed))


def broadcast_shapes(api, *shapes):
    try:
        return tuple(torch.broadcast_shapes(*shapes))
    except RuntimeError:
        raise ValueError(f"{api}: shapes {[list(s) for s in shapes]} cannot broadcast") from None
