"""Rows for binary elementwise arithmetic, comparison and logical functions."""
import numpy as np

from .core import ALL, FLOATS, NUMERIC, Err, OpCase, Sample, T, binary, fixed

_MISMATCH = Err((T(np.ones((2, 3))), T(np.ones((4, 3)))), exc=ValueError, note="shapes cannot broadcast")
_DTYPES = Err((T(np.ones((2, 3)), dtype="int32"), T(np.ones((2, 3)), dtype="int64")), exc=TypeError,
              note="int32 with int64 is not promoted")
_NOT_TENSOR = Err((T(np.ones((2, 3))), "a string"), exc=TypeError)

OPS = [
    OpCase("add", "add", np.add, binary(), NUMERIC, errors=(_MISMATCH, _DTYPES, _NOT_TENSOR)),
    OpCase("subtract", "subtract", np.subtract, binary(), NUMERIC, errors=(_MISMATCH, _DTYPES)),
    OpCase("multiply", "multiply", np.multiply, binary(), NUMERIC, errors=(_MISMATCH, _DTYPES)),
    OpCase("divide", "divide", np.true_divide, binary(low=0.5, high=3.0), FLOATS, errors=(_MISMATCH,)),
    OpCase("floor_divide", "floor_divide", np.floor_divide, binary(low=1, high=5), ("int32", "int64"),
           grad=False, errors=(_MISMATCH,)),
    OpCase("remainder", "remainder", np.remainder, binary(low=1, high=5), NUMERIC, grad=False,
           errors=(_MISMATCH,)),
    OpCase("mod", "mod", np.mod, binary(low=1, high=5), ("int64",), grad=False),
    OpCase("pow", "pow", np.power, binary(low=0.5, high=2.0), FLOATS, errors=(_MISMATCH,)),
    OpCase("maximum", "maximum", np.maximum, binary(), NUMERIC, errors=(_MISMATCH,)),
    OpCase("minimum", "minimum", np.minimum, binary(), NUMERIC, errors=(_MISMATCH,)),
    OpCase("fmax", "fmax", np.fmax, binary(), FLOATS),
    OpCase("fmin", "fmin", np.fmin, binary(), FLOATS),
    OpCase("heaviside", "heaviside", np.heaviside, binary(), FLOATS, grad=False),
    OpCase("equal", "equal", np.equal, binary(low=-1, high=1), ALL, grad=False, errors=(_MISMATCH,)),
    OpCase("not_equal", "not_equal", np.not_equal, binary(low=-1, high=1), ALL, grad=False),
    OpCase("less_than", "less_than", np.less, binary(), NUMERIC, grad=False, errors=(_MISMATCH,)),
    OpCase("less_equal", "less_equal", np.less_equal, binary(low=-1, high=1), NUMERIC, grad=False),
    OpCase("greater_than", "greater_than", np.greater, binary(), NUMERIC, grad=False),
    OpCase("greater_equal", "greater_equal", np.greater_equal, binary(low=-1, high=1), NUMERIC, grad=False),
    OpCase("logical_and", "logical_and", np.logical_and, binary(), ("bool",), grad=False, errors=(_MISMATCH,)),
    OpCase("logical_or", "logical_or", np.logical_or, binary(), ("bool",), grad=False),
    OpCase("logical_xor", "logical_xor", np.logical_xor, binary(), ("bool",), grad=False),
    OpCase("logical_not", "logical_not", np.logical_not, fixed(Sample((T(np.array([True, False, True])),))),
           ("bool",), grad=False),
    OpCase("bitwise_or", "bitwise_or", np.bitwise_or, binary(low=-8, high=8), ("int32", "int64", "bool"), grad=False),
    OpCase("bitwise_xor", "bitwise_xor", np.bitwise_xor, binary(low=-8, high=8), ("int32", "int64", "bool"),
           grad=False),
    OpCase("bitwise_not", "bitwise_not", np.bitwise_not,
           fixed(Sample((T(np.array([[-3, 0, 5], [7, -1, 2]])),))), ("int32", "int64"), grad=False),
    OpCase("tensor_lshift", "Tensor.__lshift__", np.left_shift, binary(low=0, high=4), ("int32", "int64"), grad=False),
    OpCase("tensor_rshift", "Tensor.__rshift__", np.right_shift, binary(low=-8, high=8, shapes=(((3, 4), (3, 4)),)),
           ("int32", "int64"), grad=False),
    OpCase("tensor_add_scalar", "Tensor.__add__", lambda x, y: x + y,
           fixed(Sample((T(np.arange(6.0).reshape(2, 3)), 2)), Sample((T(np.arange(6.0).reshape(2, 3)), 2.5))),
           NUMERIC),
    OpCase("tensor_rsub_scalar", "Tensor.__rsub__", lambda x, y: y - x,
           fixed(Sample((T(np.arange(6.0).reshape(2, 3)), 2))), NUMERIC),
    OpCase("tensor_rtruediv_scalar", "Tensor.__rtruediv__", lambda x, y: y / x,
           fixed(Sample((T(np.arange(1.0, 7.0).reshape(2, 3)), 3))), NUMERIC),
    OpCase("tensor_rpow_scalar", "Tensor.__rpow__", lambda x, y: np.power(y, x),
           fixed(Sample((T(np.arange(1.0, 5.0)), 2))), NUMERIC),
]
