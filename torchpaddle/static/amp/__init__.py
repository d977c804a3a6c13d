"""paddle.static.amp: mixed-precision training of static Programs (``decorate``, the op lists, the program
rewrites and the loss-scaling ops); ``bf16`` holds the bfloat16 variants."""
from . import amp_nn, bf16, debugging, decorator, fp16_lists, fp16_utils  # noqa: F401
from .decorator import decorate  # noqa: F401
from .fp16_lists import AutoMixedPrecisionLists, CustomOpLists  # noqa: F401
from .fp16_utils import cast_model_to_fp16, cast_parameters_to_fp16, fp16_guard  # noqa: F401

__all__ = []
