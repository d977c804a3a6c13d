"""Binary elementwise ops: arithmetic, comparison, logical and bitwise, with Paddle's broadcast ``axis``."""
import torch

from ...framework.dtype import check_binary_promotion
from ..registry import op

_TT = torch.Tensor


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
    return torch.true_divide(a, b)


def _register_binary(op_type, fn, promote=True, differentiable=True):
    # One closure per op, with the dtype check inlined: this is the hottest path in eager mode.
    if promote:
        def kernel(X, Y, *, axis):
            if axis != -1:
                Y = align_y(X, Y, axis)
            if Y.__class__ is _TT and X.__class__ is _TT and X.dtype is not Y.dtype:
                check_binary_promotion(op_type, X.dtype, Y.dtype)
            try:
                return fn(X, Y)
            except RuntimeError as exc:
                if "must match" in str(exc):
                    raise _broadcast_error(op_type, X, Y, axis) from None
                raise
    else:
        def kernel(X, Y, *, axis):
            if axis != -1:
                Y = align_y(X, Y, axis)
            try:
                return fn(X, Y)
            except RuntimeError as exc:
                if "must match" in str(exc):
                    raise _broadcast_error(op_type, X, Y, axis) from None
                raise
    kernel.__name__ = op_type
    return op(op_type, inputs=["X", "Y"], outputs=["Out"], attrs={"axis": -1}, spmd="elementwise",
              differentiable=differentiable)(kernel)


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
            ("bitwise_xor", torch.bitwise_xor), ("bitwise_left_shift", torch.bitwise_left_shift),
            ("bitwise_right_shift", torch.bitwise_right_shift)]

RAW_BINARY = dict(_ARITHMETIC + _COMPARE + _LOGICAL + _BITWISE)
RAW_BINARY["elementwise_sub"] = torch.sub

for _name, _fn in _ARITHMETIC:
    _register_binary(_name, _fn)
for _name, _fn in _COMPARE + _LOGICAL:
    _register_binary(_name, _fn, promote=False, differentiable=False)
for _name, _fn in _BITWISE:
    _register_binary(_name, _fn, differentiable=False)


@op("logical_not", inputs=["X"], outputs=["Out"], spmd="elementwise", differentiable=False)
def logical_not(X):
    return torch.logical_not(X)


@op("bitwise_not", inputs=["X"], outputs=["Out"], spmd="elementwise", differentiable=False)
def bitwise_not(X):
    if X.is_floating_point() or X.is_complex():
        raise TypeError(f"bitwise_not: X must be an integer or bool tensor, got {X.dtype}")
    return torch.bitwise_not(X)
