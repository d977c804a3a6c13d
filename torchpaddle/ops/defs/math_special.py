"""Special functions (Bessel i0/i1, polygamma, incomplete gamma, gammaln) and the small binary math ops Paddle 3.x
added beside them (copysign, nextafter, angle, bincount, renorm, baddbmm, reduce_as), plus the torch-style math
Paddle composes in Python (ldexp, frexp, logaddexp, sinc, signbit, isin, cdist, trapezoid...), one op each."""
import math

import torch

from ...framework.tensor import PaddleAssertionError
from ..registry import REQUIRED, op
from .math_unary import broadcast_error, dtype_error, float_input, same_dtype

_COMPOSED = "Paddle 3.3.1 composes paddle.{} from other ops"


def _float_only(op_type, X, slot="x"):
    """Paddle's special-function kernels exist for float32/float64 only (integers are not promoted)."""
    if not X.is_floating_point():
        raise dtype_error(op_type, slot, X.dtype, "float32 and float64")
    return X


def _broadcast(op_type, fn, X, Y):
    try:
        return fn(X, Y)
    except RuntimeError as exc:
        if "must match" in str(exc) or "broadcast" in str(exc):
            raise broadcast_error(op_type, X, Y) from None
        raise


# -- unary special functions -------------------------------------------------------------------------------
for _type, _fn in [("i0", torch.special.i0), ("i0e", torch.special.i0e), ("i1", torch.special.i1),
                   ("i1e", torch.special.i1e)]:
    def _kernel(x, _fn=_fn, _type=_type):
        return _fn(float_input(_type, x, complex_ok=False))
    _kernel.__name__ = _type
    op(_type, inputs=["x"], outputs=["out"], spmd="elementwise")(_kernel)


@op("gammaln", inputs=["x"], outputs=["out"], spmd="elementwise")
def gammaln(x):
    return torch.special.gammaln(_float_only("gammaln", x))


@op("polygamma", inputs=["x"], outputs=["out"], attrs={"n": REQUIRED}, spmd="elementwise")
def polygamma(x, *, n):
    if n < 0:
        raise ValueError(f"polygamma: n must be a non-negative integer, got {n}")
    return torch.special.polygamma(n, float_input("polygamma", x, complex_ok=False))


def _incomplete_gamma(op_type, fn, x, y):
    for slot, t in (("x", x), ("y", y)):
        # NOTE: Paddle checks the values before the dtypes
        if t.device.type != "meta" and t.numel() and bool((t < 0).any()):
            raise ValueError(f"{op_type}: every value of {slot} must be >= 0")
    same_dtype(op_type, _float_only(op_type, x), y, ("x", "y"))
    return _broadcast(op_type, fn, x, y)


@op("gammaincc", inputs=["x", "y"], outputs=["out"], spmd="elementwise")
def gammaincc(x, y):
    return _incomplete_gamma("gammaincc", torch.special.gammaincc, x, y)


@op("gammainc", inputs=["x", "y"], outputs=["out"], spmd="elementwise", own=_COMPOSED.format("gammainc"))
def gammainc(x, y):
    return _incomplete_gamma("gammainc", torch.special.gammainc, x, y)


@op("multigammaln", inputs=["x"], outputs=["out"], attrs={"p": 1}, spmd="elementwise",
    own=_COMPOSED.format("multigammaln"))
def multigammaln(x, *, p):
    if p < 1:
        raise PaddleAssertionError(f"multigammaln: p must be a positive integer, got {p}")
    return torch.special.multigammaln(_float_only("multigammaln", x), p)


@op("sinc", inputs=["x"], outputs=["out"], spmd="elementwise", own=_COMPOSED.format("sinc"))
def sinc(x):
    return torch.sinc(_float_only("sinc", x))


@op("angle", spmd="elementwise")
def angle(X):
    if not X.is_floating_point() and not X.is_complex():
        raise dtype_error("angle", "X", X.dtype, "float and complex")
    return torch.angle(X)


@op("signbit", inputs=["x"], outputs=["out"], spmd="elementwise", differentiable=False,
    own=_COMPOSED.format("signbit"))
def signbit(x):
    if x.dtype is torch.bool or x.is_complex():
        raise dtype_error("signbit", "x", x.dtype, "float and integer")
    return torch.signbit(x)


@op("frexp", inputs=["x"], outputs=["mantissa", "exponent"], spmd="elementwise", own=_COMPOSED.format("frexp"))
def frexp(x):
    mantissa, exponent = torch.frexp(_float_only("frexp", x))
    # NOTE: Paddle returns the exponent in x's float dtype, attached to x's graph (with a zero gradient)
    return mantissa, torch.where(torch.zeros_like(x, dtype=torch.bool), x, exponent.to(x.dtype))


# -- binary ------------------------------------------------------------------------------------------------
@op("copysign", inputs=["x", "y"], outputs=["out"], spmd="elementwise")
def copysign(x, y):
    same_dtype("copysign", x, y, ("x", "y"))
    if x.is_complex():
        raise dtype_error("copysign", "x", x.dtype, "float, integer and bool")
    out = _broadcast("copysign", torch.copysign, x, y)
    # NOTE: torch promotes integers to float; Paddle keeps x's dtype
    return out if out.dtype is x.dtype else out.to(x.dtype)


@op("nextafter", inputs=["x", "y"], outputs=["out"], spmd="elementwise", differentiable=False)
def nextafter(x, y):
    same_dtype("nextafter", _float_only("nextafter", x), y, ("x", "y"))
    return _broadcast("nextafter", torch.nextafter, x, y)


@op("ldexp", inputs=["x", "y"], outputs=["out"], spmd="elementwise", own=_COMPOSED.format("ldexp"))
def ldexp(x, y):
    for slot, t in (("x", x), ("y", y)):
        if t.is_complex() or t.dtype is torch.bool:
            raise dtype_error("ldexp", slot, t.dtype, "float and integer")
    if not x.is_floating_point():
        x = x.to(torch.float32)
    # NOTE: a float exponent is allowed (Paddle computes x * 2 ** y)
    return _broadcast("ldexp", lambda a, b: a * torch.pow(2.0, b.to(a.dtype)), x, y)


@op("logaddexp", inputs=["x", "y"], outputs=["out"], spmd="elementwise", own=_COMPOSED.format("logaddexp"))
def logaddexp(x, y):
    x, y = float_input("logaddexp", x, False), float_input("logaddexp", y, False)
    same_dtype("logaddexp", x, y, ("x", "y"))
    return _broadcast("logaddexp", torch.logaddexp, x, y)


@op("isin", inputs=["x", "test_x"], outputs=["out"], attrs={"assume_unique": False, "invert": False},
    differentiable=False, own=_COMPOSED.format("isin"))
def isin(x, test_x, *, assume_unique, invert):
    for slot, t in (("x", x), ("test_x", test_x)):
        if t.dtype is torch.bool or t.is_complex():
            raise dtype_error("isin", slot, t.dtype, "float and integer")
    if x.is_floating_point() != test_x.is_floating_point():
        raise TypeError(f"isin: x ({x.dtype}) and test_x ({test_x.dtype}) must both be float or both integer")
    return torch.isin(x, test_x, assume_unique=assume_unique, invert=invert)


@op("cdist", inputs=["x", "y"], outputs=["out"], attrs={"p": 2.0, "compute_mode": 0},
    own=_COMPOSED.format("cdist"))
def cdist(x, y, *, p, compute_mode):
    _float_only("cdist", x)
    same_dtype("cdist", x, y, ("x", "y"))
    if x.dim() < 2 or y.dim() < 2:
        raise ValueError(f"cdist: x and y must be at least 2-D, got x{list(x.shape)} and y{list(y.shape)}")
    if x.shape[-1] != y.shape[-1]:
        raise PaddleAssertionError(f"cdist: x and y must have the same last dimension, got x{list(x.shape)} and "
                         f"y{list(y.shape)}")
    if p < 0:
        raise ValueError(f"cdist: p must be non-negative, got {p}")
    return torch.cdist(x, y, p=p, compute_mode=("use_mm_for_euclid_dist_if_necessary", "use_mm_for_euclid_dist",
                                                 "donot_use_mm_for_euclid_dist")[compute_mode])


@op("bincount", inputs=["X", "Weights?"], attrs={"minlength": 0}, differentiable=False)
def bincount(X, Weights, *, minlength):
    if X.dim() != 1:
        raise ValueError(f"bincount: X must be 1-D, got shape {list(X.shape)}")
    if X.is_floating_point() or X.is_complex() or X.dtype is torch.bool:
        raise TypeError(f"bincount: X must be an integer tensor, got {X.dtype}")
    if minlength < 0:
        raise ValueError(f"bincount: minlength must be non-negative, got {minlength}")
    if X.numel() and int(X.min()) < 0:
        raise ValueError("bincount: X must hold non-negative values")
    if Weights is not None and Weights.shape != X.shape:
        raise ValueError(f"bincount: Weights{list(Weights.shape)} must have X's shape {list(X.shape)}")
    out = torch.bincount(X, weights=Weights, minlength=minlength)
    if Weights is None:
        return out   # int64 counts, whatever X's integer dtype
    # NOTE: Paddle keeps float weights' dtype and sums integer weights in float64
    return out.to(Weights.dtype if Weights.is_floating_point() else torch.float64)


@op("renorm", attrs={"p": REQUIRED, "axis": REQUIRED, "max_norm": REQUIRED})
def renorm(X, *, p, axis, max_norm):
    _float_only("renorm", X, "X")
    if not -X.dim() <= axis < X.dim():
        raise ValueError(f"renorm: axis must be in [{-X.dim()}, {X.dim()}), got {axis}")
    return torch.renorm(X, p, axis % X.dim(), max_norm)


@op("baddbmm", inputs=["Input", "X", "Y"], attrs={"Alpha": 1.0, "Beta": 1.0})
def baddbmm(Input, X, Y, *, Alpha, Beta):
    if X.dim() != 3 or Y.dim() != 3:
        raise ValueError(f"baddbmm: X and Y must be 3-D, got X{list(X.shape)} and Y{list(Y.shape)}")
    if X.shape[0] != Y.shape[0] or X.shape[2] != Y.shape[1]:
        raise ValueError(f"baddbmm: X{list(X.shape)} and Y{list(Y.shape)} cannot be batch-multiplied")
    _float_only("baddbmm", X, "X")
    same_dtype("baddbmm", Input, X, ("Input", "X"))
    same_dtype("baddbmm", X, Y)
    try:
        return torch.baddbmm(Input, X, Y, beta=Beta, alpha=Alpha)
    except RuntimeError as exc:
        raise ValueError(f"baddbmm: Input{list(Input.shape)} cannot broadcast to "
                         f"[{X.shape[0]}, {X.shape[1]}, {Y.shape[2]}] ({exc})") from None


@op("reduce_as", inputs=["x", "target"], outputs=["out"])
def reduce_as(x, target):
    if target.dim() > x.dim() or any(t not in (1, s) for s, t in zip(reversed(x.shape), reversed(target.shape))):
        raise ValueError(f"reduce_as: target{list(target.shape)} is not a shape x{list(x.shape)} broadcasts from")
    lead = x.dim() - target.dim()
    dims = list(range(lead)) + [lead + i for i, t in enumerate(target.shape) if t == 1 and x.shape[lead + i] != 1]
    # NOTE: Paddle sums integers in int64
    out = x.sum(dim=dims, dtype=x.dtype if x.is_floating_point() or x.is_complex() else torch.int64) if dims else x
    return out.reshape(target.shape)


# -- integration, construction, binning -----------------------------------------------------------------------
def _trapezoid_args(op_type, y, x, dx, axis):
    _float_only(op_type, y, "y")
    if not -y.dim() <= axis < max(y.dim(), 1):
        raise ValueError(f"{op_type}: axis must be in [{-y.dim()}, {y.dim()}), got {axis}")
    if x is not None:
        same_dtype(op_type, y, x, ("y", "x"))
        if x.dim() != 1 and x.shape != y.shape:
            raise ValueError(f"{op_type}: x{list(x.shape)} must be 1-D or have y's shape {list(y.shape)}")
        if x.dim() == 1 and x.shape[0] != y.shape[axis]:
            raise ValueError(f"{op_type}: x has {x.shape[0]} points but y has {y.shape[axis]} along axis {axis}")
    return {"x": x} if x is not None else {"dx": 1.0 if dx is None else dx}


@op("trapezoid", inputs=["y", "x?"], outputs=["out"], attrs={"dx": None, "axis": -1}, own=_COMPOSED.format("trapezoid"))
def trapezoid(y, x, *, dx, axis):
    return torch.trapezoid(y, dim=axis, **_trapezoid_args("trapezoid", y, x, dx, axis))


@op("cumulative_trapezoid", inputs=["y", "x?"], outputs=["out"], attrs={"dx": None, "axis": -1},
    own=_COMPOSED.format("cumulative_trapezoid"))
def cumulative_trapezoid(y, x, *, dx, axis):
    return torch.cumulative_trapezoid(y, dim=axis, **_trapezoid_args("cumulative_trapezoid", y, x, dx, axis))


@op("vander", inputs=["x"], outputs=["out"], attrs={"n": None, "increasing": False}, own=_COMPOSED.format("vander"))
def vander(x, *, n, increasing):
    if x.dim() != 1:
        raise ValueError(f"vander: x must be 1-D, got shape {list(x.shape)}")
    if n is not None and n < 0:
        raise ValueError(f"vander: n must be non-negative, got {n}")
    if x.dtype is torch.bool:
        raise dtype_error("vander", "x", x.dtype, "float, integer and complex")
    n = x.shape[0] if n is None else n
    # a running product rather than torch.vander, whose backward trips over its own in-place writes
    columns = torch.cat([torch.ones_like(x).unsqueeze(-1), x.unsqueeze(-1).expand(-1, max(n - 1, 0))], -1)[:, :n]
    out = (torch.cumprod(columns, -1) if n else columns).to(x.dtype)
    return out if increasing else out.flip(-1)


@op("block_diag", inputs=["inputs[]"], outputs=["out"], own=_COMPOSED.format("block_diag"))
def block_diag(inputs):
    for i, t in enumerate(inputs):
        if t.dim() > 2:
            raise ValueError(f"block_diag: inputs[{i}] must be at most 2-D, got shape {list(t.shape)}")
    return torch.block_diag(*inputs)


@op("cartesian_prod", inputs=["x[]"], outputs=["out"], own=_COMPOSED.format("cartesian_prod"))
def cartesian_prod(x):
    for i, t in enumerate(x):
        if t.dim() != 1:
            raise ValueError(f"cartesian_prod: x[{i}] must be 1-D, got shape {list(t.shape)}")
        same_dtype("cartesian_prod", x[0], t, ("x[0]", f"x[{i}]"))
    return torch.cartesian_prod(*x)


@op("combinations", inputs=["x"], outputs=["out"], attrs={"r": 2, "with_replacement": False},
    own=_COMPOSED.format("combinations"))
def combinations(x, *, r, with_replacement):
    if x.dim() != 1:
        raise TypeError(f"combinations: x must be 1-D, got shape {list(x.shape)}")
    if r < 0:
        raise ValueError(f"combinations: r must be non-negative, got {r}")
    if x.device.type == "meta":   # static shape inference: the count follows from x's length
        n = x.shape[0]
        count = math.comb(n + r - 1, r) if with_replacement else math.comb(n, r)
        return torch.empty((count, r) if r else (0,), dtype=x.dtype, device="meta")
    return torch.combinations(x, r=r, with_replacement=with_replacement)


def _bin_range(op_type, x, bins, lo, hi):
    if lo > hi:
        raise ValueError(f"{op_type}: min ({lo}) must not exceed max ({hi})")
    if lo == hi == 0 and x.numel():
        lo, hi = float(x.detach().min()), float(x.detach().max())
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    return lo, hi


@op("histogram_bin_edges", inputs=["input"], outputs=["out"], attrs={"bins": 100, "min": 0.0, "max": 0.0},
    differentiable=False, own=_COMPOSED.format("histogram_bin_edges"))
def histogram_bin_edges(input, *, bins, min, max):
    if input.dtype is torch.bool or input.is_complex():
        raise dtype_error("histogram_bin_edges", "input", input.dtype, "float and integer")
    lo, hi = _bin_range("histogram_bin_edges", input, bins, min, max)
    if bins < 0:   # NOTE: Paddle returns no edges for a negative bin count
        return torch.empty([0], dtype=torch.float32, device=input.device)
    # NOTE: Paddle returns float32 edges whatever the input dtype
    return torch.linspace(lo, hi, bins + 1, dtype=torch.float32, device=input.device)


@op("histogramdd", inputs=["x", "weights?"], outputs=["hist", "edges[]"],
    attrs={"bins": 10, "ranges": None, "density": False}, own=_COMPOSED.format("histogramdd"))
def histogramdd(x, weights, *, bins, ranges, density):
    _float_only("histogramdd", x)
    if x.dim() < 2:
        raise ValueError(f"histogramdd: x must be at least 2-D ([..., D]), got shape {list(x.shape)}")
    d = x.shape[-1]
    if isinstance(bins, (list, tuple)) and len(bins) != d:
        raise ValueError(f"histogramdd: bins has {len(bins)} entries but x has {d} dimensions")
    if ranges is not None and len(ranges) != 2 * d:
        raise ValueError(f"histogramdd: ranges must hold 2 * D = {2 * d} numbers, got {len(ranges)}")
    if weights is not None and weights.shape != x.shape[:-1]:
        raise ValueError(f"histogramdd: weights{list(weights.shape)} must have shape {list(x.shape[:-1])}")
    hist, edges = torch.histogramdd(x.reshape(-1, d), bins=list(bins) if isinstance(bins, (list, tuple)) else bins,
                                    range=None if ranges is None else [float(r) for r in ranges],
                                    weight=None if weights is None else weights.reshape(-1), density=density)
    return hist, list(edges)


@op("pdist", inputs=["x"], outputs=["out"], attrs={"p": 2.0}, own=_COMPOSED.format("pdist"))
def pdist(x, *, p):
    _float_only("pdist", x)
    if x.dim() != 2:
        raise PaddleAssertionError(f"pdist: x must be 2-D [N, M], got shape {list(x.shape)}")
    if p < 0:
        raise ValueError(f"pdist: p must be non-negative, got {p}")
    return torch.nn.functional.pdist(x, p=p)
