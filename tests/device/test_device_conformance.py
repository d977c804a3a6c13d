"""paddle.device on the CPU vs real PaddlePaddle 3.3.1 (cases in device_cases.py, one reference process)."""
import pytest
import torch

import torchpaddle as paddle
import paddle_ref
from tests.device import device_cases as cases
from tests.nn.layer_case_tools import compare, run_cases

pytestmark = pytest.mark.skipif(torch.cuda.is_available(), reason="the reference is Paddle's CPU build; with a "
                                "GPU current, the answers differ")

reference, ours, test_matches_real_paddle = paddle_ref.case_table(
    "tests.device.device_cases", cases.CASES, lambda: run_cases(cases.CASES, paddle), compare)
