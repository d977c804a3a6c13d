"""paddle.base: the legacy core namespace (``paddle.base.core``, ``framework``, ``dygraph``, ``data_feeder``,
``layer_helper``, ``unique_name``, flags) that Paddle 2.x/3.x code still imports, over torchpaddle's own."""
import sys as _sys

from ..framework.flags import get_flags, set_flags  # noqa: F401
from ..framework.param_attr import ParamAttr, WeightNormParamAttr  # noqa: F401
from ..framework.place import (CPUPlace, CUDAPinnedPlace, CUDAPlace, XPUPlace, is_compiled_with_cuda,  # noqa: F401
                               is_compiled_with_rocm, is_compiled_with_xpu)
from ..framework.tensor import Tensor  # noqa: F401
from ..nn.initializer import set_global_initializer  # noqa: F401
from ..static import (BuildStrategy, CompiledProgram, Executor, Program, Scope, Variable,  # noqa: F401
                      append_backward, cpu_places, cuda_places, default_main_program, default_startup_program,
                      device_guard, global_scope, gradients, name_scope, program_guard, scope_guard)
from ..utils import unique_name
from . import core, framework, data_feeder, layer_helper, dygraph, dygraph_utils, param_attr  # noqa: F401
from . import executor, compiler  # noqa: F401
from .core import DenseTensor, LoDTensor  # noqa: F401
from .dygraph.base import disable_dygraph, enable_dygraph  # noqa: F401
from .framework import in_dygraph_mode, in_dynamic_or_pir_mode, in_pir_mode  # noqa: F401

# ``paddle.base.unique_name`` is ``paddle.utils.unique_name`` (one counter table)
_sys.modules.setdefault(__name__ + ".unique_name", unique_name)
enable_imperative = enable_dygraph
disable_imperative = disable_dygraph


def is_compiled_with_cinn():
    return False


__all__ = []
