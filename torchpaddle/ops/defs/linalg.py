"""Linear algebra ops: products, norms, decompositions, solvers.

Paddle checks shapes first (infer-meta) and only then looks for a kernel of the input's dtype, so shape errors
win over dtype errors here too. Ops marked "composite" are built from several primitive ops by Paddle's
Python layer; here each is one op so the eager path stays a single kernel call.
"""
import torch

from ...framework.dtype import check_binary_promotion, from_torch_dtype
from ...framework.tensor import PaddleAssertionError
from ..registry import InputTypeError, REQUIRED, op
from .reduction import cast_reduce

_LinAlgError = torch.linalg.LinAlgError
_INF = float("inf")


class KernelDtypeError(TypeError, RuntimeError):
    """Paddle has no kernel for this dtype and raises RuntimeError; TypeError is what Python code expects."""


class ShapeRuntimeError(ValueError, RuntimeError):
    """A bad shape that Paddle reports as RuntimeError (dot, searchsorted); ValueError by Python convention."""


def dtype_name(t):
    return str(from_torch_dtype(t.dtype))


def float_only(op_type, slot, t):
    if not (t.is_floating_point() or t.is_complex()):
        raise KernelDtypeError(f"{op_type}: {slot} of dtype {dtype_name(t)} is not supported; "
                               f"use float32 or float64")


def same_dtype(op_type, a, b, names=("X", "Y")):
    if a.dtype is not b.dtype:
        raise ValueError(f"{op_type}: {names[0]} ({dtype_name(a)}) and {names[1]} ({dtype_name(b)}) must have "
                         f"the same dtype")


def matrix(op_type, slot, t, square=True, exc=ValueError):
    if t.dim() < 2:
        raise exc(f"{op_type}: {slot} must have at least 2 dimensions (*, M, N), got shape {list(t.shape)}")
    if square and t.shape[-1] != t.shape[-2]:
        raise exc(f"{op_type}: {slot} must be a square matrix or a batch of square matrices, "
                  f"got shape {list(t.shape)}")


def check_axis(op_type, axis, ndim, exc=ValueError, name="axis"):
    """Normalise ``axis`` into [0, ndim) (a 0-d tensor has one axis, 0 or -1)."""
    rank = max(ndim, 1)
    if not -rank <= axis < rank:
        raise exc(f"{op_type}: {name}={axis} is out of range for a tensor of rank {ndim} "
                  f"(expected in [{-rank}, {rank - 1}])")
    return axis % rank


def _concrete(t):
    """False for the meta tensors of static shape inference, where data-dependent checks cannot run."""
    return t.device.type != "meta"


# -- products -------------------------------------------------------------------------------------------------

def cuda_integer(t):
    """An integer (or bool) tensor on a GPU: torch has no CUDA GEMM for it, Paddle's GPU kernels do."""
    return t.is_cuda and not (t.is_floating_point() or t.is_complex())


def on_cpu_and_back(fn, *tensors):
    """``fn`` over CPU copies of ``tensors``, its result moved back to their device (for integer products on the
    GPU, which torch computes only on the CPU; exact, where float64 would round above 2**53)."""
    return fn(*(t.cpu() for t in tensors)).to(tensors[0].device)


def _product_error(op_type, X, Y):
    if not isinstance(X, torch.Tensor) or not isinstance(Y, torch.Tensor):
        return InputTypeError(f"{op_type}: X and Y must be Tensors, got {type(X).__name__} and {type(Y).__name__}")
    if X.device != Y.device:
        return ValueError(f"{op_type}: X is on {X.device} and Y on {Y.device}; both must be on the same place")
    if X.dtype is not Y.dtype:
        return ValueError(f"{op_type}: X ({dtype_name(X)}) and Y ({dtype_name(Y)}) must have the same dtype")
    if X.dtype is torch.bool:
        return KernelDtypeError(f"{op_type}: bool Tensors are not supported")
    return ValueError(f"{op_type}: X{list(X.shape)} and Y{list(Y.shape)} cannot be multiplied (0-d input, "
                      f"inner dimensions or broadcast batch dimensions do not match)")


@op("matmul_v2", inputs=["X", "Y"], outputs=["Out"], attrs={"trans_x": False, "trans_y": False}, spmd="matmul")
def matmul_v2(X, Y, *, trans_x, trans_y):
    try:
        if trans_x and X.dim() > 1:
            X = X.mT
        if trans_y and Y.dim() > 1:
            Y = Y.mT
        return torch.matmul(X, Y)
    except (RuntimeError, TypeError, AttributeError):
        if isinstance(X, torch.Tensor) and isinstance(Y, torch.Tensor) and cuda_integer(X) and X.dtype is Y.dtype \
                and Y.is_cuda and X.dtype is not torch.bool:
            try:
                return on_cpu_and_back(torch.matmul, X, Y)
            except RuntimeError:
                pass
        raise _product_error("matmul_v2", X, Y) from None


@matmul_v2.grad(uses=["X", "Y"], autograd=False)
def matmul_v2_grad(X, Y, Out_grad, *, trans_x, trans_y, needs):
    # The grad op's kernel when it runs on its own: a matrix X (or a batch of rows) times a matrix Y, without
    # recomputing Out; other shapes (vectors, batched Y) take the vjp of the kernel.
    if Out_grad is None or X.dim() < 2 or Y.dim() != 2:
        return None
    x = X.mT if trans_x else X
    y = Y.mT if trans_y else Y
    grads = {}
    if "X" in needs:
        dx = torch.matmul(Out_grad, y.mT)
        grads["X"] = dx.mT if trans_x else dx
    if "Y" in needs:
        dy = torch.matmul(x.reshape(-1, x.shape[-1]).mT, Out_grad.reshape(-1, Out_grad.shape[-1]))
        grads["Y"] = dy.mT if trans_y else dy
    return grads


@op("bmm", inputs=["X", "Y"], outputs=["Out"])
def bmm(X, Y):
    if X.dim() != 3 or Y.dim() != 3:
        raise ValueError(f"bmm: X and Y must be 3-D, got X{list(X.shape)} and Y{list(Y.shape)}")
    if X.shape[0] != Y.shape[0] or X.shape[2] != Y.shape[1]:
        raise ValueError(f"bmm: X{list(X.shape)} and Y{list(Y.shape)} need equal batch sizes and "
                         f"X.shape[2] == Y.shape[1]")
    float_only("bmm", "X", X)
    same_dtype("bmm", X, Y)
    return torch.bmm(X, Y)


@op("mv", inputs=["X", "Vec"], outputs=["Out"])
def mv(X, Vec):
    if X.dim() != 2 or Vec.dim() != 1 or X.shape[1] != Vec.shape[0]:
        raise ValueError(f"mv: X must be 2-D [M, N] and Vec 1-D [N], got X{list(X.shape)} and Vec{list(Vec.shape)}")
    float_only("mv", "X", X)
    same_dtype("mv", X, Vec, ("X", "Vec"))
    return torch.mv(X, Vec)


@op("dot", inputs=["X", "Y"], outputs=["Out"])
def dot(X, Y):
    if X.dim() not in (1, 2) or X.shape != Y.shape:
        raise ShapeRuntimeError(f"dot: X and Y must be 1-D or 2-D with the same shape, got X{list(X.shape)} and "
                                f"Y{list(Y.shape)}")
    if X.dtype is torch.bool:
        raise KernelDtypeError("dot: bool Tensors are not supported")
    same_dtype("dot", X, Y)
    if X.dim() == 1:
        if cuda_integer(X):
            return on_cpu_and_back(torch.dot, X, Y)
        return torch.dot(X, Y)
    return torch.linalg.vecdot(X, Y) if X.is_complex() else (X * Y).sum(-1, dtype=X.dtype)


@op("cross", inputs=["X", "Y"], outputs=["Out"], attrs={"dim": 9})
def cross(X, Y, *, dim):
    if X.shape != Y.shape:
        raise ValueError(f"cross: X{list(X.shape)} and Y{list(Y.shape)} must have the same shape")
    if dim == 9:  # Paddle's kDefaultDim: the first axis of size 3
        dim = next((i for i, n in enumerate(X.shape) if n == 3), None)
        if dim is None:
            raise ValueError(f"cross: X{list(X.shape)} has no axis of size 3")
    else:
        dim = check_axis("cross", dim, X.dim(), IndexError)
        if X.shape[dim] != 3:
            raise ValueError(f"cross: X{list(X.shape)} must have size 3 at axis {dim}")
    if X.dtype is not Y.dtype:
        check_binary_promotion("cross", X.dtype, Y.dtype)
        common = torch.promote_types(X.dtype, Y.dtype)
        X, Y = X.to(common), Y.to(common)
    return torch.linalg.cross(X, Y, dim=dim)


@op("multi_dot", inputs=["X[]"], outputs=["Out"])
def multi_dot(X):
    if len(X) < 2:
        raise ValueError(f"multi_dot: needs at least 2 tensors, got {len(X)}")
    shapes = [list(t.shape) for t in X]
    if X[0].dim() not in (1, 2) or X[-1].dim() not in (1, 2) or any(t.dim() != 2 for t in X[1:-1]):
        raise ValueError(f"multi_dot: the first and last tensors must be 1-D or 2-D and the others 2-D, got {shapes}")
    for a, b in zip(X, X[1:]):
        if a.shape[-1] != b.shape[0]:
            raise ValueError(f"multi_dot: shapes {shapes} cannot be multiplied in a chain")
        same_dtype("multi_dot", a, b, ("X[i]", "X[i+1]"))
    float_only("multi_dot", "X", X[0])
    return torch.linalg.multi_dot(X)


@op("einsum", inputs=["Operands[]"], outputs=["Out"], attrs={"equation": REQUIRED})
def einsum(Operands, *, equation):
    try:
        return torch.einsum(equation, *Operands)
    except RuntimeError as exc:
        if Operands and all(cuda_integer(t) for t in Operands):
            try:
                return on_cpu_and_back(lambda *ts: torch.einsum(equation, *ts), *Operands)
            except RuntimeError:
                pass
        shapes = [list(t.shape) for t in Operands]
        raise ValueError(f"einsum: equation {equation!r} does not fit operands of shapes {shapes}: "
                         f"{str(exc).splitlines()[0]}") from None


# -- norms ----------------------------------------------------------------------------------------------------

@op("p_norm", inputs=["X"], outputs=["Out"],
    attrs={"porder": 2.0, "axis": -1, "epsilon": 1e-12, "keepdim": False, "asvector": False})
def p_norm(X, *, porder, axis, epsilon, keepdim, asvector):
    float_only("p_norm", "X", X)
    if asvector:
        return torch.linalg.vector_norm(X, porder, None, keepdim)
    axis = check_axis("p_norm", axis, X.dim())
    return torch.linalg.vector_norm(X, porder, axis if X.dim() else None, keepdim)


def _norm_axes(op_type, axes, ndim):
    dims = [check_axis(op_type, a, ndim) for a in axes]
    if len(set(dims)) != len(dims):
        raise ValueError(f"{op_type}: axis {list(axes)} repeats a dimension")
    return tuple(dims)


@op("frobenius_norm", inputs=["X"], outputs=["Out"],
    attrs={"dim": [0], "keep_dim": False, "reduce_all": False, "in_dtype": -1, "out_dtype": -1})
def frobenius_norm(X, *, dim, keep_dim, reduce_all, in_dtype, out_dtype):
    if in_dtype != -1 or out_dtype != -1:
        return cast_reduce("frobenius_norm", X, in_dtype, out_dtype, dim=dim, keep_dim=keep_dim,
                           reduce_all=reduce_all)
    float_only("frobenius_norm", "X", X)
    dims = None if reduce_all or not dim else _norm_axes("frobenius_norm", dim, X.dim())
    return torch.linalg.vector_norm(X, 2, dims, keep_dim)


@op("vector_norm", inputs=["X"], outputs=["Out"], attrs={"porder": 2.0, "axis": [], "keepdim": False},
    own="Paddle 3.3.1 composes paddle.linalg.vector_norm from p_norm and reductions")
def vector_norm(X, *, porder, axis, keepdim):
    """Composite in Paddle (abs, pow, reduce_sum, pow): a vector norm over several axes."""
    float_only("vector_norm", "X", X)
    return torch.linalg.vector_norm(X, porder, _norm_axes("vector_norm", axis, X.dim()), keepdim)


_MATRIX_ORDERS = ("nuc", 1, -1, 2, -2, _INF, -_INF)


@op("matrix_norm", inputs=["X"], outputs=["Out"], attrs={"porder": "nuc", "axis": [-2, -1], "keepdim": False},
    own="Paddle 3.3.1 composes paddle.linalg.matrix_norm from svd, p_norm and reductions")
def matrix_norm(X, *, porder, axis, keepdim):
    """Composite in Paddle (svd or abs/reduce ops): nuclear, spectral and induced 1/inf matrix norms."""
    if porder not in _MATRIX_ORDERS or isinstance(porder, bool):
        raise ValueError(f"matrix_norm: p must be one of 'fro', 'nuc', 1, -1, 2, -2, inf, -inf for a matrix norm, "
                         f"got {porder!r}")
    if len(axis) != 2:
        raise ValueError(f"matrix_norm: axis must hold 2 dimensions, got {list(axis)}")
    dims = _norm_axes("matrix_norm", axis, X.dim())
    float_only("matrix_norm", "X", X)
    return torch.linalg.matrix_norm(X, porder, dims, keepdim)


@op("dist", inputs=["X", "Y"], outputs=["Out"], attrs={"p": 2.0})
def dist(X, Y, *, p):
    float_only("dist", "X", X)
    same_dtype("dist", X, Y)
    try:
        diff = X - Y
    except RuntimeError:
        raise ValueError(f"dist: X{list(X.shape)} and Y{list(Y.shape)} cannot broadcast") from None
    # NOTE: not torch.dist, whose backward fails for p=0.
    return torch.linalg.vector_norm(diff, p)


@op("cond", inputs=["X"], outputs=["Out"], attrs={"p": 2.0},
    own="Paddle 3.3.1 composes paddle.linalg.cond from svd or inverse and norms")
def cond(X, *, p):
    """Composite in Paddle: the condition number from singular values, or norm(X) * norm(inv(X))."""
    if p not in ("fro", "nuc", 1, -1, 2, -2, _INF, -_INF) or isinstance(p, bool):
        raise ValueError(f"cond: unsupported p={p!r}; expected one of 'fro', 'nuc', 1, -1, 2, -2, inf, -inf or None")
    if X.dim() < 2:
        raise ValueError(f"cond: X must be a matrix or a batch of matrices, got shape {list(X.shape)}")
    if p in (2, -2):
        float_only("cond", "X", X)
        s = torch.linalg.svdvals(X)
        big, small = s.amax(-1), s.amin(-1)
        return big / small if p == 2 else small / big
    matrix("cond", "X", X)
    float_only("cond", "X", X)
    try:
        inverse = torch.linalg.inv(X)
    except _LinAlgError:
        raise ValueError(f"cond: X{list(X.shape)} is not invertible, so its p={p!r} condition number "
                         f"is undefined") from None
    return torch.linalg.matrix_norm(X, p) * torch.linalg.matrix_norm(inverse, p)


# -- decompositions and inverses ------------------------------------------------------------------------------

@op("cholesky", inputs=["X"], outputs=["Out"], attrs={"upper": False})
def cholesky(X, *, upper):
    matrix("cholesky", "X", X, exc=PaddleAssertionError)
    float_only("cholesky", "X", X)
    try:
        return torch.linalg.cholesky(X, upper=upper)
    except _LinAlgError as exc:
        raise ValueError(f"cholesky: X{list(X.shape)} is not positive definite ({exc})") from None


@op("inverse", inputs=["Input"], outputs=["Output"])
def inverse(Input):
    matrix("inverse", "Input", Input)
    float_only("inverse", "Input", Input)
    try:
        return torch.linalg.inv(Input)
    except _LinAlgError:
        raise ValueError(f"inverse: Input{list(Input.shape)} is not invertible") from None


@op("matrix_power", inputs=["X"], outputs=["Out"], attrs={"n": REQUIRED})
def matrix_power(X, *, n):
    matrix("matrix_power", "X", X)
    float_only("matrix_power", "X", X)
    try:
        return torch.linalg.matrix_power(X, n)
    except _LinAlgError:
        raise ValueError(f"matrix_power: X{list(X.shape)} is not invertible, so n={n} < 0 is undefined") from None


@op("determinant", inputs=["Input"], outputs=["Out"])
def determinant(Input):
    matrix("determinant", "Input", Input)
    float_only("determinant", "Input", Input)
    return torch.linalg.det(Input)


@op("slogdeterminant", inputs=["Input"], outputs=["Out"])
def slogdeterminant(Input):
    """Paddle returns sign and log|det| stacked on a new leading axis: shape [2, *batch]."""
    matrix("slogdeterminant", "Input", Input)
    float_only("slogdeterminant", "Input", Input)
    sign, logabsdet = torch.linalg.slogdet(Input)
    return torch.stack([sign, logabsdet])


@op("svd", inputs=["X"], outputs=["U", "S", "VH"], attrs={"full_matrices": False})
def svd(X, *, full_matrices):
    matrix("svd", "X", X, square=False)
    float_only("svd", "X", X)
    return tuple(torch.linalg.svd(X, full_matrices=full_matrices))


@op("svdvals", inputs=["x"], outputs=["s"])
def svdvals(x):
    X = x
    matrix("svdvals", "X", X, square=False)
    float_only("svdvals", "X", X)
    return torch.linalg.svdvals(X)


@op("qr", inputs=["X"], outputs=["Q", "R"], attrs={"mode": "reduced"})
def qr(X, *, mode):
    if mode not in ("reduced", "complete", "r"):
        raise ValueError(f"qr: mode must be 'reduced', 'complete' or 'r', got {mode!r}")
    matrix("qr", "X", X, square=False)
    float_only("qr", "X", X)
    return tuple(torch.linalg.qr(X, mode=mode))


def _uplo(op_type, UPLO):
    if UPLO not in ("L", "U"):
        raise ValueError(f"{op_type}: UPLO must be 'L' or 'U', got {UPLO!r}")


@op("eigh", inputs=["X"], outputs=["Eigenvalues", "Eigenvectors"], attrs={"UPLO": "L"})
def eigh(X, *, UPLO):
    _uplo("eigh", UPLO)
    matrix("eigh", "X", X)
    float_only("eigh", "X", X)
    return tuple(torch.linalg.eigh(X, UPLO=UPLO))


@op("eigvalsh", inputs=["X"], outputs=["Eigenvalues", "Eigenvectors"], attrs={"UPLO": "L", "is_test": False})
def eigvalsh(X, *, UPLO, is_test):
    _uplo("eigvalsh", UPLO)
    matrix("eigvalsh", "X", X)
    float_only("eigvalsh", "X", X)
    # Paddle's op also outputs the eigenvectors for its backward; torch's autograd needs no such output.
    return torch.linalg.eigvalsh(X, UPLO=UPLO), X.new_empty(0)


@op("eig", inputs=["X"], outputs=["Eigenvalues", "Eigenvectors"])
def eig(X):
    matrix("eig", "X", X)
    float_only("eig", "X", X)
    return tuple(torch.linalg.eig(X))


@op("eigvals", inputs=["X"], outputs=["Out"], differentiable=False)
def eigvals(X):
    matrix("eigvals", "X", X)
    float_only("eigvals", "X", X)
    with torch.no_grad():  # Paddle's eigvals has no gradient
        return torch.linalg.eigvals(X)


@op("lu", inputs=["X"], outputs=["Out", "Pivots", "Infos"], attrs={"pivots": True})
def lu(X, *, pivots):
    pivot = pivots
    matrix("lu", "X", X, square=False)
    if not pivot:
        raise ValueError("lu: LU factorization without pivoting is not implemented on the CPU (pivot=False)")
    float_only("lu", "X", X)
    return tuple(torch.linalg.lu_factor_ex(X, pivot=pivot))


@op("lu_unpack", inputs=["X", "Pivots"], outputs=["Pmat", "L", "U"],
    attrs={"unpack_ludata": True, "unpack_pivots": True})
def lu_unpack(X, Pivots, *, unpack_ludata, unpack_pivots):
    matrix("lu_unpack", "X", X, square=False)
    if Pivots.dtype is not torch.int32:
        raise ValueError(f"lu_unpack: Pivots must be int32, got {dtype_name(Pivots)}")
    if Pivots.dim() < 1 or list(Pivots.shape[:-1]) != list(X.shape[:-2]) or \
            Pivots.shape[-1] != min(X.shape[-2], X.shape[-1]):
        raise ValueError(f"lu_unpack: Pivots{list(Pivots.shape)} must have shape X.shape[:-2] + "
                         f"[min(M, N)] = {list(X.shape[:-2]) + [min(X.shape[-2], X.shape[-1])]} for X{list(X.shape)}")
    float_only("lu_unpack", "X", X)
    P, L, U = torch.lu_unpack(X, Pivots, unpack_ludata, unpack_pivots)
    empty = X.new_empty(0, dtype=torch.float32)  # what Paddle returns for a part it did not unpack
    return (P if unpack_pivots else empty), (L if unpack_ludata else empty), (U if unpack_ludata else empty)


@op("pinv", inputs=["X"], outputs=["Out"], attrs={"rcond": 1e-15, "hermitian": False},
    own="Paddle 3.3.1 composes paddle.linalg.pinv from svd or eigh and matmul")
def pinv(X, *, rcond, hermitian):
    """Composite in Paddle (svd or eigh, then matmul)."""
    matrix("pinv", "X", X, square=hermitian)
    float_only("pinv", "X", X)
    return torch.linalg.pinv(X, rtol=rcond, hermitian=hermitian)


@op("matrix_rank", inputs=["X", "TolTensor?"], outputs=["Out"],
    attrs={"tol": 0.0, "use_default_tol": True, "hermitian": False}, differentiable=False)
def matrix_rank(X, TolTensor, *, tol, use_default_tol, hermitian):
    matrix("matrix_rank", "X", X, square=hermitian)
    float_only("matrix_rank", "X", X)
    if TolTensor is not None:
        return torch.linalg.matrix_rank(X, atol=TolTensor, rtol=0.0, hermitian=hermitian)
    if use_default_tol:
        return torch.linalg.matrix_rank(X, hermitian=hermitian)
    return torch.linalg.matrix_rank(X, atol=tol, rtol=0.0, hermitian=hermitian)


@op("matrix_rank_atol_rtol", inputs=["x", "atol", "rtol?"], outputs=["out"], attrs={"hermitian": False},
    differentiable=False)
def matrix_rank_atol_rtol(x, atol, rtol, *, hermitian):
    X, Atol, Rtol = x, atol, rtol
    matrix("matrix_rank", "X", X, square=hermitian)
    float_only("matrix_rank", "X", X)
    return torch.linalg.matrix_rank(X, atol=Atol, rtol=Rtol, hermitian=hermitian)


# -- solvers --------------------------------------------------------------------------------------------------

# NOTE: paddle.linalg.solve(left=False) transposes X and Y (and the result) around this op, as Paddle does.
@op("solve", inputs=["X", "Y"], outputs=["Out"])
def solve(X, Y):
    matrix("solve", "X", X)
    vector_rhs = Y.dim() == 1 or (Y.dim() == X.dim() - 1 and Y.shape == X.shape[:-1])
    rows = Y.shape[-1] if vector_rhs else Y.shape[-2]
    if Y.dim() == 0 or rows != X.shape[-1]:
        raise ValueError(f"solve: X{list(X.shape)} and Y{list(Y.shape)} do not fit: X's size "
                         f"{X.shape[-1]} must equal Y's rows")
    float_only("solve", "X", X)
    same_dtype("solve", X, Y)
    try:
        return torch.linalg.solve(X, Y)
    except _LinAlgError:
        raise ValueError(f"solve: X{list(X.shape)} is not invertible") from None
    except RuntimeError:
        raise ValueError(f"solve: the batch dimensions of X{list(X.shape)} and Y{list(Y.shape)} "
                         f"cannot broadcast") from None


@op("triangular_solve", inputs=["X", "Y"], outputs=["Out"],
    attrs={"upper": True, "transpose": False, "unitriangular": False})
def triangular_solve(X, Y, *, upper, transpose, unitriangular):
    matrix("triangular_solve", "X", X)
    matrix("triangular_solve", "Y", Y, square=False)
    if X.shape[-1] != Y.shape[-2]:
        raise ValueError(f"triangular_solve: X{list(X.shape)} and Y{list(Y.shape)} do not fit: "
                         f"X.shape[-1] must equal Y.shape[-2]")
    float_only("triangular_solve", "X", X)
    same_dtype("triangular_solve", X, Y)
    if transpose:
        X, upper = X.mT, not upper
    try:
        return torch.linalg.solve_triangular(X, Y, upper=upper, unitriangular=unitriangular)
    except RuntimeError:
        raise ValueError(f"triangular_solve: the batch dimensions of X{list(X.shape)} and Y{list(Y.shape)} "
                         f"cannot broadcast") from None


@op("cholesky_solve", inputs=["X", "Y"], outputs=["Out"], attrs={"upper": False})
def cholesky_solve(X, Y, *, upper):
    """X is the right-hand side B, Y the Cholesky factor of A; solves A @ Out = B."""
    matrix("cholesky_solve", "Y", Y)
    matrix("cholesky_solve", "X", X, square=False)
    if X.shape[-2] != Y.shape[-1]:
        raise ValueError(f"cholesky_solve: X{list(X.shape)} must have as many rows as the factor "
                         f"Y{list(Y.shape)}")
    float_only("cholesky_solve", "X", X)
    same_dtype("cholesky_solve", X, Y)
    try:
        return torch.cholesky_solve(X, Y, upper=upper)
    except RuntimeError:
        raise ValueError(f"cholesky_solve: the batch dimensions of X{list(X.shape)} and Y{list(Y.shape)} "
                         f"cannot broadcast") from None


@op("lstsq", inputs=["X", "Y"], outputs=["Solution", "Residuals?", "Rank", "SingularValues"],
    attrs={"rcond": 0.0, "driver": "gels"}, differentiable=False)
def lstsq(X, Y, *, rcond, driver):
    matrix("lstsq", "X", X, square=False)
    matrix("lstsq", "Y", Y, square=False)
    if X.shape[-2] != Y.shape[-2]:
        raise ValueError(f"lstsq: X{list(X.shape)} and Y{list(Y.shape)} must have the same number of rows")
    float_only("lstsq", "X", X)
    same_dtype("lstsq", X, Y)
    with torch.no_grad():  # Paddle's lstsq has no gradient
        solution, residuals, rank, singular_values = torch.linalg.lstsq(X, Y, rcond=rcond, driver=driver)
    if driver == "gels":
        return solution, residuals, rank, X.new_empty(0)
    if driver == "gelsy":
        singular_values = X.new_empty(0)
    # NOTE: Paddle's rank is int32 for the rank-revealing drivers.
    return solution, residuals, rank.to(torch.int32), singular_values


# -- statistics -----------------------------------------------------------------------------------------------

def _check_weights(name, w, n):
    if w.dim() > 1:
        raise ValueError(f"cov: {name} must be 0-D or 1-D, got shape {list(w.shape)}")
    if w.numel() != n:
        raise ValueError(f"cov: {name} must hold one weight per observation ({n}), got {w.numel()}")
    if _concrete(w) and w.numel() and bool((w < 0).any()):
        raise ValueError(f"cov: {name} cannot be negative")


def _covariance(X, Fweights, Aweights, rowvar, ddof):
    if X.dim() not in (1, 2):
        raise ValueError(f"cov: X must be 1-D or 2-D, got shape {list(X.shape)}")
    if not X.is_floating_point():
        raise KernelDtypeError(f"cov: X of dtype {dtype_name(X)} is not supported; use float32 or float64")
    x = X.reshape(1, -1) if X.dim() == 1 else X
    if not rowvar and x.shape[0] != 1:
        x = x.t()
    n = x.shape[1]
    w = None
    if Fweights is not None:
        _check_weights("fweights", Fweights, n)
        if _concrete(Fweights) and not bool((Fweights == Fweights.round()).all()):
            raise ValueError("cov: fweights must hold integers")
        w = Fweights.to(x.dtype).reshape(-1)
    if Aweights is not None:
        _check_weights("aweights", Aweights, n)
        a = Aweights.to(x.dtype).reshape(-1)
        w = a if w is None else w * a
    if w is None:
        avg = x.mean(1, keepdim=True)
        factor = torch.clamp(torch.tensor(n - int(ddof), dtype=x.dtype), min=0)
        centered = x - avg
        out = centered @ centered.mT.conj()
    else:
        w_sum = w.sum()
        if _concrete(w_sum) and float(w_sum.detach()) == 0:
            raise ValueError("cov: the weights sum to zero, the covariance cannot be normalised")
        avg = (x * w).sum(1, keepdim=True) / w_sum
        if Aweights is not None and ddof:
            factor = w_sum - (w * Aweights.to(x.dtype).reshape(-1)).sum() / w_sum
        else:
            factor = w_sum - int(ddof)
        factor = torch.clamp(factor, min=0)
        centered = x - avg
        out = centered @ (centered * w).mT.conj()
    return (out / factor).squeeze()


@op("cov", inputs=["X", "Fweights?", "Aweights?"], outputs=["Out"], attrs={"rowvar": True, "ddof": True},
    own="Paddle 3.3.1 composes paddle.linalg.cov from mean, matmul and elementwise ops")
def cov(X, Fweights, Aweights, *, rowvar, ddof):
    """Composite in Paddle: NumPy's covariance with optional frequency and analytic weights."""
    return _covariance(X, Fweights, Aweights, rowvar, ddof)


@op("corrcoef", inputs=["X"], outputs=["Out"], attrs={"rowvar": True},
    own="Paddle 3.3.1 composes paddle.linalg.corrcoef from cov")
def corrcoef(X, *, rowvar):
    """Composite in Paddle: Pearson correlation coefficients, clipped to [-1, 1]."""
    c = _covariance(X, None, None, rowvar, True)
    if c.dim() == 0:
        return c / c
    std = torch.sqrt(torch.diagonal(c).real if c.is_complex() else torch.diagonal(c))
    c = c / std[:, None] / std[None, :]
    return c.clamp(-1, 1)
