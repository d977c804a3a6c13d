"""Binary elementwise ops: arithmetic, comparison, logical and bitwise, with Paddle's broadcast ``axis``."""
import torch

from ...framework.dtype import promote_binary, promote_scalar
from ..registry import REGISTRY, op

_TT = torch.Tensor
_F64 = torch.float64


def align_y(X, Y, axis):
    """Legacy fluid broadcast: Y's dims line up with X's starting at ``axis`` (-1 means numpy rules)."""
    if axis == -1 or not isinstance(Y, torch.Tensor) or not isinstance(X, torch.Tensor) or Y.dim() >= X.dim():
        return Y
    if axis < 0:
        axis += X.dim()
    trailing = X.dim() - axis - Y.dim()
    if trailing < 0:
        raise ValueError(f"elementwise op: axis={axis} is out of range for X{list(X.shape)} and Y{list(Y.shape)}")
    return Y.reshape(list(Y.shape) + [1] * trailing)


def _broadcast_error(op_type, X, Y, axis):
    return ValueError(f"{op_type}: X{list(getattr(X, 'shape', []))} and Y{list(getattr(Y, 'shape', []))} "
                      f"cannot broadcast (axis={axis})")


def _rsub(a, b):
    if not isinstance(a, torch.Tensor):
        return torch.rsub(b, a)
    return torch.sub(a, b)


def _pow(a, b):
    return torch.pow(a, b)


def _floordiv(a, b):
    if isinstance(a, torch.Tensor) and not (a.is_floating_point() or a.is_complex()):
        divisor = b if isinstance(b, torch.Tensor) else torch.tensor(b)
        if bool((divisor == 0).any()):
            raise ZeroDivisionError("floor_divide: integer division by zero")
    return torch.floor_divide(a, b)


def _mod(a, b):
    if isinstance(a, torch.Tensor) and not (a.is_floating_point() or a.is_complex()):
        divisor = b if isinstance(b, torch.Tensor) else torch.tensor(b)
        if bool((divisor == 0).any()):
            raise ZeroDivisionError("remainder: integer division by zero")
    return torch.remainder(a, b)


def _true_div(a, b):
    out = torch.true_divide(a, b)
    if out.dtype is _F64 and _integral(a) and _integral(b):
        # NOTE: Paddle divides integers in float32, even when the default dtype is float64.
        return torch.true_divide(_float32(a), _float32(b))
    return out


def _integral(v):
    return not (v.is_floating_point() or v.is_complex()) if isinstance(v, _TT) else isinstance(v, int)


def _float32(v):
    return v.to(torch.float32) if isinstance(v, _TT) else float(v)


_ORDERING = ("less_than", "less_equal", "greater_than", "greater_equal")


def _is_complex(v):
    return v.is_complex() if isinstance(v, _TT) else isinstance(v, complex)


def _complex_order(fn, a, b):
    # NOTE: Paddle orders complex numbers lexicographically, by real part then imaginary part (torch refuses).
    a_real, b_real = a.real, b.real
    return torch.where(a_real == b_real, fn(a.imag, b.imag), fn(a_real, b_real))


def _binary_kernel(op_type, fn):
    # One closure per op, with the dtype check inlined: this is the hottest path in eager mode.
    def kernel(X, Y, *, axis=-1, force_cpu=False):
        if axis != -1 or force_cpu:
            if force_cpu:
                # compare ops: Paddle leaves the result on the CPU (a condition the host reads)
                return kernel(X, Y, axis=axis).cpu()
            Y = align_y(X, Y, axis)
        if Y.__class__ is _TT:
            if X.__class__ is _TT and X.dtype is not Y.dtype:
                X, Y = promote_binary(op_type, X, Y)
        elif Y.__class__ is float:
            if X.__class__ is _TT and not (X.is_floating_point() or X.is_complex()):
                X, Y = promote_scalar(X, Y)
        elif Y.__class__ is not int and X.__class__ is _TT:
            X, Y = promote_scalar(X, Y)   # bool, complex: torch's own rules differ from Paddle's
        try:
            return fn(X, Y)
        except RuntimeError as exc:
            if "must match" in str(exc):
                raise _broadcast_error(op_type, X, Y, axis) from None
            if Y.__class__ is int and X.__class__ is _TT and X.dtype is torch.bool:
                # NOTE: Paddle computes a bool tensor with an int in int64 (torch refuses e.g. bool - int)
                return fn(X.to(torch.int64), Y)
            if op_type in _ORDERING and (_is_complex(X) or _is_complex(Y)):
                return _complex_order(fn, X, Y)
            raise
    kernel.__name__ = op_type
    return kernel


def _register_binary(op_type, fn, differentiable=True, attrs=None, grad_type=None):
    """An op of Paddle's elementwise family: X, Y -> Out, broadcast by ``axis`` when it has one."""
    return op(op_type, inputs=["X", "Y"], outputs=["Out"], attrs=attrs, spmd="elementwise",
              differentiable=differentiable, grad_type=grad_type)(_binary_kernel(op_type, fn))


def _logical_right_shift(X, Y):
    """X >> Y filling with zeros (X read as unsigned), for signed integer X."""
    bits = X.element_size() * 8
    shifted = torch.bitwise_right_shift(X, Y)
    if X.dtype is torch.uint8 or X.dtype is torch.bool:
        return shifted
    kept = (bits - Y).clamp(min=0, max=bits - 1)
    mask = torch.bitwise_left_shift(torch.ones_like(shifted), kept) - 1
    out = torch.where(Y > 0, shifted & mask, shifted)
    return torch.where(Y >= bits, torch.zeros_like(out), out)


def _register_shift(op_type, fn):
    binary = _binary_kernel(op_type, fn)

    def kernel(x, y, *, is_arithmetic):
        # a left shift is the same either way; a logical right shift fills with zeros
        if not is_arithmetic and op_type == "bitwise_right_shift" and isinstance(x, _TT):
            x, y = torch.broadcast_tensors(x, torch.as_tensor(y, dtype=x.dtype, device=x.device))
            return _logical_right_shift(x, y)
        return binary(x, y)
    kernel.__name__ = op_type
    op(op_type, inputs=["x", "y"], outputs=["out"], attrs={"is_arithmetic": True}, spmd="elementwise",
       differentiable=False)(kernel)


_ARITHMETIC = [
    ("elementwise_add", torch.add),
    ("elementwise_sub", _rsub),
    ("elementwise_mul", torch.mul),
    ("elementwise_div", _true_div),
    ("elementwise_pow", _pow),
    ("elementwise_floordiv", _floordiv),
    ("elementwise_mod", _mod),
    ("elementwise_max", torch.maximum),
    ("elementwise_min", torch.minimum),
]
# Paddle's newer binary ops: no broadcast axis attribute
_ARITHMETIC_NO_AXIS = [
    ("elementwise_fmax", torch.fmax),
    ("elementwise_fmin", torch.fmin),
    ("elementwise_heaviside", torch.heaviside),
]
_COMPARE = [
    ("equal", torch.eq), ("not_equal", torch.ne), ("less_than", torch.lt), ("less_equal", torch.le),
    ("greater_than", torch.gt), ("greater_equal", torch.ge),
]
_LOGICAL = [("logical_and", torch.logical_and), ("logical_or", torch.logical_or),
            ("logical_xor", torch.logical_xor)]
_BITWISE = [("bitwise_and", torch.bitwise_and), ("bitwise_or", torch.bitwise_or),
            ("bitwise_xor", torch.bitwise_xor)]
_SHIFTS = [("bitwise_left_shift", torch.bitwise_left_shift), ("bitwise_right_shift", torch.bitwise_right_shift)]

RAW_BINARY = dict(_ARITHMETIC + _ARITHMETIC_NO_AXIS + _COMPARE + _LOGICAL + _BITWISE + _SHIFTS)
RAW_BINARY["elementwise_sub"] = torch.sub

# Paddle: floor division has no gradient; the gradient of elementwise_mod is the op remainder_grad
_NO_GRAD = {"elementwise_floordiv"}
_GRAD_TYPES = {"elementwise_mod": "remainder_grad"}
for _name, _fn in _ARITHMETIC:
    _register_binary(_name, _fn, _name not in _NO_GRAD, {"axis": -1}, _GRAD_TYPES.get(_name))
for _name, _fn in _ARITHMETIC_NO_AXIS:
    _register_binary(_name, _fn)
for _name, _fn in _COMPARE:
    _register_binary(_name, _fn, False, {"axis": -1, "force_cpu": False})
for _name, _fn in _LOGICAL + _BITWISE:
    _register_binary(_name, _fn, differentiable=False)
for _name, _fn in _SHIFTS:
    _register_shift(_name, _fn)


def _sum_to(grad, shape):
    """The gradient of an operand broadcast to ``grad``'s shape: summed over the broadcast dims."""
    return grad if grad.shape == shape else grad.sum_to_size(shape)


def _add_sub_grad(negate):
    # As Paddle's elementwise_add_grad / elementwise_sub_grad: a grad op run on its own needs no recompute.
    def grad(X, Y, Out_grad, *, axis, needs):
        if Out_grad is None or not X.dtype is Y.dtype is Out_grad.dtype:
            return None
        y = align_y(X, Y, axis)
        grads = {}
        if "X" in needs:
            grads["X"] = _sum_to(Out_grad, X.shape)
        if "Y" in needs:
            dy = _sum_to(Out_grad, y.shape).reshape(Y.shape)
            grads["Y"] = -dy if negate else dy
        return grads
    return grad


for _name, _negate in (("elementwise_add", False), ("elementwise_sub", True)):
    REGISTRY[_name].grad(uses=["X", "Y"], autograd=False)(_add_sub_grad(_negate))


@op("logical_not", inputs=["X"], outputs=["Out"], spmd="elementwise", differentiable=False)
def logical_not(X):
    return torch.logical_not(X)


@op("bitwise_not", inputs=["X"], outputs=["Out"], spmd="elementwise", differentiable=False)
def bitwise_not(X):
    if X.is_floating_point() or X.is_complex():
        raise TypeError(f"bitwise_not: X must be an integer or bool tensor, got {X.dtype}")
    return torch.bitwise_not(X)
