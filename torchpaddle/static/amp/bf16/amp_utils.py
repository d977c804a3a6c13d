"""bfloat16 program rewrites: the float16 ones with bfloat16 as the low precision."""
import contextlib

import numpy as np

from ..fp16_utils import cast_model_to_fp16, cast_parameters_to_fp16, fp16_guard
from .amp_lists import AutoMixedPrecisionListsBF16

__all__ = ["bf16_guard", "rewrite_program_bf16", "cast_model_to_bf16", "cast_parameters_to_bf16",
           "convert_float_to_uint16"]


@contextlib.contextmanager
def bf16_guard():
    """Ops built inside compute in bfloat16 when the rewrite uses the guard."""
    with fp16_guard():
        yield


def rewrite_program_bf16(main_prog, amp_lists=None):
    """O1 for bfloat16: bf16-list ops in bfloat16, fp32-list ops in float32, gray ops follow their inputs."""
    cast_model_to_fp16(main_prog, amp_lists or AutoMixedPrecisionListsBF16(), use_fp16_guard=False,
                       dest_type="bfloat16", level="O1")


def cast_model_to_bf16(program, startup_prog=None, amp_lists=None, use_bf16_guard=True):
    """Pure bfloat16 (O2); -> the names of the parameters made bfloat16."""
    return cast_model_to_fp16(program, amp_lists or AutoMixedPrecisionListsBF16(), use_bf16_guard, "bfloat16",
                              level="O2")


def cast_parameters_to_bf16(place, program, scope=None, to_bf16_var_names=None):
    cast_parameters_to_fp16(place, program, scope, to_bf16_var_names, "bfloat16")


def convert_float_to_uint16(in_list):
    """float32 values -> their bfloat16 bit patterns as uint16 (the upper half of each float32, truncated)."""
    values = np.asarray(in_list, dtype=np.float32)
    return np.right_shift(values.view(np.uint32), 16).astype(np.uint16)
