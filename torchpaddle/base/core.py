"""paddle.base.core: the parts of Paddle's C++ core module that Python code reaches for: VarDesc.VarType and
DataType, places, eager.Tensor, DenseTensor (the scope's LoDTensor), the flag registry (``core.globals()``),
generators, the build queries (``is_compiled_with_*``) and the IR's dist attributes (TensorDistAttr,
OperatorDistAttr, ReduceType; core.ProcessMesh's (shape, process_ids, dim_names) constructor is not here)."""
import builtins
import enum

import torch

from ..framework import dtype as _dtype
from ..framework.dist_attr import OperatorDistAttr, ReduceType, TensorDistAttr  # noqa: F401
from ..framework import flags as _flags
from ..framework.place import (CPUPlace, CUDAPinnedPlace, CUDAPlace, Place, XPUPlace,  # noqa: F401
                               is_compiled_with_cuda, is_compiled_with_rocm, is_compiled_with_xpu)
from ..framework.random import Generator, GeneratorState  # noqa: F401
from ..framework.tensor import Tensor as _Tensor
from ..static.scope import LoDTensor, Scope  # noqa: F401
from ..static.serialization.framework_pb2 import VarType as _PbVarType


class _VarTypeEnum(enum.IntEnum):
    def __str__(self):
        # as in Paddle, a dtype member prints as the dtype ("paddle.float32")
        d = _dtype._FROM_PROTO.get(int(self))
        return str(d) if d is not None else f"VarType.{self.name}"


class VarDesc:
    """Only ``VarDesc.VarType``: Paddle's variable-type enum, numbered as in framework.proto. Its dtype members
    convert like dtypes (``paddle.cast(x, VarType.FP64)``, ``convert_dtype(VarType.FP32) == 'float32'``)."""
    VarType = _VarTypeEnum("VarType", list(_PbVarType.Type.items()), module=__name__, qualname="VarDesc.VarType")


class _Undefined:
    def __repr__(self):
        return "DataType.UNDEFINED"


class DataType:
    """Paddle 3's DataType: its members are the dtypes themselves (``DataType.FLOAT32 is paddle.float32``)."""
    UNDEFINED = _Undefined()


for _name, _paddle_name in [("BOOL", "bool"), ("UINT8", "uint8"), ("INT8", "int8"), ("INT16", "int16"),
                            ("INT32", "int32"), ("INT64", "int64"), ("FLOAT16", "float16"), ("FLOAT32", "float32"),
                            ("FLOAT64", "float64"), ("BFLOAT16", "bfloat16"), ("COMPLEX64", "complex64"),
                            ("COMPLEX128", "complex128"), ("FLOAT8_E4M3FN", "float8_e4m3fn"),
                            ("FLOAT8_E5M2", "float8_e5m2")]:
    setattr(DataType, _name, _dtype.DTYPES[_paddle_name])
    globals()[_name] = _dtype.DTYPES[_paddle_name]   # core.FLOAT32, as in Paddle
del _name, _paddle_name


class eager:  # noqa: N801 - Paddle's module name
    """``core.eager.Tensor`` is the Tensor class."""
    Tensor = _Tensor


# the value of a scope variable: ``set(array, place)``, ``np.array(t)``, ``shape()``, ``lod()``
DenseTensor = LoDTensor


class _FlagRegistry:
    """``core.globals()``: the flags as a mapping, read and written through get_flags/set_flags."""

    def __getitem__(self, name):
        try:
            return _flags.get_flags(name)[name]
        except ValueError:
            raise KeyError(name) from None

    def __setitem__(self, name, value):
        _flags.set_flags({name: value})

    def __contains__(self, name):
        try:
            _flags.get_flags(name)
        except (ValueError, TypeError):
            return False
        return True

    def get(self, name, default=None):
        return self[name] if name in self else default

    def keys(self):
        return list(_flags._VALUES)

    def is_public(self, name):
        return name in self


_REGISTRY = _FlagRegistry()


def globals():  # noqa: A001 - Paddle's name
    return _REGISTRY


def default_cpu_generator():
    return Generator("cpu")


def default_cuda_generator(device_id=0):
    return Generator(device_id)


def get_cuda_device_count():
    return torch.cuda.device_count() if torch.cuda.is_available() else 0


def is_float16_supported(place=None):
    # Paddle's CPU kernels lack float16 for many ops; it reports False there
    return place is not None and not isinstance(place, CPUPlace) and is_compiled_with_cuda()


def is_bfloat16_supported(place=None):
    return True


def is_compiled_with_distribute():
    return torch.distributed.is_available()


def is_compiled_with_nccl():
    return torch.distributed.is_available() and torch.distributed.is_nccl_available()


def is_compiled_with_custom_device(device_type=None):
    return False


def is_compiled_with_cinn():
    return False


def is_compiled_with_ipu():
    return False


def is_compiled_with_mkldnn():
    return builtins.bool(torch.backends.mkldnn.is_available())


def avx_supported():
    return True


def get_all_op_names():
    from ..ops.registry import REGISTRY
    return sorted(REGISTRY)
