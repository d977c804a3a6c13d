"""Tensor's Python operators, each a call of the op that Paddle's operator overloading appends."""
import torch

from .. import ops as _ops
from ..framework.mode import ANY_STATIC as _ANY_STATIC, STATE as _MODE
from ..framework.tensor import Tensor, wrap
from ..ops.defs.elementwise import RAW_BINARY

__all__ = []
__methods__ = []


def _binary(op_name, reflected=False):
    fn = getattr(_ops, op_name)
    if not reflected:
        return fn  # the op's entry point binds as a method: self -> X, other -> Y
    raw = RAW_BINARY[op_name]

    def reflected_method(self, other):
        if isinstance(other, Tensor) or (_ANY_STATIC.on and _MODE.static):
            return fn(other, self)
        t = self._t
        dtype = _scalar_dtype(t, other)
        if t.dtype is not dtype:
            t = t.to(dtype)
        return wrap(raw(torch.as_tensor(other, dtype=dtype, device=t.device), t))
    return reflected_method


def _scalar_dtype(t, other):
    """Paddle's result dtype for a Python scalar with a tensor (what promote_scalar computes forwards)."""
    if isinstance(other, bool):
        return t.dtype
    if isinstance(other, int):
        return torch.int64 if t.dtype is torch.bool else t.dtype
    if isinstance(other, float) and not (t.is_floating_point() or t.is_complex()):
        return torch.float32   # NOTE: not the default dtype, as in Paddle
    if isinstance(other, complex) and not t.is_complex():
        return torch.complex128 if t.dtype is torch.float64 else torch.complex64
    return t.dtype


def _eq(op_name):
    fn = getattr(_ops, op_name)

    def method(self, other):
        if other is None:
            return op_name == "not_equal"
        return fn(self, other)
    return method


_PAIRS = [("add", "elementwise_add"), ("sub", "elementwise_sub"), ("mul", "elementwise_mul"),
          ("truediv", "elementwise_div"), ("floordiv", "elementwise_floordiv"), ("mod", "elementwise_mod"),
          ("pow", "elementwise_pow"), ("and", "bitwise_and"), ("or", "bitwise_or"), ("xor", "bitwise_xor"),
          ("lshift", "bitwise_left_shift"), ("rshift", "bitwise_right_shift")]
for _py, _op in _PAIRS:
    setattr(Tensor, f"__{_py}__", _binary(_op))
    setattr(Tensor, f"__r{_py}__", _binary(_op, reflected=True))
Tensor.__div__ = Tensor.__truediv__
Tensor.__rdiv__ = Tensor.__rtruediv__

for _py, _op in [("eq", "equal"), ("ne", "not_equal")]:
    setattr(Tensor, f"__{_py}__", _eq(_op))
for _py, _op in [("lt", "less_than"), ("le", "less_equal"), ("gt", "greater_than"), ("ge", "greater_equal")]:
    setattr(Tensor, f"__{_py}__", _binary(_op))


def _invert(self):
    if self._t.dtype.is_floating_point:
        raise TypeError("~ (bitwise_not) needs an integer or bool Tensor")
    return _ops.bitwise_not(self)


def _neg(self):
    # Paddle's unary minus is the scale op with scale=-1.
    return _ops.scale(self, None, scale=-1.0, bias=0.0, bias_after_scale=True)


def _pos(self):
    return self


def _abs(self):
    return _ops.abs(self)


def _matmul(self, other):
    return _ops.matmul_v2(self, other, trans_x=False, trans_y=False)


def _rmatmul(self, other):
    return _ops.matmul_v2(other, self, trans_x=False, trans_y=False)


Tensor.__invert__ = _invert
Tensor.__neg__ = _neg
Tensor.__pos__ = _pos
Tensor.__abs__ = _abs
Tensor.__matmul__ = _matmul
Tensor.__rmatmul__ = _rmatmul
