"""Rows for the special functions and torch-style math Paddle 3.x added (i0/i1, polygamma, incomplete gamma,
copysign, ldexp, logaddexp, cdist, renorm, baddbmm, trapezoid, vander, block_diag...): NumPy references
written out here (no SciPy), float64 finite-difference gradients where the op is differentiable."""
import itertools
import math

import numpy as np

from .core import FLOATS, INTS, NUMERIC, Err, OpCase, Sample, T, binary, data, fixed, unary

_lgamma = np.vectorize(math.lgamma)
_NOT_TENSOR = Err(([1.0, 2.0],), exc=ValueError, note="a list is not a Tensor")
_INT_IN = Err((T(np.array([1, 2]), dtype="int64"),), exc=TypeError, note="float kernels only")
_BOOL_IN = Err((T(np.array([True, False])),), exc=TypeError, note="no bool kernel")


def _i1(x):
    x = np.asarray(x, dtype=np.float64)
    k = np.arange(40)
    terms = (x[..., None] / 2) ** (2 * k + 1) / np.array([math.factorial(i) * math.factorial(i + 1) for i in k])
    return terms.sum(-1)


def _trigamma(x):
    """psi'(x): 60 terms of sum 1/(x+k)^2, then the Euler-Maclaurin tail."""
    x = np.asarray(x, dtype=np.float64)
    n = 60
    head = sum(1.0 / (x + k) ** 2 for k in range(n))
    z = x + n
    return head + 1 / z + 1 / (2 * z ** 2) + 1 / (6 * z ** 3) - 1 / (30 * z ** 5)


def _gammainc(a, x):
    """Regularised lower incomplete gamma P(a, x) by its power series."""
    a, x = np.broadcast_arrays(np.asarray(a, dtype=np.float64), np.asarray(x, dtype=np.float64))
    term = np.ones_like(x) / a
    total = term.copy()
    for k in range(1, 300):
        term = term * x / (a + k)
        total = total + term
    with np.errstate(divide="ignore"):
        return np.exp(a * np.log(np.where(x > 0, x, 1)) - x - _lgamma(a)) * total * (x > 0)


def _multigammaln(x, p):
    return sum(_lgamma(x + (1 - j) / 2) for j in range(1, p + 1)) + p * (p - 1) / 4 * math.log(math.pi)


def _cdist(x, y, p=2.0, compute_mode=None):
    diff = np.abs(x[..., :, None, :] - y[..., None, :, :])
    return diff.max(-1) if p == np.inf else (diff ** p).sum(-1) ** (1 / p)


def _pdist(x, p=2.0):
    n = x.shape[0]
    return np.array([np.sum(np.abs(x[i] - x[j]) ** p) ** (1 / p) for i in range(n) for j in range(i + 1, n)])


def _renorm(x, p, axis, max_norm):
    axes = tuple(i for i in range(x.ndim) if i != axis % x.ndim)
    norms = (np.abs(x) ** p).sum(axis=axes, keepdims=True) ** (1 / p)
    return x * np.where(norms > max_norm, max_norm / (norms + 1e-7), 1.0)


def _trapezoid(y, x=None, dx=None, axis=-1):
    y = np.moveaxis(y, axis, -1)
    widths = np.diff(x) if x is not None else (1.0 if dx is None else dx)
    return ((y[..., 1:] + y[..., :-1]) / 2 * widths).sum(-1)


def _cumulative_trapezoid(y, x=None, dx=None, axis=-1):
    y = np.moveaxis(y, axis, -1)
    widths = np.diff(x) if x is not None else (1.0 if dx is None else dx)
    return np.moveaxis(np.cumsum((y[..., 1:] + y[..., :-1]) / 2 * widths, -1), -1, axis)


def _block_diag(inputs):
    blocks = [np.atleast_2d(b) for b in inputs]
    out = np.zeros((sum(b.shape[0] for b in blocks), sum(b.shape[1] for b in blocks)), blocks[0].dtype)
    r = c = 0
    for b in blocks:
        out[r:r + b.shape[0], c:c + b.shape[1]] = b
        r, c = r + b.shape[0], c + b.shape[1]
    return out


def _reduce_as(x, target):
    lead = x.ndim - target.ndim
    out = x.sum(axis=tuple(range(lead))) if lead else x
    axes = tuple(i for i, t in enumerate(target.shape) if t == 1 and out.shape[i] != 1)
    out = out.sum(axis=axes, keepdims=True) if axes else out
    return out.astype(np.int64) if x.dtype.kind in "iub" else out


def _positive(shape_pairs, low=0.5, high=3.0):
    def make(rng, dtype):
        return [Sample(tuple(T(data(rng, s, dtype, low, high)) for s in shapes)) for shapes in shape_pairs]
    return make


def _gamma_pairs(rng, dtype):
    a = data(rng, (3, 4), dtype, 0.5, 3.0)
    # NOTE: no broadcasting sample: Paddle 3.3.1 returns wrong values when x and y shapes differ
    return [Sample((T(a, grad=False), T(data(rng, (3, 4), dtype, 0.2, 3.0)))),
            Sample((T(data(rng, (5,), dtype, 0.5, 3.0), grad=False), T(data(rng, (5,), dtype, 0.2, 3.0))))]


_M = T(np.arange(6.0).reshape(2, 3) - 2.5)
_B = T(np.linspace(-1.0, 1.0, 24).reshape(2, 3, 4))

OPS = [
    OpCase("sf_i0", "i0", np.i0, unary(), FLOATS, errors=(_NOT_TENSOR,)),
    OpCase("sf_i0e", "i0e", lambda x: np.i0(x) * np.exp(-np.abs(x)), unary(), FLOATS, errors=(_NOT_TENSOR,)),
    OpCase("sf_i1", "i1", _i1, unary(), FLOATS, errors=(_NOT_TENSOR,)),
    OpCase("sf_i1e", "i1e", lambda x: _i1(x) * np.exp(-np.abs(x)), unary(), FLOATS, errors=(_NOT_TENSOR,)),
    OpCase("sf_i0_int", "i0", lambda x: np.i0(x.astype(np.float32)), unary(), INTS, grad=False),
    OpCase("sf_gammaln", "gammaln", _lgamma, unary(low=0.5, high=4.0), FLOATS, errors=(_NOT_TENSOR, _INT_IN)),
    OpCase("sf_polygamma1", "polygamma", lambda x, n: _trigamma(x), unary(low=0.5, high=4.0, n=1), FLOATS,
           errors=(Err((T(np.ones(2)),), {"n": -1}, exc=ValueError), Err((T(np.ones(2)),), {"n": 1.5}, exc=TypeError))),
    OpCase("sf_gammainc", "gammainc", _gammainc, _gamma_pairs, FLOATS,
           errors=(Err((T(np.array([-1.0, 1.0])), T(np.ones(2))), exc=ValueError),)),
    OpCase("sf_gammaincc", "gammaincc", lambda a, x: 1 - _gammainc(a, x), _gamma_pairs, FLOATS,
           errors=(Err((T(np.ones(2)), T(np.array([1.0, -1.0]))), exc=ValueError),)),
    OpCase("sf_multigammaln", "multigammaln", _multigammaln, unary(low=2.0, high=4.0, p=3), FLOATS,
           errors=(Err((T(np.ones(2) * 3),), {"p": 0}, exc=AssertionError), _INT_IN)),
    OpCase("sf_sinc", "sinc", np.sinc, unary(), FLOATS, errors=(_NOT_TENSOR, _INT_IN)),
    OpCase("sf_angle", "angle", np.angle, fixed(Sample((T(np.array([1 + 1j, -2 + 0.5j, -1j])),))),
           ("complex64", "complex128"), grad=False, errors=(_INT_IN,)),
    OpCase("sf_angle_real", "angle", np.angle, unary(), FLOATS, grad=False),
    OpCase("sf_signbit", "signbit", np.signbit, fixed(Sample((T(np.array([-0.0, 0.0, -1.5, 2.0])),))), FLOATS,
           grad=False, errors=(_BOOL_IN,)),
    OpCase("sf_signbit_int", "signbit", np.signbit, unary(), INTS, grad=False),
    OpCase("sf_frexp", "frexp", lambda x: tuple(np.asarray(v, x.dtype) for v in np.frexp(x)), unary(), FLOATS,
           grad=False, errors=(_INT_IN,)),
    OpCase("sf_copysign", "copysign", np.copysign, binary(), FLOATS,
           errors=(Err(([1.0], T(np.ones(1))), exc=ValueError), Err((T(np.ones(2)), T(np.ones(3))), exc=ValueError))),
    OpCase("sf_copysign_int", "copysign", lambda x, y: np.copysign(x, y).astype(x.dtype), binary(), INTS,
           grad=False),
    # conformance=False: Paddle marks the result stop_gradient=False though no gradient flows (values are compared
    # with Paddle in tests/tensor/surface_cases.py)
    OpCase("sf_nextafter", "nextafter", np.nextafter, binary(), FLOATS, grad=False, conformance=False),
    OpCase("sf_ldexp", "ldexp", lambda x, y: x * 2.0 ** y,
           fixed(Sample((T(np.array([0.5, -1.5, 3.0])), T(np.array([1, 3, -2]), dtype="int64")))), FLOATS),
    OpCase("sf_logaddexp", "logaddexp", np.logaddexp, binary(), FLOATS),
    OpCase("sf_isin", "isin", np.isin, fixed(Sample((T(np.array([1, 5, 3, 2])), T(np.array([3, 1])))),
                                             Sample((T(np.array([1, 5, 3, 2])), T(np.array([3, 1]))),
                                                    {"invert": True})), NUMERIC, grad=False),
    OpCase("sf_cdist", "cdist", _cdist, fixed(Sample((_M, T(np.array([[0.0, 1.0, 2.0], [1.0, -1.0, 0.5]])))),
                                              Sample((_B, T(np.linspace(0, 1, 8).reshape(2, 1, 4))), {"p": 1.0}),
                                              Sample((_M, T(np.ones((4, 3)) * 0.3)), {"p": 3.0})), FLOATS,
           errors=(Err((_M, T(np.ones((2, 2)))), exc=AssertionError),)),
    OpCase("sf_pdist", "pdist", _pdist, fixed(Sample((T(np.array([[0.0, 0.5], [3.0, 4.0], [1.0, 1.5]])),)),
                                              Sample((T(np.array([[0.0, 0.5], [3.0, 4.0], [1.0, 1.5]])),),
                                                     {"p": 1.0})), FLOATS,
           errors=(Err((T(np.ones(3)),), exc=AssertionError),)),
    OpCase("sf_bincount", "bincount", lambda x, weights=None, minlength=0: np.bincount(x, weights, minlength),
           fixed(Sample((T(np.array([1, 1, 3, 0])),)), Sample((T(np.array([2])),), {"minlength": 5})), INTS,
           grad=False, errors=(Err((T(np.array([-1, 1]), dtype="int64"),), exc=ValueError),
                               Err((T(np.ones(2)),), exc=TypeError),
                               Err((T(np.ones((2, 2)), dtype="int64"),), exc=ValueError))),
    OpCase("sf_renorm", "renorm", _renorm, fixed(Sample((_M, 2.0, 0, 3.0)), Sample((_B, 1.0, -1, 2.0))), FLOATS,
           errors=(Err((_M, 2.0, 2, 1.0), exc=ValueError), Err(([1.0], 2.0, 0, 1.0), exc=ValueError))),
    OpCase("sf_baddbmm", "baddbmm", lambda i, x, y, beta=1.0, alpha=1.0: beta * i + alpha * (x @ y),
           fixed(Sample((T(np.linspace(0, 1, 8).reshape(2, 2, 2)), _B[:, :2, :3] if False else
                         T(np.linspace(-1, 1, 12).reshape(2, 2, 3)), T(np.linspace(0, 2, 12).reshape(2, 3, 2))),
                        {"beta": 0.5, "alpha": 2.0})), FLOATS,
           errors=(Err((T(np.ones((2, 2))), T(np.ones((2, 2, 3))), T(np.ones((2, 2, 2)))), exc=ValueError),)),
    OpCase("sf_reduce_as", "reduce_as", _reduce_as,
           fixed(Sample((T(np.linspace(-1, 1, 24).reshape(2, 3, 4)), T(np.ones(4), grad=False))),
                 Sample((T(np.linspace(-1, 1, 24).reshape(2, 3, 4)), T(np.ones((3, 1)), grad=False)))), NUMERIC,
           errors=(Err((T(np.ones((2, 3))), T(np.ones(4))), exc=ValueError),)),
    OpCase("sf_trapezoid", "trapezoid", _trapezoid,
           fixed(Sample((_B,)), Sample((_B,), {"dx": 0.5, "axis": 1}),
                 Sample((_B,), {"x": T(np.array([0.0, 1.0, 3.0, 3.5]))})), FLOATS,
           errors=(Err((T(np.ones(3)),), {"dx": 1.0, "x": T(np.ones(3))}, exc=ValueError), _INT_IN)),
    OpCase("sf_cumulative_trapezoid", "cumulative_trapezoid", _cumulative_trapezoid,
           fixed(Sample((_B,)), Sample((_B,), {"dx": 2.0, "axis": 0}),
                 Sample((_B,), {"x": T(np.array([0.0, 1.0, 3.0, 3.5]))})), FLOATS, errors=(_INT_IN,)),
    OpCase("sf_vander", "vander", lambda x, n=None, increasing=False: np.vander(x, n, increasing),
           fixed(Sample((T(np.array([1.0, -2.0, 0.5])),)), Sample((T(np.array([1.0, -2.0, 0.5])),), {"n": 4}),
                 Sample((T(np.array([1.0, 2.0])),), {"increasing": True})), NUMERIC,
           errors=(Err((T(np.ones((2, 2))),), exc=ValueError),)),
    OpCase("sf_block_diag", "block_diag", _block_diag,
           fixed(Sample(([T(np.ones((2, 2))), T(np.arange(3.0).reshape(1, 3)), T(np.array([5.0]))],))), NUMERIC,
           errors=(Err(([T(np.ones((1, 1, 1)))],), exc=ValueError),)),
    OpCase("sf_cartesian_prod", "cartesian_prod",
           lambda x: np.array(list(itertools.product(*x))),
           fixed(Sample(([T(np.array([1.0, 2.0, 3.0])), T(np.array([4.0, 5.0]))],))), NUMERIC,
           errors=(Err(([T(np.ones((2, 2)))] * 2,), exc=ValueError),)),
    OpCase("sf_combinations", "combinations",
           lambda x, r=2, with_replacement=False: np.array(list(
               (itertools.combinations_with_replacement if with_replacement else itertools.combinations)(x, r))),
           fixed(Sample((T(np.array([1.0, 2.0, 3.0, 4.0])),)), Sample((T(np.array([1.0, 2.0, 3.0])),), {"r": 3}),
                 Sample((T(np.array([1.0, 2.0])),), {"with_replacement": True})), NUMERIC,
           errors=(Err((T(np.ones((2, 2))),), exc=TypeError),)),
    OpCase("sf_histogram_bin_edges", "histogram_bin_edges",
           lambda x, bins=100, min=0.0, max=0.0: np.linspace(*(x.min(), x.max()) if min == max == 0 else (min, max),
                                                             bins + 1).astype(np.float32),
           fixed(Sample((T(np.array([1.0, -2.0, 3.5, 0.25])), 4)), Sample((T(np.array([1.0, 2.0])), 3, -1.0, 1.0))),
           FLOATS, grad=False, errors=(Err((T(np.ones(2)), 3), {"min": 2.0, "max": 1.0}, exc=ValueError),)),
    OpCase("sf_histogramdd", "histogramdd",
           lambda x, bins=10, ranges=None, density=False, weights=None: (lambda h: (h[0], list(h[1])))(
               np.histogramdd(x.reshape(-1, x.shape[-1]), bins, None if ranges is None else
                              list(zip(ranges[::2], ranges[1::2])), density=density, weights=weights)),
           fixed(Sample((T(np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 2.0], [0.5, 1.5]])),), {"bins": 2}),
                 Sample((T(np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 2.0]])),),
                        {"bins": [2, 3], "ranges": [0.0, 2.0, 0.0, 3.0], "density": True})),
           FLOATS, grad=False, errors=(Err((T(np.ones(3)),), exc=ValueError),), conformance=False),
]
