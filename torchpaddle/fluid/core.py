"""fluid.core: what Paddle 1.x user code reaches for in the C++ core module (LoDTensor, Scope, places,
VarDesc.VarType, the flag registry), from torchpaddle's paddle.base.core."""
from ..base.core import *  # noqa: F401,F403
from ..base.core import (CPUPlace, CUDAPinnedPlace, CUDAPlace, LoDTensor, Scope, VarDesc,  # noqa: F401
                         get_cuda_device_count, globals, is_compiled_with_cuda)
from .lod_tensor import LoDTensorArray  # noqa: F401

Tensor = LoDTensor
from .reader import EOFException  # noqa: F401,E402
