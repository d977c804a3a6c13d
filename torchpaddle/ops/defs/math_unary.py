"""Unary math ops (exp, sqrt, round, clip, scale...) and the small binary math ops beside them (atan2, lerp,
gcd, isclose, kron, addmm, trace...)."""
import torch

from ...framework.dtype import check_binary_promotion, from_torch_dtype
from ...framework.tensor import PaddleAssertionError
from ..registry import REQUIRED, op


class KernelDtypeError(TypeError, RuntimeError):
    """An op has no kernel for this dtype. Paddle raises RuntimeError (NotFound) here; Python convention says
    TypeError; this is both."""


def dtype_error(op_type, slot, dtype, supported):
    return KernelDtypeError(f"{op_type}: input {slot} has dtype {from_torch_dtype(dtype).name}, which this op "
                            f"does not support (supported: {supported})")


def float_input(op_type, X, complex_ok=True):
    """Paddle's autocast for float-only math: integers become the default float dtype; bool is rejected."""
    if X.is_floating_point():
        return X
    if X.is_complex():
        if complex_ok:
            return X
        raise dtype_error(op_type, "X", X.dtype, "float and integer")
    if X.dtype is torch.bool:
        raise dtype_error(op_type, "X", X.dtype, "float, complex and integer" if complex_ok else "float and integer")
    return X.to(torch.get_default_dtype())


def same_dtype(op_type, a, b, slots=("X", "Y")):
    """Ops whose Paddle kernels read every input as X's dtype raise ValueError on a mismatch."""
    if a.dtype is not b.dtype:
        raise ValueError(f"{op_type}: input {slots[1]} has dtype {from_torch_dtype(b.dtype).name} but "
                         f"{slots[0]} has {from_torch_dtype(a.dtype).name}; they must match")


def broadcast_error(op_type, a, b):
    return ValueError(f"{op_type}: X{list(a.shape)} and Y{list(b.shape)} cannot broadcast")


# -- unary families ---------------------------------------------------------------------------------------
# (op type, fn, complex_ok): integer inputs are cast to the default float dtype first (Paddle's autocast);
# complex_ok says whether Paddle has a complex kernel.
_FLOAT_MATH = [
    ("acos", torch.acos, True), ("asin", torch.asin, True), ("atan", torch.atan, True),
    ("acosh", torch.acosh, True), ("asinh", torch.asinh, True), ("atanh", torch.atanh, True),
    ("cos", torch.cos, True), ("cosh", torch.cosh, True), ("sin", torch.sin, True), ("sinh", torch.sinh, True),
    ("tan", torch.tan, True), ("tanh", torch.tanh, True), ("exp", torch.exp, True), ("expm1", torch.expm1, True),
    ("log", torch.log, True), ("log10", torch.log10, True), ("log1p", torch.log1p, True),
    ("log2", torch.log2, True), ("reciprocal", torch.reciprocal, True), ("sqrt", torch.sqrt, True),
    ("rsqrt", torch.rsqrt, False), ("erf", torch.erf, False), ("erfinv", torch.erfinv, False),
    ("lgamma", torch.lgamma, False), ("digamma", torch.digamma, False),
    ("deg2rad", torch.deg2rad, True), ("rad2deg", torch.rad2deg, True),
]


def _sgn(X):
    return torch.sgn(X) if X.is_complex() else torch.sign(X)


# (op type, fn, complex_ok): integers stay integers.
_KEEP_MATH = [
    ("abs", torch.abs, True), ("sign", _sgn, True), ("square", torch.square, True),
    ("ceil", torch.ceil, False), ("floor", torch.floor, False), ("trunc", torch.trunc, False),
]


# NOTE: Paddle's deg2rad/rad2deg map a bool tensor to a bool tensor (True stays True).
_BOOL_TO_BOOL = ("deg2rad", "rad2deg")


# math Paddle's Python API composes from other ops; one op each here
_COMPOSED = {"deg2rad": "Paddle 3.3.1 composes paddle.deg2rad from scale and cast",
             "rad2deg": "Paddle 3.3.1 composes paddle.rad2deg from scale and cast"}


def _register_float(op_type, fn, complex_ok):
    if op_type in _BOOL_TO_BOOL:
        def kernel(X):
            if X.dtype is torch.bool:
                return fn(X.to(torch.float32)).to(torch.bool)
            return fn(float_input(op_type, X, complex_ok))
    else:
        def kernel(X):
            if X.is_floating_point():  # the common case, without a call to float_input
                return fn(X)
            return fn(float_input(op_type, X, complex_ok))
    kernel.__name__ = op_type
    op(op_type, spmd="elementwise", own=_COMPOSED.get(op_type))(kernel)


def _register_keep(op_type, fn, complex_ok):
    def kernel(X):
        if X.dtype is torch.bool or (X.is_complex() and not complex_ok):
            raise dtype_error(op_type, "X", X.dtype, "float and integer" + (" and complex" if complex_ok else ""))
        return fn(X)
    kernel.__name__ = op_type
    op(op_type, spmd="elementwise")(kernel)


for _name, _fn, _complex in _FLOAT_MATH:
    _register_float(_name, _fn, _complex)
for _name, _fn, _complex in _KEEP_MATH:
    _register_keep(_name, _fn, _complex)


def _check_tensor_predicate(op_type, X):
    if X.dtype is torch.bool:
        raise dtype_error(op_type, "X", X.dtype, "float, complex and integer")


for _name, _fn in [("isfinite_v2", torch.isfinite), ("isinf_v2", torch.isinf), ("isnan_v2", torch.isnan)]:
    def _predicate(X, _fn=_fn, _name=_name):
        _check_tensor_predicate(_name, X)
        return _fn(X)
    _predicate.__name__ = _name
    op(_name, spmd="elementwise", differentiable=False)(_predicate)


@op("round", attrs={"decimals": 0}, spmd="elementwise")
def round_(X, *, decimals):
    # NOTE: Paddle 3.3.1 rounds half to even (0.5 -> 0, 2.5 -> 2), as torch does; integers pass unchanged.
    if X.dtype is torch.bool:
        raise dtype_error("round", "X", X.dtype, "float, complex and integer")
    if not (X.is_floating_point() or X.is_complex()):
        return X.clone()
    if X.is_complex():
        return torch.complex(torch.round(X.real, decimals=decimals), torch.round(X.imag, decimals=decimals))
    return torch.round(X, decimals=decimals)


@op("frac", spmd="elementwise", own='Paddle 3.3.1 composes paddle.frac from other ops')
def frac(X):
    if X.dtype is torch.bool or X.is_complex():
        raise TypeError(f"frac: input X must be a float or integer tensor, got {from_torch_dtype(X.dtype).name}")
    if not X.is_floating_point():
        return torch.zeros_like(X)
    return torch.frac(X)


@op("stanh", attrs={"scale_a": 0.67, "scale_b": 1.7159}, spmd="elementwise")
def stanh(X, *, scale_a, scale_b):
    return scale_b * torch.tanh(scale_a * float_input("stanh", X))


@op("logit", attrs={"eps": 1e-6}, spmd="elementwise")
def logit(X, *, eps):
    return torch.logit(float_input("logit", X, complex_ok=False), eps or None)


@op("nan_to_num", attrs={"nan": 0.0, "posinf": None, "neginf": None}, spmd="elementwise",
    own="Paddle 3.3.1 composes paddle.nan_to_num from where ops")
def nan_to_num(X, *, nan, posinf, neginf):
    if not X.is_floating_point():
        raise PaddleAssertionError(f"nan_to_num: input X must be a float tensor, got {from_torch_dtype(X.dtype).name}")
    return torch.nan_to_num(X, nan, posinf, neginf)


@op("conj", spmd="elementwise")
def conj(X):
    if X.dtype is torch.bool:
        raise dtype_error("conj", "X", X.dtype, "float, complex and integer")
    return torch.conj_physical(X)


def _complex_part(op_type, fn):
    def kernel(X):
        if not X.is_complex():
            raise dtype_error(op_type, "X", X.dtype, "complex64 and complex128")
        return fn(X).clone()
    kernel.__name__ = op_type
    op(op_type, spmd="elementwise")(kernel)


_complex_part("real", torch.real)
_complex_part("imag", torch.imag)


@op("scale", inputs=["X", "ScaleTensor?"], attrs={"scale": 1.0, "bias": 0.0, "bias_after_scale": True},
    spmd="elementwise")
def scale(X, ScaleTensor, *, scale, bias, bias_after_scale):
    if ScaleTensor is not None:
        if ScaleTensor.numel() != 1:
            raise ValueError(f"scale: ScaleTensor must hold one element, got shape {list(ScaleTensor.shape)}")
        scale = ScaleTensor.reshape([]).to(X.dtype) if X.is_floating_point() else ScaleTensor.reshape([])
    if X.is_floating_point() or X.is_complex():
        if bias == 0.0:
            return torch.neg(X) if scale.__class__ is float and scale == -1.0 else X * scale
        return X * scale + bias if bias_after_scale else (X + bias) * scale
    if X.dtype is torch.bool:
        wide = X.to(torch.float64)
        return (wide * scale + bias if bias_after_scale else (wide + bias) * scale).to(torch.bool)
    # NOTE: for integer tensors Paddle's kernel first casts scale and bias to the integer type (2.5 -> 2).
    scale = scale.to(X.dtype) if isinstance(scale, torch.Tensor) else int(scale)
    bias = int(bias)
    return X * scale + bias if bias_after_scale else (X + bias) * scale


@op("clip", inputs=["X", "Min?", "Max?"], attrs={"min": REQUIRED, "max": REQUIRED},
    spmd="elementwise")
def clip(X, Min, Max, *, min, max):
    if X.dtype is torch.bool or X.is_complex():
        raise dtype_error("clip", "X", X.dtype, "float and integer")
    if Min is not None:
        min = _bound("Min", Min, X)
    if Max is not None:
        max = _bound("Max", Max, X)
    min_is_number, max_is_number = not isinstance(min, torch.Tensor), not isinstance(max, torch.Tensor)
    if min_is_number and max_is_number and min > max:
        raise ValueError(f"clip: max should be greater than or equal to min, got min={min} and max={max}")
    if min_is_number and min == float("-inf"):
        min = None
    if max_is_number and max == float("inf"):
        max = None
    if min is None and max is None:
        return X.clone()
    return torch.clamp(X, min, max)


def _bound(slot, value, X):
    if value.numel() != 1:
        raise ValueError(f"clip: {slot} must be a Tensor with one element, got shape {list(value.shape)}")
    return value.reshape([]).to(X.dtype) if value.is_floating_point() == X.is_floating_point() else \
        value.reshape([])


@op("increment", attrs={"step": 1.0}, spmd="elementwise", differentiable=False)
def increment(X, *, step):
    if X.numel() != 1:
        raise ValueError(f"increment: X must hold exactly one element, got shape {list(X.shape)}")
    if X.dtype is torch.bool or X.is_complex():
        raise dtype_error("increment", "X", X.dtype, "float and integer")
    if not X.is_floating_point():
        step = int(step)
    return X + step


# -- binary math ----------------------------------------------------------------------------------------
def _binary_broadcast(op_type, fn, X, Y):
    try:
        return fn(X, Y)
    except RuntimeError as exc:
        if "must match" in str(exc) or "broadcast" in str(exc):
            raise broadcast_error(op_type, X, Y) from None
        raise


@op("atan2", inputs=["X1", "X2"], spmd="elementwise")
def atan2(X1, X2):
    if X1.dtype is not X2.dtype:
        check_binary_promotion("atan2", X1.dtype, X2.dtype)
    if X1.dtype is torch.bool or X2.dtype is torch.bool:
        raise dtype_error("atan2", "X1", torch.bool, "float and integer")
    # NOTE: Paddle computes atan2 of integer tensors in float64.
    if not X1.is_floating_point():
        X1 = X1.to(torch.float64)
    if not X2.is_floating_point():
        X2 = X2.to(torch.float64)
    return _binary_broadcast("atan2", torch.atan2, X1, X2)


@op("hypot", inputs=["X", "Y"], spmd="elementwise", own="Paddle 3.3.1 composes paddle.hypot from square, add and sqrt")
def hypot(X, Y):
    if X.dtype is not Y.dtype:
        check_binary_promotion("hypot", X.dtype, Y.dtype)
    X, Y = float_input("hypot", X, False), float_input("hypot", Y, False)
    return _binary_broadcast("hypot", torch.hypot, X, Y)


@op("lerp", inputs=["X", "Y", "Weight"], spmd="elementwise")
def lerp(X, Y, Weight):
    if not X.is_floating_point():
        raise dtype_error("lerp", "X", X.dtype, "float32 and float64")
    same_dtype("lerp", X, Y)
    if isinstance(Weight, torch.Tensor):
        same_dtype("lerp", X, Weight, ("X", "Weight"))
    shapes = f"X{list(X.shape)}, Y{list(Y.shape)} and Weight{list(getattr(Weight, 'shape', []))}"
    try:
        return torch.lerp(X, Y, Weight)
    except RuntimeError as exc:
        raise ValueError(f"lerp: {shapes} cannot broadcast ({exc})") from None


def _float_gcd(X, Y):
    """Euclid's algorithm elementwise, for float tensors (torch.gcd is integer-only; Paddle accepts floats)."""
    X, Y = torch.broadcast_tensors(X.abs(), Y.abs())
    if X.device.type == "meta":
        return torch.empty_like(X)
    while bool((Y != 0).any()):
        nonzero = Y != 0
        X, Y = torch.where(nonzero, Y, X), torch.where(nonzero, torch.remainder(X, torch.where(nonzero, Y, 1)), 0)
    return X


def _float_lcm(X, Y):
    X, Y = X.detach(), Y.detach()   # NOTE: Paddle's float lcm stops gradient (its float gcd does not)
    g = _float_gcd(X, Y)
    # NOTE: Paddle divides with floor division here, so fractional floats give floored results.
    return torch.where(g == 0, torch.zeros_like(g), torch.floor_divide((X * Y).abs(), torch.where(g == 0, 1, g)))


def _gcd_family(op_type, fn, float_fn):
    def kernel(X, Y):
        if X.dtype is not Y.dtype:
            check_binary_promotion(op_type, X.dtype, Y.dtype)
        if X.is_complex() or X.dtype is torch.bool:
            raise dtype_error(op_type, "X", X.dtype, "integer and float")
        return _binary_broadcast(op_type, float_fn if X.is_floating_point() else fn, X, Y)
    kernel.__name__ = op_type
    op(op_type, inputs=["X", "Y"], spmd="elementwise", differentiable=False,
       own=f"Paddle 3.3.1 composes paddle.{op_type} from a while loop of remainder ops")(kernel)


_gcd_family("gcd", torch.gcd, _float_gcd)
_gcd_family("lcm", torch.lcm, _float_lcm)


def _check_close_inputs(op_type, X, Y):
    same_dtype(op_type, X, Y, ("Input", "Other"))
    if X.dim() != Y.dim() or list(X.shape) != list(Y.shape):
        # NOTE: Paddle checks the shapes equal (no broadcasting) and raises RuntimeError (PreconditionNotMet).
        raise _ShapeError(f"{op_type}: Input{list(X.shape)} and Other{list(Y.shape)} must have the same shape")


class _ShapeError(ValueError, RuntimeError):
    """Paddle's PreconditionNotMet: a RuntimeError there, a ValueError by convention."""


# NOTE: Paddle's rtol and atol attributes are strings ("1e-5"), so that a program keeps them exactly.
_CLOSE_ATTRS = {"rtol": "1e-5", "atol": "1e-8", "equal_nan": False}


@op("isclose", inputs=["Input", "Other"], attrs=_CLOSE_ATTRS, spmd="elementwise", differentiable=False)
def isclose(Input, Other, *, rtol, atol, equal_nan):
    _check_close_inputs("isclose", Input, Other)
    if not (Input.is_floating_point() or Input.is_complex()):
        raise dtype_error("isclose", "Input", Input.dtype, "float and complex")
    return torch.isclose(Input, Other, float(rtol), float(atol), equal_nan)


@op("allclose", inputs=["Input", "Other"], attrs=_CLOSE_ATTRS, differentiable=False)
def allclose(Input, Other, *, rtol, atol, equal_nan):
    _check_close_inputs("allclose", Input, Other)
    return torch.isclose(Input, Other, float(rtol), float(atol), equal_nan).all()


@op("equal_all", inputs=["X", "Y"], differentiable=False)
def equal_all(X, Y):
    same_dtype("equal_all", X, Y)
    if X.shape != Y.shape or X.device.type == "meta":
        return torch.zeros((), dtype=torch.bool, device=X.device)
    return torch.tensor(torch.equal(X, Y), device=X.device)


@op("inner", inputs=["X", "Y"], own="Paddle 3.3.1 composes paddle.inner from reshape and matmul")
def inner(X, Y):
    same_dtype("inner", X, Y)
    if X.dim() and Y.dim() and X.shape[-1] != Y.shape[-1]:
        raise ValueError(f"inner: the last dimension of X{list(X.shape)} and Y{list(Y.shape)} must match")
    if X.is_cuda and not (X.is_floating_point() or X.is_complex()):
        return torch.inner(X.cpu(), Y.cpu()).to(X.device)   # torch has no integer GEMM on CUDA; Paddle does
    return torch.inner(X, Y)


@op("outer", inputs=["X", "Y"], own="Paddle 3.3.1 composes paddle.outer from reshape and multiply")
def outer(X, Y):
    if X.dtype is not Y.dtype:
        check_binary_promotion("outer", X.dtype, Y.dtype)
    return torch.outer(X.reshape(-1), Y.reshape(-1))


@op("kron", inputs=["X", "Y"])
def kron(X, Y):
    same_dtype("kron", X, Y)
    return torch.kron(X, Y)


@op("addmm", inputs=["Input", "X", "Y"], attrs={"Alpha": 1.0, "Beta": 1.0})
def addmm(Input, X, Y, *, Alpha, Beta):
    if X.dim() != 2 or Y.dim() != 2:
        raise ValueError(f"addmm: X and Y must be 2-D, got X{list(X.shape)} and Y{list(Y.shape)}")
    if X.shape[1] != Y.shape[0]:
        raise ValueError(f"addmm: X's width must equal Y's height, got X{list(X.shape)} and Y{list(Y.shape)}")
    if Input.dim() not in (1, 2):
        raise ValueError(f"addmm: Input must be 1-D or 2-D, got shape {list(Input.shape)}")
    target = (X.shape[0], Y.shape[1])
    if any(s not in (1, t) for s, t in zip(reversed(Input.shape), reversed(target))):
        raise ValueError(f"addmm: Input{list(Input.shape)} cannot broadcast to [{target[0]}, {target[1]}]")
    if not X.is_floating_point():
        raise dtype_error("addmm", "X", X.dtype, "float32 and float64")
    same_dtype("addmm", Input, X, ("Input", "X"))
    same_dtype("addmm", X, Y)
    return torch.addmm(Input, X, Y, beta=Beta, alpha=Alpha)


@op("trace", inputs=["Input"], attrs={"offset": 0, "axis1": 0, "axis2": 1})
def trace(Input, *, offset, axis1, axis2):
    nd = Input.dim()
    if nd < 2:
        raise IndexError(f"trace: Input must be at least 2-D, got shape {list(Input.shape)}")
    for slot, axis in (("axis1", axis1), ("axis2", axis2)):
        if not -nd <= axis < nd:
            raise IndexError(f"trace: {slot}={axis} is out of range for Input{list(Input.shape)}: "
                             f"expected [{-nd}, {nd - 1}]")
    if axis1 % nd == axis2 % nd:
        raise ValueError(f"trace: axis1 and axis2 must differ, got {axis1} and {axis2}")
    if Input.dtype is torch.bool:
        raise dtype_error("trace", "Input", Input.dtype, "float, complex and integer")
    return torch.diagonal(Input, offset, axis1, axis2).sum(-1, dtype=Input.dtype)
