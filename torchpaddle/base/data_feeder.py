"""paddle.base.data_feeder: the argument checks static-graph code calls, and ``convert_dtype`` (dtype -> name).

As in Paddle, the checks do nothing in dygraph mode; in static mode a wrong type or dtype is a TypeError.
"""
import enum

from ..framework import dtype as _dtype
from ..framework.mode import in_dynamic_mode
from ..framework.parameter import Parameter as EagerParamBase  # noqa: F401
from ..framework.program import Variable, default_main_program  # noqa: F401
from .framework import in_dygraph_mode, in_pir_mode  # noqa: F401

__all__ = ["convert_dtype", "check_type", "check_dtype", "check_variable_and_dtype", "check_shape"]

_NAMES = ["bool", "float16", "uint16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "complex64",
          "complex128", "bfloat16", "float8_e4m3fn", "float8_e5m2"]


def convert_dtype(dtype):
    """A dtype-like -> its Paddle name; bfloat16 is ``'uint16'``, as Paddle spells it."""
    if isinstance(dtype, str) and dtype in _NAMES:
        return "uint16" if dtype == "bfloat16" else dtype
    # Paddle takes VarType members, not plain ints, and no Python types (float, int)
    plain_int = isinstance(dtype, int) and not isinstance(dtype, enum.IntEnum)
    if not (plain_int or isinstance(dtype, (float, str, type(None))) or dtype in (bool, int, float, complex)):
        try:
            name = _dtype.convert_dtype(dtype).name
        except TypeError:
            name = None
        if name is not None and name in _NAMES:
            return "uint16" if name == "bfloat16" else name
    raise TypeError(f"dtype must be any of [{', '.join(_NAMES[:13])}], but received {dtype}")


def check_type(input, input_name, expected_type, op_name, extra_message=""):
    if in_dynamic_mode():
        return
    if not isinstance(expected_type, tuple):
        expected_type = (expected_type,)
    if not isinstance(input, expected_type):
        raise TypeError(f"The type of '{input_name}' in {op_name} must be {expected_type}, but received "
                        f"{type(input)}. {extra_message}")


def check_dtype(input_dtype, input_name, expected_dtype, op_name, extra_message=""):
    if in_dynamic_mode():
        return
    name = convert_dtype(input_dtype)
    if name not in expected_dtype:
        raise TypeError(f"The data type of '{input_name}' in {op_name} must be {expected_dtype}, but received "
                        f"{name}. {extra_message}")


def check_variable_and_dtype(input, input_name, expected_dtype, op_name, extra_message=""):
    check_type(input, input_name, Variable, op_name, extra_message)
    check_dtype(input.dtype, input_name, expected_dtype, op_name, extra_message)


def check_shape(shape, op_name, expected_shape_type=(list, tuple, Variable), expected_element_type=(int, Variable),
                expected_tensor_dtype=("int32", "int64")):
    """A shape argument: a list/tuple of ints (or Variables), or an int Variable."""
    if in_dynamic_mode():
        return
    check_type(shape, "shape", expected_shape_type, op_name)
    if not isinstance(shape, Variable):
        for item in shape:
            check_type(item, "element of shape", expected_element_type, op_name)
            if isinstance(item, Variable):
                check_dtype(item.dtype, "element of shape", expected_tensor_dtype, op_name)
    else:
        check_dtype(shape.dtype, "shape", expected_tensor_dtype, op_name)
