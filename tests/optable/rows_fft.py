"""Rows for paddle.fft: the one-axis, two-axis and n-axis transforms, sample frequencies and shifts.

NumPy's ``np.fft`` is the reference; it has no n-dimensional Hermitian transforms, so hfftn/ihfftn are built from
irfftn/rfftn with the normalization swapped, as NumPy builds hfft/ihfft. Transforms with complex output have no
finite-difference row (the generic check sums real outputs only); tests/fft/test_fft_grad.py checks them.
"""
import numpy as np

from .core import Err, OpCase, Sample, T, data

REAL = ("float32", "float64")
COMPLEX = ("complex64", "complex128")
_SWAP = {"backward": "forward", "forward": "backward", "ortho": "ortho"}


def _signal(rng, shape, dtype):
    if dtype.startswith("complex"):
        return rng.uniform(-2, 2, size=shape) + 1j * rng.uniform(-2, 2, size=shape)
    return data(rng, shape, dtype)


def _cases(*cases):
    def make(rng, dtype):
        return [Sample((T(_signal(rng, shape, dtype)),), dict(kw)) for shape, kw in cases]
    return make


def _nd(fn):
    """NumPy's n-axis transform with Paddle's default axes for a given s: the last len(s) axes."""
    def ref(x, s=None, axes=None, norm="backward"):
        if s is not None and axes is None:
            axes = list(range(x.ndim - len(s), x.ndim))
        return fn(x, s, axes, norm=norm)
    return ref


@_nd
def _hfftn(x, s, axes, norm):
    return np.fft.irfftn(np.conj(x), s, axes, norm=_SWAP[norm])


@_nd
def _ihfftn(x, s, axes, norm):
    return np.conj(np.fft.rfftn(x, s, axes, norm=_SWAP[norm]))


def _hfft2(x, s=None, axes=(-2, -1), norm="backward"):
    return _hfftn(x, s, axes, norm)


def _ihfft2(x, s=None, axes=(-2, -1), norm="backward"):
    return _ihfftn(x, s, axes, norm)


def _freq(fn):
    def ref(n, d=1.0, dtype=None):
        return fn(n, d).astype(dtype or "float32")
    return ref


def _freq_samples(rng, dtype):
    return [Sample((5,), {"dtype": dtype}), Sample((8,), {"d": 0.5, "dtype": dtype}),
            Sample((1,), {"d": 2.0, "dtype": dtype})]


_ONE = [((3, 6), {}), ((3, 6), {"n": 8}), ((3, 6), {"n": 4}), ((7,), {"norm": "ortho"}),
        ((4, 5), {"axis": 0, "norm": "forward"}), ((2, 3, 5), {"axis": 1, "n": 4, "norm": "ortho"})]
# one-sided spectra (inputs of irfft/hfft): the output length is 2 * (m - 1) unless n is given
_HALF = [((3, 4), {}), ((3, 4), {"n": 7}), ((3, 4), {"n": 4}), ((5,), {"norm": "ortho"}),
         ((4, 3), {"axis": 0, "norm": "forward"}), ((2, 3, 4), {"axis": 1, "n": 5, "norm": "ortho"})]
_TWO = [((3, 4), {}), ((2, 3, 4), {"s": [4, 6]}), ((2, 3, 4), {"axes": (0, 2), "norm": "ortho"}),
        ((2, 3, 4), {"s": [3, 5], "axes": [2, 0], "norm": "forward"}), ((4, 5), {"s": (2, 3)})]
_N = [((2, 3, 4), {}), ((2, 3, 4), {"s": [6]}), ((2, 3, 4), {"axes": [0, 2]}), ((2, 3, 4), {"axes": [2, 0]}),
      ((2, 3, 4), {"s": [3, 5], "axes": [2, 0], "norm": "ortho"}), ((5,), {"norm": "forward"}),
      ((2, 3, 4), {"s": [4, 2, 6], "norm": "backward"})]

_BAD_ONE = (Err((T(np.ones((3, 4))),), {"n": 0}), Err((T(np.ones((3, 4))),), {"n": 1.5}),
            Err((T(np.ones((3, 4))),), {"axis": 2}), Err((T(np.ones((3, 4))),), {"axis": [0]}),
            Err((T(np.ones((3, 4))),), {"norm": "bad"}), Err((T(np.array(1.0)),)),
            Err(([1.0, 2.0],), exc=TypeError), Err((T(np.ones(4), dtype="bool"),), exc=RuntimeError))
_BAD_TWO = (Err((T(np.ones(4)),)), Err((T(np.ones((3, 4))),), {"s": [4]}), Err((T(np.ones((3, 4))),), {"s": 4}),
            Err((T(np.ones((3, 4))),), {"axes": [0, 2]}), Err((T(np.ones((3, 4))),), {"s": [0, 3]}),
            Err((T(np.ones((3, 4))),), {"norm": "xx"}), Err((T(np.ones((2, 3, 4))),), {"axes": (0, 1, 2)}))
_BAD_N = (Err((T(np.ones((3, 4))),), {"s": 4}), Err((T(np.ones((3, 4))),), {"axes": 1}),
          Err((T(np.ones((3, 4))),), {"s": [2, 3], "axes": [0]}), Err((T(np.ones((3, 4))),), {"s": [2, 3, 4]}),
          Err((T(np.ones((3, 4))),), {"axes": [0, 5]}), Err((T(np.ones((3, 4))),), {"s": [-1]}))


def _row(name, api, ref, cases, dtypes, errors=(), grad=False, **kw):
    return OpCase(name, api, ref, _cases(*cases), dtypes, grad=grad, errors=errors, **kw)


OPS = [
    # one axis: real input (ints are cast to the default float dtype)
    _row("fft", "fft.fft", np.fft.fft, _ONE, REAL + ("int64",), _BAD_ONE),
    _row("fft_complex", "fft.fft", np.fft.fft, _ONE, COMPLEX),
    _row("ifft", "fft.ifft", np.fft.ifft, _ONE, REAL + ("int32",), _BAD_ONE[:5]),
    _row("ifft_complex", "fft.ifft", np.fft.ifft, _ONE, COMPLEX),
    _row("rfft", "fft.rfft", np.fft.rfft, _ONE, REAL + ("int64",),
         _BAD_ONE + (Err((T(np.ones(4) + 1j, dtype="complex64"),), exc=RuntimeError),)),
    _row("ihfft", "fft.ihfft", np.fft.ihfft, _ONE, REAL,
         _BAD_ONE[:5] + (Err((T(np.ones(4) + 1j, dtype="complex64"),), exc=RuntimeError),)),
    # one axis: one-sided spectra to real signals (real input is read as complex)
    _row("irfft", "fft.irfft", np.fft.irfft, _HALF, COMPLEX + REAL,
         _BAD_ONE[:5] + (Err((T(np.ones(4), dtype="int64"),), exc=RuntimeError),
                         Err((T(np.zeros(0), dtype="complex64"),)))),
    _row("hfft", "fft.hfft", np.fft.hfft, _HALF, COMPLEX + REAL,
         _BAD_ONE[:5] + (Err((T(np.ones(4), dtype="int32"),), exc=RuntimeError),)),
    _row("irfft_grad", "fft.irfft", np.fft.irfft, _HALF, ("float64",), grad=True, conformance=False),
    _row("hfft_grad", "fft.hfft", np.fft.hfft, _HALF, ("float64",), grad=True, conformance=False),
    # two axes
    _row("fft2", "fft.fft2", np.fft.fft2, _TWO, REAL + COMPLEX, _BAD_TWO),
    _row("ifft2", "fft.ifft2", np.fft.ifft2, _TWO, REAL + COMPLEX, _BAD_TWO[:3]),
    _row("rfft2", "fft.rfft2", np.fft.rfft2, _TWO, REAL + ("int64",), _BAD_TWO),
    _row("irfft2", "fft.irfft2", np.fft.irfft2, _TWO, COMPLEX, _BAD_TWO[:3]),
    _row("hfft2", "fft.hfft2", _hfft2, _TWO, COMPLEX, _BAD_TWO[:3]),
    _row("ihfft2", "fft.ihfft2", _ihfft2, _TWO, REAL, _BAD_TWO[:3]),
    # n axes
    _row("fftn", "fft.fftn", _nd(np.fft.fftn), _N, REAL + COMPLEX, _BAD_N),
    _row("ifftn", "fft.ifftn", _nd(np.fft.ifftn), _N, REAL + COMPLEX, _BAD_N[:3]),
    _row("rfftn", "fft.rfftn", _nd(np.fft.rfftn), _N, REAL, _BAD_N),
    _row("irfftn", "fft.irfftn", _nd(np.fft.irfftn), _N, COMPLEX, _BAD_N[:3]),
    _row("hfftn", "fft.hfftn", _hfftn, _N, COMPLEX, _BAD_N[:3]),
    _row("ihfftn", "fft.ihfftn", _ihfftn, _N, REAL, _BAD_N[:3]),
    _row("irfftn_grad", "fft.irfftn", _nd(np.fft.irfftn), _N, ("float64",), grad=True, conformance=False),
    _row("hfftn_grad", "fft.hfftn", _hfftn, _N, ("float64",), grad=True, conformance=False),
    # frequencies and shifts
    OpCase("fftfreq", "fft.fftfreq", _freq(np.fft.fftfreq), _freq_samples, REAL, grad=False,
           errors=(Err((0,)), Err((4,), {"d": 0}), Err((4.0,), exc=TypeError), Err(("4",), exc=TypeError),
                   Err((4, "x"), exc=TypeError))),
    OpCase("rfftfreq", "fft.rfftfreq", _freq(np.fft.rfftfreq), _freq_samples, REAL, grad=False,
           errors=(Err((0,)), Err((4,), {"d": 0.0}), Err((4, "x"), exc=TypeError))),
    _row("fftshift", "fft.fftshift", np.fft.fftshift, [((3, 4), {}), ((2, 3, 5), {"axes": (1, 2)})],
         REAL + COMPLEX, (Err((T(np.ones((3, 4))),), {"axes": [0, 3]}), Err((T(np.array(1.0)),)),
                          Err(([1, 2, 3],), exc=TypeError)), grad=True),
    _row("ifftshift", "fft.ifftshift", np.fft.ifftshift, [((3, 4), {}), ((2, 3, 5), {"axes": (0, 2)})],
         REAL + COMPLEX, (Err((T(np.ones((3, 4))),), {"axes": (0, 3)}), Err((T(np.array(1.0)),)),
                          Err(([1, 2, 3],), exc=TypeError)), grad=True),
    # NOTE: Paddle 3.3.1 fails (SystemError) on an int axis, one-element axes, 1-D and integer tensors here.
    _row("fftshift_more", "fft.fftshift", np.fft.fftshift,
         [((3, 4), {"axes": 1}), ((3, 5), {"axes": [0]}), ((5,), {}), ((6,), {"axes": 0})],
         REAL + ("int64",), (Err((T(np.ones((3, 4))),), {"axes": 2}, exc=IndexError),), conformance=False),
    _row("ifftshift_more", "fft.ifftshift", np.fft.ifftshift, [((7,), {}), ((3, 5), {"axes": -1})],
         REAL + ("int32",), conformance=False),
]
