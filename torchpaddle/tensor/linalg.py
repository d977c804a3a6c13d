"""Linear algebra functions: products, norms, decompositions, solvers, covariance.

``__all__`` holds the names Paddle 3.3.1 exports as ``paddle.<name>``; the rest live only in ``paddle.linalg``
(torchpaddle/linalg.py) and, where Paddle has them, as Tensor methods.
"""
import numbers

import numpy as np

from .. import ops as _ops
from ..framework.place import current_torch_device
from ..framework.tensor import PaddleAssertionError, Tensor
from .creation import _aliases, _require_tensor, to_tensor
from .manipulation import diagonal as _diagonal, tensor_int

__all__ = ["matmul", "mm", "bmm", "mv", "dot", "cross", "cholesky", "inverse", "norm", "dist", "tensordot",
           "einsum", "eigvalsh", "vecdot", "matrix_transpose"]
__methods__ = ["matmul", "mm", "bmm", "mv", "dot", "cross", "cholesky", "inverse", "norm", "dist", "tensordot",
               "matrix_power", "slogdet", "qr", "eig", "eigvals", "eigvalsh", "pinv", "solve", "cholesky_solve",
               "lstsq", "cov", "corrcoef", "cond", "multi_dot", "lu", "lu_unpack", "matrix_transpose",
               "cholesky_inverse", "householder_product", "ormqr", "svd_lowrank", "pca_lowrank"]
LINALG = ["matmul", "norm", "vector_norm", "matrix_norm", "cond", "matrix_power", "matrix_rank", "inv", "det",
          "slogdet", "svd", "svdvals", "qr", "eig", "eigh", "eigvals", "eigvalsh", "cholesky", "pinv", "solve",
          "triangular_solve", "cholesky_solve", "lstsq", "lu", "lu_unpack", "multi_dot", "cross", "cov", "corrcoef",
          "vecdot", "matrix_transpose", "diagonal", "matrix_exp", "lu_solve", "cholesky_inverse", "householder_product",
          "ormqr", "svd_lowrank", "pca_lowrank", "fp8_fp8_half_gemm_fused"]


def _mark_like(source, *outputs):
    """Paddle marks every output of an op with a gradient as stop_gradient=False when an input needs one,
    integer outputs (pivots, indices) included."""
    if isinstance(source, Tensor) and source._t.requires_grad:
        for o in outputs:
            o.stop_gradient = False


def _out(result, out):
    """Paddle's ``out=``: the given Tensor takes the result's value and is returned."""
    if out is None:
        return result
    out._t = result._t
    return out


# -- products -------------------------------------------------------------------------------------------------

def matmul(x, y, transpose_x=False, transpose_y=False, name=None, *, out=None):
    return _out(_ops.matmul_v2(x, y, trans_x=transpose_x, trans_y=transpose_y), out)


def mm(input, mat2, name=None):
    return _ops.matmul_v2(input, mat2, trans_x=False, trans_y=False)


def bmm(x, y, name=None, *, out=None):
    return _out(_ops.bmm(x, y), out)


def mv(x, vec, name=None):
    return _ops.mv(x, vec)


def dot(x, y, name=None, *, out=None):
    """Inner product of 1-D tensors, or row-wise inner products of 2-D tensors."""
    return _out(_ops.dot(x, y), out)


def cross(x, y, axis=9, name=None):
    """Cross product along ``axis``; the default (9) picks the first axis of size 3."""
    if isinstance(axis, Tensor):
        axis = tensor_int("cross", "axis", axis)
    return _ops.cross(x, y, dim=axis)


def multi_dot(x, name=None):
    return _ops.multi_dot(x)


def einsum(equation, *operands):
    if not isinstance(equation, str):
        raise TypeError(f"einsum: equation must be a str, got {type(equation).__name__}")
    count = equation.split("->")[0].count(",") + 1
    if count != len(operands):
        raise PaddleAssertionError(f"einsum: equation {equation!r} names {count} operands, "
                                   f"but {len(operands)} were given")
    for i, operand in enumerate(operands):
        # NOTE: Paddle's einsum kernel exists for floating dtypes only.
        if isinstance(operand, Tensor) and not (operand._t.is_floating_point() or operand._t.is_complex()):
            from ..ops.defs.linalg import KernelDtypeError
            raise KernelDtypeError(f"einsum: operand {i} of dtype {operand.dtype} is not supported; "
                                   f"use float32 or float64")
    return _ops.einsum(list(operands), equation=equation)


def _axes_list(axes):
    if isinstance(axes, Tensor):
        return axes.tolist()
    return axes


def tensordot(x, y, axes=2, name=None):
    """Sum of products over the axes ``axes`` (an int n: x's last n with y's first n; or [x_axes, y_axes])."""
    if isinstance(axes, (int, np.integer)) and not isinstance(axes, bool):
        if axes < 0:
            raise PaddleAssertionError(f"tensordot: axes must not be negative, got {axes}")
        axes_x, axes_y = list(range(x.ndim - axes, x.ndim)), list(range(axes))
    elif isinstance(axes, (list, tuple, Tensor)):
        axes = _axes_list(axes)
        if not axes or isinstance(axes[0], (int, np.integer)):
            axes_x, axes_y = list(axes), []
        else:
            axes_x = list(_axes_list(axes[0]))
            axes_y = list(_axes_list(axes[1])) if len(axes) > 1 else []
    else:
        raise TypeError(f"tensordot: axes must be an int, a list/tuple or a Tensor, got {type(axes).__name__}")
    # NOTE: Paddle pads the shorter axes list with the longer one's extra entries.
    if len(axes_x) < len(axes_y):
        axes_x += axes_y[len(axes_x):]
    elif len(axes_y) < len(axes_x):
        axes_y += axes_x[len(axes_y):]
    shape_x, shape_y = x.shape, y.shape
    try:
        axes_x = [range(x.ndim)[a] for a in axes_x]
        axes_y = [range(y.ndim)[a] for a in axes_y]
    except IndexError:
        raise IndexError(f"tensordot: axes {axes_x} / {axes_y} out of range for x{shape_x} and y{shape_y}") from None
    if len(set(axes_x)) != len(axes_x) or len(set(axes_y)) != len(axes_y):
        raise ValueError(f"tensordot: axes {axes_x} / {axes_y} repeat a dimension")
    for a, b in zip(axes_x, axes_y):
        if shape_x[a] != shape_y[b] and shape_x[a] != 1 and shape_y[b] != 1:
            raise PaddleAssertionError(f"tensordot: x has size {shape_x[a]} at axis {a} but y has size "
                                       f"{shape_y[b]} at axis {b}")
    letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
    labels_x = letters[:x.ndim]
    labels_y = [None] * y.ndim
    for a, b in zip(axes_x, axes_y):
        labels_y[b] = labels_x[a]
    fresh = iter(letters[x.ndim:])
    labels_y = "".join(label or next(fresh) for label in labels_y)
    free = "".join(c for i, c in enumerate(labels_x) if i not in axes_x)
    free += "".join(c for i, c in enumerate(labels_y) if i not in axes_y)
    return _ops.einsum([x, y], equation=f"{labels_x},{labels_y}->{free}")


# -- norms ----------------------------------------------------------------------------------------------------

def norm(x, p=None, axis=None, keepdim=False, out=None, dtype=None, name=None):
    """Vector norm (axis None/int) or matrix norm (two axes, or a string p such as 'nuc')."""
    if isinstance(axis, tuple):
        axis = list(axis)
    elif isinstance(axis, list) and len(axis) == 1:
        axis = axis[0]
    if dtype is not None:
        x = x.astype(dtype)
    if isinstance(p, str):
        if p == "fro" and (axis is None or isinstance(axis, int)):
            result = vector_norm(x, 2.0, axis, keepdim)
        else:
            result = matrix_norm(x, p, list(range(x.ndim)) if axis is None else axis, keepdim)
    else:
        p = 2.0 if p is None else p
        if isinstance(axis, list) and len(axis) == 2:
            result = matrix_norm(x, p, axis, keepdim)
        else:
            result = vector_norm(x, p, axis, keepdim)
    return _out(result, out)


def vector_norm(x, p=2.0, axis=None, keepdim=False, name=None, *, dtype=None, out=None):
    if isinstance(p, bool) or not isinstance(p, numbers.Real):
        raise ValueError(f"vector_norm: p must be an int or float, got {type(p).__name__}")
    if dtype is not None:
        x = x.astype(dtype)
    if isinstance(axis, tuple):
        axis = list(axis)
    if isinstance(axis, list) and len(axis) == 1:
        axis = axis[0]
    if axis is None:
        result = _ops.p_norm(x, porder=float(p), axis=-1, keepdim=keepdim, asvector=True)
    elif isinstance(axis, (int, np.integer)):
        result = _ops.p_norm(x, porder=float(p), axis=int(axis), keepdim=keepdim, asvector=False)
    elif isinstance(axis, list):
        result = _ops.vector_norm(x, porder=float(p), axis=axis, keepdim=keepdim)
    else:
        raise TypeError(f"vector_norm: axis must be None, an int or a list of ints, got {type(axis).__name__}")
    return _out(result, out)


def matrix_norm(x, p="fro", axis=[-2, -1], keepdim=False, name=None):  # noqa: B006 - Paddle's default
    if isinstance(axis, tuple):
        axis = list(axis)
    if not isinstance(axis, list):
        raise TypeError(f"matrix_norm: axis must be a list of two ints, got {type(axis).__name__}")
    if len(axis) != 2:
        raise ValueError(f"matrix_norm: axis must hold two dimensions, got {axis}")
    if isinstance(p, str) and p == "fro":
        return _ops.frobenius_norm(x, dim=axis, keep_dim=keepdim, reduce_all=False)
    return _ops.matrix_norm(x, porder=p, axis=axis, keepdim=keepdim)


def dist(x, y, p=2, name=None):
    """The p-norm of ``x - y`` (broadcast)."""
    if isinstance(p, bool) or not isinstance(p, numbers.Real):
        raise TypeError(f"dist: p must be a number, got {type(p).__name__}")
    return _ops.dist(x, y, p=float(p))


def cond(x, p=None, name=None):
    """Condition number: p in None/2/-2 (any matrix) or 'fro'/'nuc'/1/-1/inf/-inf (square matrices)."""
    return _ops.cond(x, p=2 if p is None else p)


# -- decompositions -------------------------------------------------------------------------------------------

def cholesky(x, upper=False, name=None):
    return _ops.cholesky(x, upper=upper)


def inverse(x, name=None):
    return _ops.inverse(x)


inv = inverse


def matrix_power(x, n, name=None):
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise TypeError(f"matrix_power: n must be an int, got {type(n).__name__}")
    return _ops.matrix_power(x, n=int(n))


def det(x, name=None):
    return _ops.determinant(x)


def slogdet(x, name=None):
    """Sign and natural log of |det|, stacked: shape [2, *batch]."""
    return _ops.slogdeterminant(x)


def svd(x, full_matrices=False, name=None, *, out=None):
    """(U, S, VH) with x = U @ diag(S) @ VH."""
    result = _ops.svd(x, full_matrices=full_matrices)
    if out is not None:
        return tuple(_out(r, o) for r, o in zip(result, out))
    return result


def svdvals(x, name=None):
    return _ops.svdvals(x)


def qr(x, mode="reduced", name=None):
    """(Q, R), or R alone for mode='r'."""
    q, r = _ops.qr(x, mode=mode)
    return r if mode == "r" else (q, r)


def eigh(x, UPLO="L", name=None):
    return _ops.eigh(x, UPLO=UPLO)


def eigvalsh(x, UPLO="L", name=None):
    return _ops.eigvalsh(x, UPLO=UPLO, is_test=True)[0]


def eig(x, name=None):
    return _ops.eig(x)


def eigvals(x, name=None):
    return _ops.eigvals(x)


def lu(x, pivot=True, get_infos=False, name=None):
    """(LU, pivots) or (LU, pivots, infos); pivots are 1-based int32 as in LAPACK."""
    lu_data, pivots, infos = _ops.lu(x, pivots=pivot)
    _mark_like(lu_data, pivots, infos)
    return (lu_data, pivots, infos) if get_infos else (lu_data, pivots)


def lu_unpack(x, y, unpack_ludata=True, unpack_pivots=True, name=None):
    """(P, L, U) from lu()'s output ``x`` and pivots ``y``."""
    pmat, lower, upper = _ops.lu_unpack(x, y, unpack_ludata=unpack_ludata, unpack_pivots=unpack_pivots)
    _mark_like(x, pmat, lower, upper)
    return pmat, lower, upper


def pinv(x, rcond=1e-15, hermitian=False, name=None):
    if isinstance(rcond, Tensor):
        rcond = rcond.item()
    return _ops.pinv(x, rcond=float(rcond), hermitian=hermitian)


def matrix_rank(x, tol=None, hermitian=False, atol=None, rtol=None, name=None):
    """Number of singular values above the tolerance (default: eps * max(M, N) * largest singular value)."""
    if atol is not None or rtol is not None:
        return _ops.matrix_rank_atol_rtol(x, 0.0 if atol is None else atol, rtol, hermitian=hermitian)
    if tol is None:
        return _ops.matrix_rank(x, None, use_default_tol=True, hermitian=hermitian)
    if isinstance(tol, Tensor):
        return _ops.matrix_rank(x, tol, use_default_tol=False, hermitian=hermitian)
    return _ops.matrix_rank(x, None, tol=float(tol), use_default_tol=False, hermitian=hermitian)


# -- solvers --------------------------------------------------------------------------------------------------

def _swap_last(x):
    perm = list(range(len(x.shape)))
    perm[-1], perm[-2] = perm[-2], perm[-1]
    return _ops.transpose2(x, axis=perm)


def solve(x, y, left=True, name=None, *, out=None):
    """Solves x @ out = y (left=True) or out @ x = y: x^T @ out^T = y^T, by transposes, as Paddle."""
    if left:
        return _out(_ops.solve(x, y), out)
    if len(x.shape) < 2 or len(y.shape) < 1 or y.shape[-1] != x.shape[-1]:
        raise ValueError(f"solve: x{list(x.shape)} and y{list(y.shape)} do not fit: x's size must equal y's "
                         f"columns (left=False)")
    if len(y.shape) < 2:   # a vector: out @ x = y is x^T @ out = y
        return _out(_ops.solve(_swap_last(x), y), out)
    return _out(_swap_last(_ops.solve(_swap_last(x), _swap_last(y))), out)


def triangular_solve(x, y, upper=True, transpose=False, unitriangular=False, name=None):
    return _ops.triangular_solve(x, y, upper=upper, transpose=transpose, unitriangular=unitriangular)


def cholesky_solve(x, y, upper=False, name=None):
    """Solves A @ out = x given the Cholesky factor ``y`` of A."""
    return _ops.cholesky_solve(x, y, upper=upper)


_CPU_DRIVERS = (None, "gels", "gelss", "gelsd", "gelsy")


def lstsq(x, y, rcond=None, driver=None, name=None):
    """(solution, residuals, rank, singular_values) of min ||x @ solution - y||."""
    # a static Variable has no place: the program runs on the current device
    place = x.place
    on_gpu = current_torch_device().type == "cuda" if place is None else place.is_gpu_place()
    if on_gpu and driver not in (None, "gels"):
        raise ValueError(f"lstsq: only driver 'gels' or None is supported for GPU inputs, got {driver!r}")
    if driver not in _CPU_DRIVERS:
        raise ValueError(f"lstsq: driver must be 'gels', 'gelss', 'gelsd', 'gelsy' or None, got {driver!r}")
    driver = driver or ("gels" if on_gpu else "gelsy")
    if x.dtype != y.dtype or x.dtype.name not in ("float32", "float64"):
        raise ValueError(f"lstsq: x and y must have the same dtype, float32 or float64; got {x.dtype} and "
                         f"{y.dtype}")
    if rcond is None:
        rcond = (1e-7 if x.dtype.name == "float32" else 1e-15) * max(x.shape[-2:] or [1])
    return _ops.lstsq(x, y, rcond=float(rcond), driver=driver)


# -- statistics -----------------------------------------------------------------------------------------------

def cov(x, rowvar=True, ddof=True, fweights=None, aweights=None, name=None):
    """Covariance matrix of the variables in ``x`` (rows if rowvar), as numpy.cov."""
    return _ops.cov(x, fweights, aweights, rowvar=rowvar, ddof=ddof)


def corrcoef(x, rowvar=True, name=None):
    """Pearson correlation coefficients, as numpy.corrcoef."""
    return _ops.corrcoef(x, rowvar=rowvar)


# -- products, exponential and Householder factors (ops/defs/linalg_ext.py) ------------------------------------

def vecdot(x, y, axis=-1, name=None):
    """sum(conj(x) * y) along ``axis``, broadcasting x and y."""
    return _ops.vecdot(x, y, axis=axis)


def matrix_transpose(x, name=None):
    """Swaps the last two axes."""
    _require_tensor(x, "matrix_transpose")
    if x.ndim < 2:
        raise ValueError(f"matrix_transpose: Tensor.ndim({x.ndim}) is required to be greater than or equal to 2.")
    perm = list(range(x.ndim))
    perm[-2], perm[-1] = perm[-1], perm[-2]
    return _ops.transpose2(x, axis=perm)


diagonal = _aliases(input="x", dim1="axis1", dim2="axis2")(_diagonal)


def matrix_exp(x, name=None):
    """e^x of a square matrix (or batch); a 0-D x is a 1 x 1 matrix."""
    return _ops.matrix_exp(x if isinstance(x, Tensor) else to_tensor(x))


def lu_solve(b, lu, pivots, trans="N", name=None):
    """Solves A @ out = b given lu()'s factor and pivots of A; any trans but 'N' solves A^T @ out = b."""
    return _ops.lu_solve(b, lu, pivots, trans="N" if trans == "N" else "T")


def cholesky_inverse(x, upper=False, name=None):
    """inv(x @ x^T), or inv(x^T @ x) if upper, for a Cholesky factor x."""
    return _ops.cholesky_inverse(x, upper=upper)


def householder_product(x, tau, name=None):
    """The first n columns of the product of the Householder reflectors stored in x and tau (LAPACK orgqr)."""
    return _ops.householder_product(x, tau)


def ormqr(x, tau, y, left=True, transpose=False, name=None):
    """Q @ y (y @ Q if not left), Q^T with transpose, where Q = householder_product(x, tau)."""
    return _ops.ormqr(x, tau, y, left=left, transpose=transpose)


def _lowrank_args(api, x, q, niter, allow_empty):
    _require_tensor(x, api)
    if x.ndim < 2:
        raise ValueError(f"{api}: x must be at least 2-D (*, M, N), got shape {list(x.shape)}")
    known = [d for d in x.shape[-2:] if d >= 0]   # a static program may not know a size yet
    if q is None:
        q = min(6, *known)
    elif len(known) == 2 and not (allow_empty and min(known) == 0) and not 0 <= q <= min(known):
        raise ValueError(f"{api}: q(={q}) must be non-negative integer and not greater than min(m, n)={min(known)}")
    if not niter >= 0:
        raise ValueError(f"{api}: niter(={niter}) must be non-negative integer")
    return q


def svd_lowrank(x, q=None, niter=2, M=None, name=None):
    """Randomized rank-q SVD of x - M: (U, S, V) with x - M ~ U @ diag(S) @ V^T; q defaults to min(6, M, N)."""
    q = _lowrank_args("svd_lowrank", x, q, niter, True)
    return _ops.svd_lowrank(x, M, q=q, niter=niter)


def pca_lowrank(x, q=None, center=True, niter=2, name=None):
    """svd_lowrank of x with its column means removed (if center)."""
    q = _lowrank_args("pca_lowrank", x, q, niter, False)
    if center:
        x = x - x.mean(axis=-2, keepdim=True)
    return _ops.svd_lowrank(x, None, q=q, niter=niter)


def fp8_fp8_half_gemm_fused(x, y, transpose_x=False, transpose_y=False, bias=None, scale=1.0, output_dtype="float16",
                            act="identity", name=None):
    """act(scale * x @ y + bias) for float8 x and y, in float16 or bfloat16."""
    return _ops.fp8_fp8_half_gemm_fused(x, y, bias, transpose_x=transpose_x, transpose_y=transpose_y, scale=scale,
                                        output_dtype=output_dtype, activation_type=act)
