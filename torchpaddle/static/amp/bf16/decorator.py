"""decorate_bf16: static AMP with bfloat16 (no loss scaling: bfloat16 has float32's range)."""
from ..decorator import OptimizerWithMixedPrecision
from .amp_lists import AutoMixedPrecisionListsBF16

__all__ = ["decorate_bf16"]


def decorate_bf16(optimizer, amp_lists=None, use_pure_bf16=False, use_bf16_guard=None):
    amp_lists = amp_lists or AutoMixedPrecisionListsBF16()
    if use_bf16_guard is None:
        use_bf16_guard = use_pure_bf16
    return OptimizerWithMixedPrecision(optimizer, amp_lists, "O2" if use_pure_bf16 else "O1", "bfloat16", 1.0,
                                       False, 1000, 2, 2.0, 0.8, use_amp_guard=use_bf16_guard)
