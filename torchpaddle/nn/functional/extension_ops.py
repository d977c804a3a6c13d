"""Functions Paddle 3.x added for large models and sequence batches: rms_norm, swiglu, sequence_mask; composed
from existing ops so that both modes and autograd come for free."""
from ...framework.tensor import Tensor
from ...tensor import creation, logic, manipulation, math as _math, stat
from ...tensor.math import _not_tensor
from .activation import silu

__all__ = ["rms_norm", "swiglu", "sequence_mask"]


def rms_norm(input, normalized_shape, weight=None, eps=1e-5, name=None):
    """Root-mean-square normalisation over the trailing ``normalized_shape`` dims; returns ``(out, invvar)``,
    ``invvar`` being 1 / rms of each normalised row (shape: the leading dims). Paddle 3.3.1 has this kernel on
    GPU only; here it runs everywhere."""
    _not_tensor(input, "rms_norm", "input")
    shape = [normalized_shape] if isinstance(normalized_shape, int) else list(normalized_shape)
    if not shape or list(input.shape[-len(shape):]) != shape or len(shape) > input.ndim:
        raise ValueError(f"rms_norm(): normalized_shape {shape} must match the trailing dims of input "
                         f"{list(input.shape)}")
    if weight is not None and list(weight.shape) != shape:
        raise ValueError(f"rms_norm(): weight{list(weight.shape)} must have shape {shape}")
    axes = list(range(input.ndim - len(shape), input.ndim))
    x = input if input.dtype.name in ("float32", "float64") else input.astype("float32")
    invvar = _math.rsqrt(_math.add(stat.mean(_math.square(x), axis=axes, keepdim=True),
                                   creation.full([1], eps, dtype=x.dtype)))
    out = _math.multiply(x, invvar).astype(input.dtype)
    if weight is not None:
        out = _math.multiply(out, weight)
    return out, manipulation.reshape(invvar, list(input.shape[:input.ndim - len(shape)]))


def swiglu(x, y=None, name=None):
    """``silu(x) * y``; with ``y`` None, ``x`` is split in two along its last axis."""
    _not_tensor(x, "swiglu")
    if y is None:
        if x.shape[-1] % 2:
            raise ValueError(f"swiglu(): with y None, x's last dim must be even, got shape {list(x.shape)}")
        x, y = manipulation.chunk(x, 2, axis=-1)
    else:
        _not_tensor(y, "swiglu", "y")
        if list(x.shape) != list(y.shape):
            raise ValueError(f"swiglu(): x{list(x.shape)} and y{list(y.shape)} must have the same shape")
    return _math.multiply(silu(x), y)


def sequence_mask(x, maxlen=None, dtype="int64", name=None):
    """``mask[..., j] = j < x[...]``: one row of ``maxlen`` (default: max(x)) flags per length in ``x``."""
    _not_tensor(x, "sequence_mask")
    if x.is_floating_point() or x.dtype.name == "bool":
        raise TypeError(f"sequence_mask(): x must be an integer Tensor of lengths, got {x.dtype}")
    if maxlen is None:
        maxlen = int(x.max().item()) if x.size else 0
    elif isinstance(maxlen, Tensor):
        maxlen = int(maxlen.item())
    if maxlen < 0:
        raise ValueError(f"sequence_mask(): maxlen must be non-negative, got {maxlen}")
    steps = creation.arange(0, maxlen, dtype=x.dtype)
    return logic.less_than(steps, manipulation.unsqueeze(x, -1)).astype(dtype)


