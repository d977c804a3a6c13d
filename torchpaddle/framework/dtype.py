"""Paddle dtypes, their torch/NumPy counterparts, the default dtype and promotion rules."""
import builtins

import numpy as np
import torch

__all__ = ["dtype", "convert_dtype", "to_torch_dtype", "from_torch_dtype", "set_default_dtype",
           "get_default_dtype", "is_floating", "is_complex", "is_integer"]


class dtype:
    """A Paddle data type (``paddle.float32`` ...); compares equal only to itself."""
    __slots__ = ("name", "torch", "numpy", "proto")
    __module__ = "paddle"  # type(paddle.float32) prints as <class 'paddle.dtype'>

    def __init__(self, name, torch_dtype, numpy_dtype, proto):
        self.name, self.torch, self.numpy, self.proto = name, torch_dtype, numpy_dtype, proto

    def __repr__(self):
        # NOTE: Paddle 3.3.1's dtypes are its PIR DataType enum: repr is the enum member, str is paddle.<name>.
        return f"<DataType.{self.name.upper()}: {_PIR_DATATYPE[self.name]}>"

    def __str__(self):
        return "paddle." + self.name

    def __reduce__(self):
        return (_by_name, (self.name,))

    @property
    def is_floating_point(self):
        return self.torch.is_floating_point

    @property
    def itemsize(self):
        return self.torch.itemsize


# proto: Paddle's VarType enum value, which ProgramDesc files and dtype attrs carry.
_TABLE = [
    ("bool", torch.bool, np.bool_, 0),
    ("int16", torch.int16, np.int16, 1),
    ("int32", torch.int32, np.int32, 2),
    ("int64", torch.int64, np.int64, 3),
    ("float16", torch.float16, np.float16, 4),
    ("float32", torch.float32, np.float32, 5),
    ("float64", torch.float64, np.float64, 6),
    ("uint8", torch.uint8, np.uint8, 20),
    ("int8", torch.int8, np.int8, 21),
    ("bfloat16", torch.bfloat16, None, 22),
    ("complex64", torch.complex64, np.complex64, 23),
    ("complex128", torch.complex128, np.complex128, 24),
    ("float8_e4m3fn", torch.float8_e4m3fn, None, 32),
    ("float8_e5m2", torch.float8_e5m2, None, 33),
]

# the value of each dtype in Paddle's PIR DataType enum, shown by repr()
_PIR_DATATYPE = {"bool": 1, "uint8": 2, "int8": 3, "int16": 5, "int32": 7, "int64": 9, "float32": 10,
                 "float64": 11, "complex64": 12, "complex128": 13, "float16": 15, "bfloat16": 16,
                 "float8_e4m3fn": 17, "float8_e5m2": 18}

DTYPES = {}
_FROM_TORCH = {}
_FROM_PROTO = {}
_FROM_NUMPY = {}
for _name, _t, _n, _p in _TABLE:
    _d = dtype(_name, _t, _n, _p)
    DTYPES[_name] = _d
    _FROM_TORCH[_t] = _d
    _FROM_PROTO[_p] = _d
    if _n is not None:
        _FROM_NUMPY[np.dtype(_n)] = _d
# The dtypes are module attributes (``dtype.float32``); ``bool`` among them shadows the builtin, so this
# module spells builtins out.
globals().update(DTYPES)

_ALIASES = {"float": "float32", "double": "float64", "half": "float16", "int": "int32", "long": "int64",
            "fp16": "float16", "fp32": "float32", "fp64": "float64", "bf16": "bfloat16",
            "uint16": "bfloat16", "bool_": "bool"}


def _by_name(name):
    return DTYPES[name]


def convert_dtype(value):
    """Any dtype-like (paddle dtype, str, numpy dtype/type, torch dtype, VarType int) -> paddle dtype."""
    if value.__class__ is dtype:
        return value
    if isinstance(value, builtins.str):
        key = value[7:] if value.startswith("paddle.") else value
        key = _ALIASES.get(key, key)
        found = DTYPES.get(key)
        if found is not None:
            return found
    elif isinstance(value, torch.dtype):
        found = _FROM_TORCH.get(value)
        if found is not None:
            return found
    elif isinstance(value, builtins.int) and not isinstance(value, builtins.bool):
        found = _FROM_PROTO.get(value)
        if found is not None:
            return found
    elif value is builtins.float:
        return DTYPES[_DEFAULT[0]]
    elif value is builtins.int:
        return DTYPES["int64"]
    elif value is builtins.bool:
        return DTYPES["bool"]
    elif value is builtins.complex:
        return DTYPES["complex64"]
    else:
        try:
            found = _FROM_NUMPY.get(np.dtype(value))
        except TypeError:
            found = None
        if found is not None:
            return found
    raise TypeError(f"dtype: expected a paddle dtype or one of {sorted(DTYPES)}, got {value!r}")


def to_torch_dtype(value):
    return convert_dtype(value).torch


def from_torch_dtype(torch_dtype):
    return _FROM_TORCH[torch_dtype]


def from_numpy_dtype(numpy_dtype):
    found = _FROM_NUMPY.get(np.dtype(numpy_dtype))
    if found is None:
        raise TypeError(f"dtype: NumPy dtype {numpy_dtype} has no Paddle counterpart")
    return found


_DEFAULT = ["float32"]


def set_default_dtype(d):
    """Set the default float dtype; Paddle accepts float16/bfloat16/float32/float64 only."""
    d = convert_dtype(d)
    if d.name not in ("float16", "bfloat16", "float32", "float64"):
        raise TypeError(f"set_default_dtype only supports [float16, float32, float64, bfloat16], got {d.name}")
    _DEFAULT[0] = d.name
    torch.set_default_dtype(torch.float32 if d.name in ("float16", "bfloat16") else d.torch)


def get_default_dtype():
    return _DEFAULT[0]


def default_float():
    return DTYPES[_DEFAULT[0]]


def is_floating(d):
    return d.torch.is_floating_point


def is_complex(d):
    return d.torch.is_complex


def is_integer(d):
    return not (d.torch.is_floating_point or d.torch.is_complex or d.torch is torch.bool)


# Ops that Paddle 3.3.1 lets promote any dtypes when an operand is a 0-D tensor (see promote_binary), by
# our op type; True where a 0-D operand then acts like a scalar. NOTE: floor_divide promotes, but plainly.
ZERO_DIM_PROMOTING = dict.fromkeys([
    "elementwise_add", "elementwise_sub", "elementwise_mul", "elementwise_div", "elementwise_pow",
    "elementwise_mod", "equal", "not_equal", "less_than", "less_equal", "greater_than", "greater_equal",
    "copysign", "cross", "trunc_divide", "equal_all"], True)
ZERO_DIM_PROMOTING["elementwise_floordiv"] = False


def _kind(t):
    # bool is a kind of its own: Paddle's "same kind" test pairs int with int, not with bool
    return 3 if t.is_complex else 2 if t.is_floating_point else 0 if t is torch.bool else 1


def promote_binary(op_name, x, y):
    """torch tensors ``x``, ``y`` of different dtypes -> both cast to Paddle 3.3.1's result dtype.

    Paddle's lattice is torch.promote_types on every dtype Paddle has. Two tensors of rank >= 1 promote only
    float with float and complex with anything (else TypeError). The ZERO_DIM_PROMOTING ops promote any pair
    that has a 0-D operand, and most of them treat it like a scalar: of the other operand's kind (int,
    float, complex) it takes that operand's dtype; two 0-D tensors promote along the lattice.
    """
    a, b = x.dtype, y.dtype
    x0, y0 = x.dim() == 0, y.dim() == 0
    if (x0 or y0) and op_name in ZERO_DIM_PROMOTING:
        if x0 == y0 or _kind(a) != _kind(b) or not ZERO_DIM_PROMOTING[op_name]:
            target = torch.promote_types(a, b)
        else:
            target = b if x0 else a
    elif (a.is_floating_point and b.is_floating_point) or a.is_complex or b.is_complex:
        target = torch.promote_types(a, b)
    else:
        raise TypeError(f"{op_name}: type promotion only supports floating-point with floating-point and "
                        f"complex with real numbers (or a 0-D Tensor operand), but got X {from_torch_dtype(a)}"
                        f"{list(x.shape)} and Y {from_torch_dtype(b)}{list(y.shape)}")
    return x.to(target), y.to(target)


def promote_scalar(x, value):
    """A tensor ``x`` and a Python bool/float/complex ``value`` -> the pair to compute Paddle's result with.

    Paddle keeps the tensor's dtype, except: an int/bool tensor with a float gives float32 (whatever the
    default dtype), a real tensor with a complex gives complex64 (complex128 from float64). A bool value
    counts as the tensor's dtype.
    """
    cls = value.__class__
    if cls is builtins.float:
        if not (x.is_floating_point() or x.is_complex()):
            x = x.to(torch.float32)
    elif cls is builtins.complex:
        if not x.is_complex():
            x = x.to(torch.complex128 if x.dtype is torch.float64 else torch.complex64)
    elif cls is builtins.bool and x.dtype is not torch.bool:
        value = builtins.int(value)   # torch refuses bool operands in subtraction
    return x, value


def check_binary_promotion(op_name, a, b):
    """Paddle 3.3.1 promotes Tensor-Tensor dtypes only float<->float and complex<->real; others raise."""
    if a is b:
        return
    if (a.is_floating_point and b.is_floating_point) or (a.is_complex or b.is_complex):
        return
    raise TypeError(f"{op_name}: type promotion only supports floating-point with floating-point and complex "
                    f"with real numbers, but got {from_torch_dtype(a)} and {from_torch_dtype(b)}")
