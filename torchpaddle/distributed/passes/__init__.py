"""paddle.distributed.passes: ``new_pass``, ``PassManager``, ``PassContext`` and the Strategy's program passes
(``auto_parallel_amp``, ``auto_parallel_fp16``, ``auto_parallel_recompute``,
``auto_parallel_gradient_merge_pass``) on torchpaddle/static/passes/."""
from . import pass_base  # noqa: F401
from .pass_base import PassContext, PassManager, new_pass  # noqa: F401
from .program_passes import AMPPass, FP16Pass, GradientMergePass, RecomputePass  # noqa: F401

__all__ = ["new_pass", "PassManager", "PassContext"]
