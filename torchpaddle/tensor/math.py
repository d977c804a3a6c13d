"""Math functions: elementwise arithmetic, unary math, reductions."""
from .. import ops as _ops

__all__ = ["add", "subtract", "multiply", "divide", "floor_divide", "mod", "remainder", "floor_mod", "pow",
           "maximum", "minimum", "fmax", "fmin", "heaviside"]
__methods__ = list(__all__)


def add(x, y, name=None):
    return _ops.elementwise_add(x, y)


def subtract(x, y, name=None):
    return _ops.elementwise_sub(x, y)


def multiply(x, y, name=None):
    return _ops.elementwise_mul(x, y)


def divide(x, y, name=None):
    return _ops.elementwise_div(x, y)


def floor_divide(x, y, name=None):
    return _ops.elementwise_floordiv(x, y)


def remainder(x, y, name=None):
    return _ops.elementwise_mod(x, y)


mod = floor_mod = remainder


def pow(x, y, name=None):
    return _ops.elementwise_pow(x, y)


def maximum(x, y, name=None):
    return _ops.elementwise_max(x, y)


def minimum(x, y, name=None):
    return _ops.elementwise_min(x, y)


def fmax(x, y, name=None):
    return _ops.elementwise_fmax(x, y)


def fmin(x, y, name=None):
    return _ops.elementwise_fmin(x, y)


def heaviside(x, y, name=None):
    return _ops.elementwise_heaviside(x, y)
