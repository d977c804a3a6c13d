"""Comparison, logical and bitwise functions."""
from .. import ops as _ops

__all__ = ["equal", "not_equal", "less_than", "less_equal", "greater_than", "greater_equal", "logical_and",
           "logical_or", "logical_xor", "logical_not", "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not",
           "bitwise_left_shift", "bitwise_right_shift"]
__methods__ = list(__all__)


def equal(x, y, name=None):
    return _ops.equal(x, y)


def not_equal(x, y, name=None):
    return _ops.not_equal(x, y)


def less_than(x, y, name=None):
    return _ops.less_than(x, y)


def less_equal(x, y, name=None):
    return _ops.less_equal(x, y)


def greater_than(x, y, name=None):
    return _ops.greater_than(x, y)


def greater_equal(x, y, name=None):
    return _ops.greater_equal(x, y)


def logical_and(x, y, out=None, name=None):
    return _ops.logical_and(x, y)


def logical_or(x, y, out=None, name=None):
    return _ops.logical_or(x, y)


def logical_xor(x, y, out=None, name=None):
    return _ops.logical_xor(x, y)


def logical_not(x, out=None, name=None):
    return _ops.logical_not(x)


def bitwise_and(x, y, out=None, name=None):
    return _ops.bitwise_and(x, y)


def bitwise_or(x, y, out=None, name=None):
    return _ops.bitwise_or(x, y)


def bitwise_xor(x, y, out=None, name=None):
    return _ops.bitwise_xor(x, y)


def bitwise_not(x, out=None, name=None):
    return _ops.bitwise_not(x)


def bitwise_left_shift(x, y, is_arithmetic=True, name=None):
    return _ops.bitwise_left_shift(x, y, is_arithmetic=bool(is_arithmetic))


def bitwise_right_shift(x, y, is_arithmetic=True, name=None):
    """x >> y; is_arithmetic=False fills with zeros (x read as unsigned)."""
    return _ops.bitwise_right_shift(x, y, is_arithmetic=bool(is_arithmetic))
