"""paddle.common_ops_import: the names Paddle's op wrappers (and code copied from them) import in one line."""
from . import base  # noqa: F401
from .base import core  # noqa: F401
from .base import dygraph_utils  # noqa: F401
from .base.core import VarDesc  # noqa: F401
from .base.data_feeder import check_dtype, check_type, check_variable_and_dtype, convert_dtype  # noqa: F401
from .base.framework import (OpProtoHolder, Variable, _create_tensor, _dygraph_tracer,  # noqa: F401
                             convert_np_dtype_to_dtype_, default_main_program, device_guard, dygraph_only,
                             in_dygraph_mode)
from .base.layer_helper import LayerHelper  # noqa: F401
from .framework.param_attr import ParamAttr  # noqa: F401

__all__ = []
