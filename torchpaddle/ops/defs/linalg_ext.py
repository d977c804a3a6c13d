"""More linear algebra ops: LU solve, matrix exponential, Householder products, randomized low-rank SVD and the
fp8 GEMM.

``lu_solve`` and ``fp8_fp8_half_gemm_fused`` are Paddle op types; the others are composites of Paddle's Python
layer, each one op here. Where Paddle's composite differs from the textbook operation (cholesky_inverse uses
the whole factor, ormqr multiplies by the thin Q with a plain transpose) the op follows Paddle.
"""
import torch

from ...framework.dtype import check_binary_promotion
from ...framework.tensor import PaddleAssertionError
from .linalg import KernelDtypeError, dtype_name, float_only, matrix
from ..registry import REQUIRED, op

_LinAlgError = torch.linalg.LinAlgError
_FLOATS = (torch.float32, torch.float64)


def _assert(ok, message):
    if not ok:
        raise PaddleAssertionError(message)


@op("lu_solve", inputs=["b", "lu", "pivots"], outputs=["out"], attrs={"trans": REQUIRED})
def lu_solve(b, lu, pivots, *, trans):
    """Solves A @ out = b (trans 'N') or A^T @ out = b (any other trans) from lu()'s factor and pivots."""
    matrix("lu_solve", "lu", lu)
    if b.dim() < 2 or pivots.dim() < 1:
        raise ValueError(f"lu_solve: b must be at least 2-D and pivots at least 1-D, got b{list(b.shape)} and "
                         f"pivots{list(pivots.shape)}")
    if b.shape[-2] != lu.shape[-2] or pivots.shape[-1] != lu.shape[-1]:
        raise ValueError(f"lu_solve: b{list(b.shape)} and pivots{list(pivots.shape)} do not fit "
                         f"lu{list(lu.shape)}")
    float_only("lu_solve", "lu", lu)
    if b.dtype is not lu.dtype:
        raise ValueError(f"lu_solve: b ({dtype_name(b)}) and lu ({dtype_name(lu)}) must have the same dtype")
    if pivots.dtype is not torch.int32:
        raise ValueError(f"lu_solve: pivots must be int32, got {dtype_name(pivots)}")
    rows = lu.shape[-1]
    if pivots.device.type != "meta" and pivots.numel() and not bool(((pivots >= 1) & (pivots <= rows)).all()):
        raise ValueError(f"lu_solve: pivots must be row numbers in [1, {rows}] as lu() returns them")
    try:
        batch = torch.broadcast_shapes(b.shape[:-2], lu.shape[:-2], pivots.shape[:-1])
    except RuntimeError:
        raise ValueError(f"lu_solve: the batch dimensions of b{list(b.shape)}, lu{list(lu.shape)} and "
                         f"pivots{list(pivots.shape)} cannot broadcast") from None
    b = b.expand(*batch, *b.shape[-2:])
    lu = lu.expand(*batch, *lu.shape[-2:])
    pivots = pivots.expand(*batch, pivots.shape[-1])
    if trans == "N":
        return torch.linalg.lu_solve(lu, pivots, b)
    # NOTE: Paddle reads every trans but "N" as a plain transpose, for complex inputs too.
    return torch.linalg.lu_solve(lu, pivots, b.conj(), adjoint=True).conj()


@op("matrix_exp", inputs=["X"], outputs=["Out"],
    own="Paddle 3.3.1 composes paddle.linalg.matrix_exp from matmul, solve and elementwise ops")
def matrix_exp(X):
    """Composite in Paddle (Pade approximants with scaling and squaring); a 0-D input is a 1 x 1 matrix."""
    if X.dtype not in _FLOATS:
        raise ValueError(f"matrix_exp: The input tensor's dtype must be float32 or float64, but got "
                         f"{dtype_name(X)}")
    if X.dim() == 0:
        return X.exp()
    matrix("matrix_exp", "X", X)
    return torch.linalg.matrix_exp(X)


def _householder_checks(op_type, x, tau):
    for name, t in (("x", x), ("tau", tau)):
        if not (t.is_floating_point() or t.is_complex()):
            raise KernelDtypeError(f"{op_type}: {name} of dtype {dtype_name(t)} is not supported; use a float or "
                                   f"complex tensor")
    _assert(x.dtype is tau.dtype, f"{op_type}: x ({dtype_name(x)}) and tau ({dtype_name(tau)}) must have the same "
                                  f"dtype")
    _assert(x.dim() >= 2 and tau.dim() >= 1 and x.dim() == tau.dim() + 1,
            f"{op_type}: x must be at least 2-D and have one dimension more than tau, got x{list(x.shape)} and "
            f"tau{list(tau.shape)}")
    _assert(x.shape[-2] >= x.shape[-1], f"{op_type}: the rows of x must be greater than or equal to its columns, "
                                        f"got x{list(x.shape)}")
    _assert(x.shape[-1] >= tau.shape[-1], f"{op_type}: tau{list(tau.shape)} must not be longer than x's last "
                                          f"dimension, got x{list(x.shape)}")
    _assert(x.shape[:-2] == tau.shape[:-1], f"{op_type}: x{list(x.shape)} and tau{list(tau.shape)} must have the "
                                            f"same batch dimensions")


@op("householder_product", inputs=["x", "tau"], outputs=["out"],
    own="Paddle 3.3.1 composes paddle.linalg.householder_product from matmul and set_value in Python loops")
def householder_product(x, tau):
    """The first n columns of H_1 ... H_k, H_i = I - tau_i v_i v_i^H, v_i read from below x's diagonal."""
    _householder_checks("householder_product", x, tau)
    return torch.linalg.householder_product(x, tau)


@op("ormqr", inputs=["x", "tau", "y"], outputs=["out"], attrs={"left": True, "transpose": False},
    own="Paddle 3.3.1 composes paddle.linalg.ormqr from householder_product and matmul")
def ormqr(x, tau, y, *, left, transpose):
    """Q @ y or y @ Q (Q^T with transpose), Q = householder_product(x, tau) of x's shape, as Paddle computes it."""
    if not (y.is_floating_point() or y.is_complex()):
        raise KernelDtypeError(f"ormqr: y of dtype {dtype_name(y)} is not supported; use a float or complex tensor")
    _assert(x.dtype is tau.dtype and x.dtype is y.dtype,
            f"ormqr: tau and y must have the same dtype as x, got x {dtype_name(x)}, tau {dtype_name(tau)} and "
            f"y {dtype_name(y)}")
    _assert(x.dim() >= 2 and tau.dim() >= 1 and x.dim() == tau.dim() + 1 and y.dim() == x.dim(),
            f"ormqr: x and y must have the same rank (at least 2) and tau one less, got x{list(x.shape)}, "
            f"tau{list(tau.shape)} and y{list(y.shape)}")
    _assert(x.shape[-1] == tau.shape[-1], f"ormqr: the innermost dimension of x{list(x.shape)} and "
                                          f"tau{list(tau.shape)} should be the same")
    # NOTE: Paddle compares y with x's rows when transposing and its columns otherwise.
    _assert((x.shape[-2] if transpose else x.shape[-1]) == (y.shape[-2] if left else y.shape[-1]),
            f"ormqr: x{list(x.shape)} and y{list(y.shape)} do not fit (left={left}, transpose={transpose})")
    _assert(x.shape[:-2] == y.shape[:-2], f"ormqr: x{list(x.shape)} and y{list(y.shape)} must have the same batch")
    _householder_checks("ormqr", x, tau)
    q = torch.linalg.householder_product(x, tau)
    if transpose:
        q = q.mT
    try:
        return q @ y if left else y @ q
    except RuntimeError:
        raise ValueError(f"ormqr: Q{list(q.shape)} and y{list(y.shape)} cannot be multiplied "
                         f"(left={left})") from None


@op("cholesky_inverse", inputs=["X"], outputs=["Out"], attrs={"upper": False},
    own="Paddle 3.3.1 composes paddle.linalg.cholesky_inverse from matmul and inverse")
def cholesky_inverse(X, *, upper):
    """inv(X @ X^T) (inv(X^T @ X) if upper): Paddle multiplies the whole X, not only its triangle."""
    if X.dim() != 2:
        raise ValueError(f"cholesky_inverse: The input tensor must be 2-dimensional, got shape {list(X.shape)}")
    if X.shape[0] != X.shape[1]:
        raise ValueError(f"cholesky_inverse: The input tensor must be square matrix, got shape {list(X.shape)}")
    float_only("cholesky_inverse", "X", X)
    product = X.mT @ X if upper else X @ X.mT
    try:
        return torch.linalg.inv(product)
    except _LinAlgError:
        raise ValueError(f"cholesky_inverse: X{list(X.shape)} is singular") from None


@op("vecdot", inputs=["X", "Y"], outputs=["Out"], attrs={"axis": -1},
    own="Paddle 3.3.1 composes paddle.linalg.vecdot from conj, multiply and sum")
def vecdot(X, Y, *, axis):
    """Composite in Paddle: sum(conj(X) * Y, axis) with broadcasting."""
    if X.dtype is not Y.dtype:
        check_binary_promotion("vecdot", X.dtype, Y.dtype)
        common = torch.promote_types(X.dtype, Y.dtype)
        X, Y = X.to(common), Y.to(common)
    try:
        product = X.conj() * Y
    except RuntimeError:
        raise ValueError(f"vecdot: X{list(X.shape)} and Y{list(Y.shape)} cannot broadcast") from None
    rank = max(product.dim(), 1)
    if not -rank <= axis < rank:
        raise ValueError(f"vecdot: axis={axis} is out of range for the broadcast shape {list(product.shape)}")
    return product.sum(axis) if product.dim() else product


@op("svd_lowrank", inputs=["X", "M?"], outputs=["U", "S", "V"], attrs={"q": 6, "niter": 2},
    own="Paddle 3.3.1 composes paddle.linalg.svd_lowrank from gaussian_random, qr, matmul and svd")
def svd_lowrank(X, M, *, q, niter):
    """Composite in Paddle: a randomized SVD of X - M with q singular values; returns V, not V^H."""
    matrix("svd_lowrank", "X", X, square=False)
    float_only("svd_lowrank", "X", X)
    if M is not None:
        try:
            M = M.to(X.dtype).broadcast_to(X.shape)
        except RuntimeError:
            raise ValueError(f"svd_lowrank: M{list(M.shape)} cannot broadcast to x{list(X.shape)}") from None
    return tuple(torch.svd_lowrank(X, q=q, niter=niter, M=M))


_FP8 = (torch.float8_e4m3fn, torch.float8_e5m2)
_ACTIVATIONS = {"identity": lambda t: t, "relu": torch.relu, "gelu": torch.nn.functional.gelu}
_HALF = {"float16": torch.float16, "bfloat16": torch.bfloat16}


@op("fp8_fp8_half_gemm_fused", inputs=["x", "y", "bias?"], outputs=["out"],
    attrs={"transpose_x": False, "transpose_y": False, "scale": 1.0, "output_dtype": "float16",
           "activation_type": "identity"}, differentiable=False)
def fp8_fp8_half_gemm_fused(x, y, bias, *, transpose_x, transpose_y, scale, output_dtype, activation_type):
    """act(scale * op(x) @ op(y) + bias) in float16/bfloat16 from float8 operands, accumulated in float32.
    Paddle has this kernel on GPUs only; here it runs anywhere."""
    for name, t in (("x", x), ("y", y)):
        if t.dtype not in _FP8:
            raise KernelDtypeError(f"fp8_fp8_half_gemm_fused: {name} must be float8_e4m3fn or float8_e5m2, "
                                   f"got {dtype_name(t)}")
    if output_dtype not in _HALF:
        raise ValueError(f"fp8_fp8_half_gemm_fused: The output_dtype must be float16 or bfloat16, "
                         f"got {output_dtype!r}")
    if activation_type not in _ACTIVATIONS:
        raise ValueError(f"fp8_fp8_half_gemm_fused: activation_type must be one of {sorted(_ACTIVATIONS)}, "
                         f"got {activation_type!r}")
    if x.dim() < 2 or y.dim() < 2:
        raise ValueError(f"fp8_fp8_half_gemm_fused: x and y must be at least 2-D, got x{list(x.shape)} and "
                         f"y{list(y.shape)}")
    a, b = x.float(), y.float()
    a, b = (a.mT if transpose_x else a), (b.mT if transpose_y else b)
    if a.shape[-1] != b.shape[-2]:
        raise ValueError(f"fp8_fp8_half_gemm_fused: x{list(x.shape)} and y{list(y.shape)} cannot be multiplied "
                         f"(transpose_x={transpose_x}, transpose_y={transpose_y})")
    out = torch.matmul(a, b) * scale
    if bias is not None:
        out = out + bias.float()
    return _ACTIVATIONS[activation_type](out).to(_HALF[output_dtype])
