"""Rows for the paddle.linalg functions of ops/defs/linalg_ext.py: vecdot, matrix_transpose, diagonal,
matrix_exp, lu_solve, cholesky_inverse, householder_product, ormqr, svd_lowrank and pca_lowrank.

The references follow Paddle's definitions, which differ from LAPACK's in two places: cholesky_inverse inverts
x @ x^T with the whole of x, and ormqr multiplies by the thin Q (x's shape) with a plain transpose. The low-rank
SVDs are randomized; with q = min(M, N) they are exact up to the signs of the singular vectors (``post``).
"""
import numpy as np

from .core import FLOATS, NUMERIC, Err, OpCase, Sample, T, data
from .rows_linalg import _lu_factor, _lu_unpack, _rect, _spd, _square


def _vecdot(x, y, axis=-1):
    return (np.conj(x) * y).sum(axis)


def _diagonal(x=None, offset=0, axis1=0, axis2=1, input=None, dim1=None, dim2=None):  # noqa: A002 - Paddle's alias
    x = input if x is None else x
    return np.diagonal(x, offset, axis1 if dim1 is None else dim1, axis2 if dim2 is None else dim2)


def _expm(x):
    """Taylor series with scaling and squaring, in float64."""
    a = np.asarray(x, dtype=np.float64)
    if a.ndim == 0:
        return np.exp(a)
    norm = np.abs(a).sum(-2).max() if a.size else 0.0
    squarings = max(0, int(np.ceil(np.log2(norm))) + 1) if norm > 0 else 0
    a = a / 2.0 ** squarings
    term = np.broadcast_to(np.eye(a.shape[-1]), a.shape).copy()
    result = term.copy()
    for k in range(1, 30):
        term = term @ a / k
        result = result + term
    for _ in range(squarings):
        result = result @ result
    return result


def _lu_solve(b, lu, pivots, trans="N"):
    if lu.ndim > 2:
        return np.stack([_lu_solve(bi, li, pi, trans) for bi, li, pi in zip(b, lu, pivots)])
    pmat, lower, upper = _lu_unpack(lu, pivots)
    a = pmat @ lower @ upper
    return np.linalg.solve(a if trans == "N" else a.T, b)


def _householder(x, tau):
    if x.ndim > 2:
        return np.stack([_householder(a, t) for a, t in zip(x, tau)])
    m, n = x.shape
    q = np.eye(m, dtype=x.dtype)
    for i in range(tau.shape[-1]):
        v = np.zeros(m, dtype=x.dtype)
        v[i] = 1
        v[i + 1:] = x[i + 1:, i]
        q = q @ (np.eye(m) - tau[i] * np.outer(v, np.conj(v)))
    return q[:, :n]


def _ormqr(x, tau, y, left=True, transpose=False):
    q = _householder(x, tau)
    if transpose:
        q = np.swapaxes(q, -1, -2)
    return q @ y if left else y @ q


def _cholesky_inverse(x, upper=False):
    return np.linalg.inv(x.T @ x if upper else x @ x.T)


def _svd_lowrank(x, q=None, niter=2, M=None):
    if M is not None:
        x = x - M
    u, s, vh = np.linalg.svd(x, full_matrices=False)
    q = min(6, *x.shape[-2:]) if q is None else q
    return u[..., :q], s[..., :q], np.swapaxes(vh, -1, -2)[..., :q]


def _pca_lowrank(x, q=None, center=True, niter=2):
    return _svd_lowrank(x - x.mean(-2, keepdims=True) if center else x, q)


def _abs(a):
    return np.abs(a)


def _pairs(*cases):
    def make(rng, dtype):
        return [Sample((T(data(rng, a, dtype)), T(data(rng, b, dtype))), dict(kw)) for a, b, kw in cases]
    return make


def _unary(*cases, maker=_rect):
    def make(rng, dtype):
        return [Sample((T(maker(rng, shape) if maker is _rect else maker(rng, shape[-1], shape[:-2])),), dict(kw))
                for shape, kw in cases]
    return make


def _numeric_unary(*cases):
    def make(rng, dtype):
        return [Sample((T(data(rng, shape, dtype)),), dict(kw)) for shape, kw in cases]
    return make


def _expm_samples(rng, dtype):
    return [Sample((T(rng.uniform(-1, 1, size=(3, 3))),)), Sample((T(rng.uniform(-2, 2, size=(2, 4, 4))),)),
            Sample((T(np.array([[1.0, 2.0], [3.0, 4.0]])),)), Sample((T(np.array(0.7)),)),
            Sample((T(rng.uniform(-1, 1, size=(2, 1, 1))),)), Sample((T(np.zeros((3, 3))),))]


def _lu_solve_samples(rng, dtype):
    out = []
    for shape, bshape, kw in (((3, 3), (3, 2), {}), ((4, 4), (4, 1), {"trans": "T"}), ((3, 3), (3, 3), {"trans": "C"}),
                              ((2, 3, 3), (2, 3, 2), {})):
        a = _square(rng, shape[-1], shape[:-2])
        factors = [_lu_factor(m) for m in a.reshape(-1, shape[-1], shape[-1])]
        lu = np.stack([f[0] for f in factors]).reshape(shape)
        pivots = np.stack([f[1] for f in factors]).reshape(shape[:-1])
        out.append(Sample((T(_rect(rng, bshape)), T(lu), T(pivots, dtype="int32")), kw))
    return out


def _householder_samples(rng, dtype):
    r = lambda *s: T(_rect(rng, s) / 2)  # noqa: E731
    return [Sample((r(3, 3), r(3))), Sample((r(4, 3), r(2))), Sample((r(5, 3), r(3))), Sample((r(2, 4, 3), r(2, 2)))]


def _ormqr_samples(rng, dtype):
    r = lambda *s: T(_rect(rng, s) / 2)  # noqa: E731
    return [Sample((r(3, 3), r(3), r(3, 2))), Sample((r(3, 3), r(3), r(2, 3)), {"left": False}),
            Sample((r(3, 3), r(3), r(3, 4)), {"transpose": True}),
            Sample((r(3, 3), r(3), r(2, 3)), {"left": False, "transpose": True}),
            Sample((r(4, 3), r(3), r(3, 2))), Sample((r(4, 3), r(3), r(4, 2)), {"transpose": True}),
            Sample((r(2, 3, 3), r(2, 3), r(2, 3, 2)))]


def _lowrank_samples(rng, dtype):
    def x(*shape):
        u, _, vh = np.linalg.svd(rng.normal(size=shape), full_matrices=False)
        k = min(shape[-2:])
        return T(u @ (np.linspace(4.0, 1.0, k)[..., :, None] * vh))   # well separated singular values
    return [Sample((x(5, 4),), {"q": 4}), Sample((x(3, 6),), {"q": 3}), Sample((x(4, 4),), {"q": 4, "niter": 0}),
            Sample((x(2, 5, 3),), {"q": 3})]


def _pca_samples(rng, dtype):
    # centering an M x N matrix leaves rank min(M - 1, N): q must not exceed it for unique singular vectors
    samples = _lowrank_samples(rng, dtype)
    for sample, kwargs in zip(samples, ({"q": 4}, {"q": 3, "center": False}, {"center": False, "q": 4}, {})):
        sample.kwargs = kwargs
    return samples


_M33 = T(np.eye(3))
_LU_ERR = (T(np.ones((3, 2))), T(np.eye(3)), T(np.array([1, 2, 3]), dtype="int32"))

OPS = [
    OpCase("vecdot", "vecdot", _vecdot,
           _pairs(((3, 4), (3, 4), {}), ((3, 4), (4,), {}), ((2, 3, 4), (3, 1), {"axis": 1}), ((5,), (5,), {}),
                  ((3, 4), (3, 4), {"axis": 0})), NUMERIC,
           errors=(Err((T(np.ones((3, 4))), T(np.ones(2)))), Err((T(np.ones((3, 4))), T(np.ones((3, 4)))), {"axis": 5}),
                   Err((T(np.ones(3), dtype="int32"), T(np.ones(3), dtype="float32")), exc=TypeError))),
    OpCase("linalg_vecdot", "linalg.vecdot", _vecdot, _pairs(((3, 4), (3, 4), {"axis": -2})), FLOATS),
    OpCase("vecdot_complex", "vecdot", _vecdot,
           lambda rng, d: [Sample((T(rng.normal(size=(3, 4)) + 1j * rng.normal(size=(3, 4))),
                                   T(rng.normal(size=(3, 4)) + 1j * rng.normal(size=(3, 4)))))],
           ("complex64", "complex128"), grad=False),
    OpCase("matrix_transpose", "matrix_transpose", lambda x: np.swapaxes(x, -1, -2),
           _numeric_unary(((3, 4), {}), ((2, 3, 4), {}), ((1, 5), {})), NUMERIC + ("bool",),
           errors=(Err((T(np.ones(3)),)), Err((T(np.array(1.0)),)), Err((T(np.ones(1), dtype="int64"),)))),
    OpCase("linalg_matrix_transpose", "linalg.matrix_transpose", lambda x: np.swapaxes(x, -1, -2),
           _numeric_unary(((2, 2, 3), {})), FLOATS),
    OpCase("tensor_matrix_transpose", "Tensor.matrix_transpose", lambda x: np.swapaxes(x, -1, -2),
           _numeric_unary(((2, 3), {})), FLOATS),
    OpCase("linalg_diagonal", "linalg.diagonal", _diagonal,
           _numeric_unary(((3, 4), {}), ((2, 3, 4), {"offset": 1, "axis1": 1, "axis2": 2}),
                          ((4, 3), {"offset": -1}), ((2, 3, 4), {"dim1": 2, "dim2": 0})), NUMERIC,
           errors=(Err((T(np.ones((3, 4))),), {"axis1": 2}), Err((T(np.ones((3, 4))),), {"axis1": 0, "axis2": 0}),
                   Err((T(np.ones(3)),)))),
    OpCase("matrix_exp", "linalg.matrix_exp", _expm, _expm_samples, FLOATS, rtol=1e-4, atol=1e-5,
           errors=(Err((T(np.eye(3), dtype="int64"),)), Err((T(np.ones(3)),)), Err((T(np.ones((3, 2))),)),
                   Err((T(np.eye(2) + 0j, dtype="complex64"),)))),
    OpCase("lu_solve", "linalg.lu_solve", _lu_solve, _lu_solve_samples, FLOATS, rtol=1e-4, atol=1e-5,
           errors=(Err((T(np.ones(3)), _M33, T(np.array([1, 2, 3]), dtype="int32"))),
                   Err((T(np.ones((4, 2))), _M33, T(np.array([1, 2, 3]), dtype="int32"))),
                   Err((T(np.ones((3, 2))), _M33, T(np.array([1, 2]), dtype="int32"))),
                   Err((T(np.ones((3, 2))), T(np.ones((3, 2))), T(np.array([1, 2]), dtype="int32"))),
                   Err((T(np.ones((3, 2)), dtype="float32"), T(np.eye(3), dtype="float64"),
                        T(np.array([1, 2, 3]), dtype="int32"))),
                   Err((T(np.ones((3, 2))), _M33, T(np.array([1, 2, 3]), dtype="int64"))))),
    OpCase("cholesky_inverse", "linalg.cholesky_inverse", _cholesky_inverse,
           lambda rng, d: [Sample((T(np.linalg.cholesky(_spd(rng, 3))),)),
                           Sample((T(np.linalg.cholesky(_spd(rng, 4)).T),), {"upper": True}),
                           Sample((T(_square(rng, 3)),))], FLOATS, rtol=1e-4, atol=1e-5,
           errors=(Err((T(np.ones((2, 3, 3))),)), Err((T(np.ones((3, 2))),)),
                   Err((T(np.eye(3), dtype="int64"),), exc=RuntimeError))),
    OpCase("tensor_cholesky_inverse", "Tensor.cholesky_inverse", _cholesky_inverse,
           lambda rng, d: [Sample((T(np.linalg.cholesky(_spd(rng, 3))),))], FLOATS, rtol=1e-4, atol=1e-5),
    OpCase("householder_product", "linalg.householder_product", _householder, _householder_samples, FLOATS,
           errors=(Err((T(np.ones((3, 4))), T(np.ones(2))), exc=AssertionError),
                   Err((T(np.ones((4, 3))), T(np.ones(4))), exc=AssertionError),
                   Err((T(np.ones((4, 3)), dtype="float32"), T(np.ones(2), dtype="float64")), exc=AssertionError),
                   Err((T(np.ones((2, 4, 3))), T(np.ones((3, 2)))), exc=AssertionError),
                   Err((T(np.ones((2, 4, 3))), T(np.ones(2))), exc=AssertionError))),
    OpCase("tensor_householder_product", "Tensor.householder_product", _householder,
           lambda rng, d: _householder_samples(rng, d)[:2], FLOATS),
    OpCase("ormqr", "linalg.ormqr", _ormqr, _ormqr_samples, FLOATS,
           errors=(Err((_M33, T(np.ones(3)), T(np.ones((3, 2)), dtype="float32")), exc=AssertionError),
                   Err((_M33, T(np.ones(2)), T(np.ones((3, 2)))), exc=AssertionError),
                   Err((T(np.ones((4, 3))), T(np.ones(3)), T(np.ones((4, 2)))), exc=AssertionError),
                   Err((T(np.ones((4, 3))), T(np.ones(3)), T(np.ones((2, 3)))), {"left": False}))),
    OpCase("tensor_ormqr", "Tensor.ormqr", _ormqr, lambda rng, d: _ormqr_samples(rng, d)[:2], FLOATS),
    OpCase("svd_lowrank", "linalg.svd_lowrank", _svd_lowrank, _lowrank_samples, FLOATS, grad=False, post=_abs,
           rtol=1e-4, atol=1e-4,
           errors=(Err((T(np.ones((5, 4))),), {"q": 5}), Err((T(np.ones((5, 4))),), {"q": -1}),
                   Err((T(np.ones((5, 4))),), {"niter": -1}), Err((T(np.ones(3)),)),
                   Err((T(np.ones((3, 3)), dtype="int64"),), exc=RuntimeError))),
    OpCase("tensor_svd_lowrank", "Tensor.svd_lowrank", _svd_lowrank, lambda rng, d: _lowrank_samples(rng, d)[:1],
           FLOATS, grad=False, post=_abs, rtol=1e-4, atol=1e-4),
    OpCase("pca_lowrank", "linalg.pca_lowrank", _pca_lowrank, _pca_samples, FLOATS, grad=False, post=_abs,
           rtol=1e-4, atol=1e-4,
           errors=(Err((T(np.ones((5, 4))),), {"q": 9}), Err((T(np.ones((5, 4))),), {"niter": -2}),
                   Err((T(np.ones(3)),)))),
    OpCase("tensor_pca_lowrank", "Tensor.pca_lowrank", _pca_lowrank, lambda rng, d: _pca_samples(rng, d)[:1],
           FLOATS, grad=False, post=_abs, rtol=1e-4, atol=1e-4),
]
