"""Fourier transform ops: Paddle's three FFT op types over torch.fft.

Paddle's ``paddle.fft`` functions resize the input (slice/pad) and cast integers in Python before calling one
of these ops, so the ops only transform: ``fft_c2c`` complex -> complex, ``fft_r2c`` real -> complex (full or
one-sided), ``fft_c2r`` one-sided complex -> real. ``forward`` picks the transform's direction and
``normalization`` ("backward", "forward", "ortho") has numpy's meaning for that direction, as torch.fft's
``norm`` does, so the attributes map one to one. The Hermitian transforms are the other direction of the
real ones: hfft is ``fft_c2r`` with forward=True, ihfft is ``fft_r2c`` with forward=False.
"""
import torch

from .linalg import KernelDtypeError, dtype_name
from ..registry import REQUIRED, op

_NORMS = ("backward", "forward", "ortho")
_REAL = (torch.float32, torch.float64)
_COMPLEX = (torch.complex64, torch.complex128)


def _supported(op_type, X, allowed, kind):
    # NOTE: torch (like Paddle's CPU kernels) has half-precision FFTs on GPUs only.
    if X.dtype in allowed or (X.device.type == "cuda" and X.dtype in (torch.float16, torch.complex32)):
        return
    raise KernelDtypeError(f"{op_type}: X of dtype {dtype_name(X)} is not supported; use a {kind} tensor "
                           f"({' or '.join(str(d).replace('torch.', '') for d in allowed)})")


def _fft_dims(op_type, axes, ndim):
    """Check ``axes`` (a non-empty list of distinct axes of a rank-``ndim`` tensor) -> non-negative dims."""
    if not axes:
        raise ValueError(f"{op_type}: axes must name at least one axis, got {list(axes)}")
    dims = []
    for a in axes:
        if isinstance(a, bool) or not isinstance(a, int) or not -ndim <= a < ndim:
            raise ValueError(f"{op_type}: axes {list(axes)} contains invalid value ({a}), it should be an int in "
                             f"range [{-ndim}, {ndim})")
        dims.append(a % ndim)
    if len(set(dims)) != len(dims):
        raise ValueError(f"{op_type}: axes {list(axes)} repeats an axis")
    return dims


def _empty(X, dims, last, dtype):
    """The result for an input with no elements, where torch's FFTs (unlike Paddle's) refuse to run."""
    shape = list(X.shape)
    if last is not None:
        shape[dims[-1]] = last
    return X.new_zeros(shape, dtype=dtype)


def _check_norm(op_type, normalization):
    if normalization not in _NORMS:
        raise ValueError(f"{op_type}: Unexpected norm: {normalization}. Norm should be forward, backward or ortho")


@op("fft_c2c", inputs=["X"], outputs=["Out"], attrs={"axes": REQUIRED, "normalization": REQUIRED, "forward": REQUIRED})
def fft_c2c(X, *, axes, normalization, forward):
    _check_norm("fft_c2c", normalization)
    dims = _fft_dims("fft_c2c", axes, X.dim())
    _supported("fft_c2c", X, _COMPLEX, "complex")
    if X.numel() == 0:
        return _empty(X, dims, None, X.dtype)
    return (torch.fft.fftn if forward else torch.fft.ifftn)(X, dim=dims, norm=normalization)


@op("fft_r2c", inputs=["X"], outputs=["Out"],
    attrs={"axes": REQUIRED, "normalization": REQUIRED, "forward": REQUIRED, "onesided": REQUIRED})
def fft_r2c(X, *, axes, normalization, forward, onesided):
    """The one-sided output halves the last of ``axes``."""
    _check_norm("fft_r2c", normalization)
    dims = _fft_dims("fft_r2c", axes, X.dim())
    _supported("fft_r2c", X, _REAL, "real")
    if X.numel() == 0:
        return _empty(X, dims, X.shape[dims[-1]] // 2 + 1 if onesided else None, X.dtype.to_complex())
    if onesided:
        transform = torch.fft.rfftn if forward else torch.fft.ihfftn
    else:
        transform = torch.fft.fftn if forward else torch.fft.ifftn
    return transform(X, dim=dims, norm=normalization)


@op("fft_c2r", inputs=["X"], outputs=["Out"],
    attrs={"axes": REQUIRED, "normalization": REQUIRED, "forward": REQUIRED, "last_dim_size": 0})
def fft_c2r(X, *, axes, normalization, forward, last_dim_size):
    """The last of ``axes`` holds a one-sided spectrum; its output length is ``last_dim_size`` (0: 2 * (n - 1))."""
    _check_norm("fft_c2r", normalization)
    dims = _fft_dims("fft_c2r", axes, X.dim())
    _supported("fft_c2r", X, _COMPLEX, "complex")
    last = last_dim_size or 2 * (X.shape[dims[-1]] - 1)
    if last <= 0:
        raise ValueError(f"fft_c2r: the output length along axis {dims[-1]} must be positive, got {last} "
                         f"(X{list(X.shape)}, last_dim_size={last_dim_size})")
    if X.numel() == 0:
        return _empty(X, dims, last, X.dtype.to_real())
    sizes = [X.shape[d] for d in dims[:-1]] + [last]
    return (torch.fft.hfftn if forward else torch.fft.irfftn)(X, s=sizes, dim=dims, norm=normalization)
