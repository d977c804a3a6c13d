"""``paddle.fft``: discrete Fourier transforms, their sample frequencies and spectrum shifts.

Each transform checks its arguments as Paddle does, casts integer input to the default float dtype, resizes the
transformed axes to ``n``/``s`` (slice or zero-pad) and runs one of the ops ``fft_c2c``, ``fft_r2c`` and
``fft_c2r`` (ops/defs/fft.py). Unlike Paddle, repeated axes are a ValueError rather than a crash, and fftshift
accepts an int axis.
"""
import numbers
from collections.abc import Sequence

from . import ops as _ops
from .framework import dtype as _dtype
from .framework.tensor import Tensor
from .ops.defs.linalg import KernelDtypeError
from .tensor.creation import _aliases, _require_tensor, _write_out, arange
from .tensor.manipulation import cast, roll

__all__ = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fft2", "ifft2", "rfft2", "irfft2", "hfft2", "ihfft2",
           "fftn", "ifftn", "rfftn", "irfftn", "hfftn", "ihfftn", "fftfreq", "rfftfreq", "fftshift", "ifftshift"]

_NORMS = ("forward", "backward", "ortho")


def _check_norm(api, norm):
    if norm not in _NORMS:
        raise ValueError(f"{api}: Unexpected norm: {norm}. Norm should be forward, backward or ortho")


def _is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


def _check_n(api, n):
    if not _is_int(n):
        raise ValueError(f"{api}: Invalid FFT argument n({n}), it should be an integer.")
    if n <= 0:
        raise ValueError(f"{api}: Invalid FFT argument n({n}), it should be positive.")


def _check_axis(api, x, axis):
    ndim = x.ndim
    if not _is_int(axis):
        raise ValueError(f"{api}: Invalid FFT axis ({axis}), it should be an integer.")
    if not -ndim <= axis < ndim:
        raise ValueError(f"{api}: Invalid FFT axis ({axis}), it should be in range [-{ndim}, {ndim})")
    return axis % ndim


def _check_s(api, x, s):
    if not isinstance(s, Sequence):
        raise ValueError(f"{api}: Invalid FFT argument s({s}), it should be a sequence of integers.")
    if len(s) > x.ndim:
        raise ValueError(f"{api}: Length of FFT argument s should not be larger than the rank of input. "
                         f"Received s: {s}, rank of x: {x.ndim}")
    for size in s:
        if not _is_int(size) or size <= 0:
            raise ValueError(f"{api}: FFT sizes s={s} contains invalid value ({size})")


def _check_axes(api, x, axes):
    ndim = x.ndim
    if not isinstance(axes, Sequence):
        raise ValueError(f"{api}: Invalid FFT axes ({axes}), it should be a sequence of integers.")
    if len(axes) > ndim:
        raise ValueError(f"{api}: Length of fft axes should not be larger than the rank of input. "
                         f"Received, len of axes: {len(axes)}, rank of x: {ndim}")
    for axis in axes:
        if not _is_int(axis) or not -ndim <= axis < ndim:
            raise ValueError(f"{api}: FFT axes {axes} contains invalid value ({axis}), it should be in range "
                             f"[-{ndim}, {ndim})")
    return [a % ndim for a in axes]


def _unknown(api, x, dims, what):
    for d in dims:
        if x.shape[d] < 0:
            # NOTE: Paddle reads the -1 as a size here and builds a wrong program; refuse instead.
            raise ValueError(f"{api}: cannot {what} axis {d} of x{list(x.shape)}, whose size is unknown (-1) "
                             f"while the program is built")


def _resize(api, x, sizes, dims):
    """Slice or zero-pad x so that dim dims[i] has sizes[i] elements."""
    shape = x.shape
    _unknown(api, x, [d for d, n in zip(dims, sizes) if shape[d] != n], "resize")
    cut = [(d, n) for d, n in zip(dims, sizes) if shape[d] > n]
    if cut:
        x = _ops.slice(x, axes=[d for d, _ in cut], starts=[0] * len(cut), ends=[n for _, n in cut])
    grow = [(d, n - shape[d]) for d, n in zip(dims, sizes) if shape[d] < n]
    if grow:
        paddings = [0] * (2 * x.ndim)
        for d, extra in grow:
            paddings[2 * d + 1] = extra
        x = _ops.pad(x, paddings=paddings, pad_value=0.0)
    return x


def _prepare(api, x, kind):
    """Cast x for the op family: 'r2c' wants a real float, 'c2c'/'c2r' a complex tensor."""
    _require_tensor(x, api)
    d = x.dtype
    if kind == "r2c":
        return cast(x, _dtype.get_default_dtype()) if _dtype.is_integer(d) else x
    if kind == "c2r" and _dtype.is_integer(d):
        # NOTE: Paddle has no integer -> complex cast kernel, so its c2r transforms reject integers.
        raise KernelDtypeError(f"{api}: x of dtype {d.name} is not supported; use a float or complex tensor")
    if _dtype.is_integer(d):
        return cast(x, "complex128" if _dtype.get_default_dtype() == "float64" else "complex64")
    if _dtype.is_floating(d):
        return cast(x, "complex128" if d.name == "float64" else "complex64")
    return x


def _run(kind, x, dims, norm, forward, onesided, last_dim_size):
    if kind == "c2c":
        return _ops.fft_c2c(x, axes=dims, normalization=norm, forward=forward)
    if kind == "r2c":
        return _ops.fft_r2c(x, axes=dims, normalization=norm, forward=forward, onesided=onesided)
    return _ops.fft_c2r(x, axes=dims, normalization=norm, forward=forward, last_dim_size=last_dim_size)


def _finish(api, result, out):
    return result if out is None else _write_out(out, result, api)


def _fft1(api, kind, x, n, axis, norm, forward, onesided=False, out=None):
    kind = _full_kind(x) if kind == "full" else kind
    x = _prepare(api, x, kind)
    _check_norm(api, norm)
    dim = _check_axis(api, x, -1 if axis is None else axis)
    if n is not None:
        _check_n(api, n)
        x = _resize(api, x, [n // 2 + 1 if kind == "c2r" else n], [dim])
    return _finish(api, _run(kind, x, [dim], norm, forward, onesided, n or 0), out)


def _fftn(api, kind, x, s, axes, norm, forward, onesided=False, out=None):
    kind = _full_kind(x) if kind == "full" else kind
    x = _prepare(api, x, kind)
    _check_norm(api, norm)
    if s is not None:
        _check_s(api, x, s)
    ndim = x.ndim
    if axes is None:
        dims = list(range(ndim - (ndim if s is None else len(s)), ndim))
    else:
        dims = _check_axes(api, x, axes)
        # Paddle orders the axes; the one-sided axis of r2c/c2r stays last.
        keep = len(dims) if kind == "c2c" else len(dims) - 1
        order = sorted(range(keep), key=lambda i: dims[i]) + list(range(keep, len(dims)))
        if s is not None and len(s) != len(dims):
            raise ValueError(f"{api}: Length of s ({len(s)}) and length of axes ({len(dims)}) does not match.")
        dims = [dims[i] for i in order]
        s = None if s is None else [s[i] for i in order]
    last = 0
    if s is not None:
        sizes = list(s)
        if kind == "c2r":
            last, sizes[-1] = sizes[-1], sizes[-1] // 2 + 1
        x = _resize(api, x, sizes, dims)
    return _finish(api, _run(kind, x, dims, norm, forward, onesided, last), out)


def _fft2(api, kind, x, s, axes, norm, forward, onesided, out):
    _require_tensor(x, api)
    if x.ndim < 2:
        raise ValueError(f"{api}: The rank of the input ({x.ndim}) should >= 2")
    if s is not None and (not isinstance(s, Sequence) or len(s) != 2):
        raise ValueError(f"{api}: Invalid FFT argument s ({s}), it should be a sequence of 2 integers.")
    if axes is not None and (not isinstance(axes, Sequence) or len(axes) != 2):
        raise ValueError(f"{api}: Invalid FFT argument axes ({axes}), it should be a sequence of 2 integers.")
    return _fftn(api, kind, x, s, axes, norm, forward, onesided, out)


# -- one axis -------------------------------------------------------------------------------------------------

def _full_kind(x):
    """fft/ifft of real input is a full (two-sided) r2c transform."""
    return "c2c" if isinstance(x, Tensor) and _dtype.is_complex(x.dtype) else "r2c"


# api -> (op family, forward, one-sided); "full": c2c for complex input, else a two-sided r2c
_ONE_AXIS = {"fft": ("full", True, False), "ifft": ("full", False, False), "rfft": ("r2c", True, True),
             "irfft": ("c2r", False, False), "hfft": ("c2r", True, False), "ihfft": ("r2c", False, True)}
_DOCS = {
    "fft": "The discrete Fourier transform along one axis (complex output).",
    "ifft": "The inverse of fft.",
    "rfft": "The one-sided FFT of a real signal: n // 2 + 1 frequencies.",
    "irfft": "The inverse of rfft; real output of n samples (default 2 * (m - 1)).",
    "hfft": "The FFT of a Hermitian-symmetric signal given by its one-sided half; real output of n samples.",
    "ihfft": "The inverse of hfft: the one-sided half of the inverse FFT of a real signal.",
}


def _one_axis(api):
    kind, forward, onesided = _ONE_AXIS[api]

    @_aliases(input="x", dim="axis")
    def transform(x, n=None, axis=-1, norm="backward", name=None, *, out=None):
        return _fft1(api, kind, x, n, axis, norm, forward, onesided, out)
    transform.__name__ = transform.__qualname__ = api
    transform.__doc__ = _DOCS[api]
    return transform


def _n_axes(api):
    kind, forward, onesided = _ONE_AXIS[api[:-1]]

    @_aliases(input="x", dim="axes")
    def transform(x, s=None, axes=None, norm="backward", name=None, *, out=None):
        return _fftn(api, kind, x, s, axes, norm, forward, onesided, out)
    transform.__name__ = transform.__qualname__ = api
    transform.__doc__ = f"{api[:-1]} over several axes (all by default, or the last len(s))."
    return transform


def _two_axes(api):
    kind, forward, onesided = _ONE_AXIS[api[:-1]]

    @_aliases(input="x", dim="axes")
    def transform(x, s=None, axes=(-2, -1), norm="backward", name=None, *, out=None):
        return _fft2(api, kind, x, s, axes, norm, forward, onesided, out)
    transform.__name__ = transform.__qualname__ = api
    transform.__doc__ = f"{api[:-1]} over two axes (the last two by default)."
    return transform


fft, ifft, rfft, irfft, hfft, ihfft = (_one_axis(api) for api in _ONE_AXIS)
fft2, ifft2, rfft2, irfft2, hfft2, ihfft2 = (_two_axes(api + "2") for api in _ONE_AXIS)
fftn, ifftn, rfftn, irfftn, hfftn, ihfftn = (_n_axes(api + "n") for api in _ONE_AXIS)


# -- frequencies and shifts -----------------------------------------------------------------------------------

def _frequencies(api, n, d, dtype, out, device, requires_grad, one_sided):
    # NOTE: Paddle's fftfreq fails on a float n (in roll); its rfftfreq takes one.
    if not (_is_int(n) or one_sided and isinstance(n, numbers.Real)) or not isinstance(d, numbers.Real):
        raise TypeError(f"{api}: n must be an int and d a number, got n={n!r} and d={d!r}")
    if d * n == 0:
        raise ValueError(f"{api}: d or n should not be 0.")
    dtype = _dtype.get_default_dtype() if dtype is None else dtype
    if one_sided:
        indices = arange(0, n // 2 + 1, dtype=dtype, device=device, requires_grad=requires_grad)
    else:
        negative = n // 2
        indices = arange(-negative, (n + 1) // 2, dtype=dtype, device=device, requires_grad=requires_grad)
        indices = roll(indices, -negative)
    # NOTE: an integer dtype gives default-float frequencies, as Paddle's int tensor * float scalar does.
    return _finish(api, indices * (1.0 / (n * d)), out)


def fftfreq(n, d=1.0, dtype=None, name=None, *, out=None, device=None, requires_grad=False):
    """Sample frequencies of an n-point FFT with sample spacing d: [0, 1, ..., -2, -1] / (n * d)."""
    return _frequencies("fftfreq", n, d, dtype, out, device, requires_grad, False)


def rfftfreq(n, d=1.0, dtype=None, name=None, *, out=None, device=None, requires_grad=False):
    """Sample frequencies of an n-point rfft: [0, 1, ..., n // 2] / (n * d)."""
    return _frequencies("rfftfreq", n, d, dtype, out, device, requires_grad, True)


def _shift(api, x, axes, inverse):
    _require_tensor(x, api)
    shape, ndim = x.shape, x.ndim
    if axes is None:
        axes = list(range(ndim))
    elif _is_int(axes):
        if not -ndim <= axes < ndim:
            raise IndexError(f"{api}: axes={axes} is out of range [{-ndim}, {ndim}) for x of shape {list(shape)}")
        axes = [axes]
    else:
        axes = list(axes)
        for a in axes:
            if not _is_int(a) or not -ndim <= a < ndim:
                raise ValueError(f"{api}: axes {axes} contains invalid value ({a}), it should be in range "
                                 f"[{-ndim}, {ndim})")
    _unknown(api, x, axes, "shift")
    shifts = [(shape[a] + 1) // 2 if inverse else shape[a] // 2 for a in axes]
    return roll(x, shifts, axes)


@_aliases(input="x", dim="axes")
def fftshift(x, axes=None, name=None):
    """Moves the zero-frequency term to the center of the given axes (all by default)."""
    return _shift("fftshift", x, axes, False)


@_aliases(input="x", dim="axes")
def ifftshift(x, axes=None, name=None):
    """The inverse of fftshift."""
    return _shift("ifftshift", x, axes, True)
