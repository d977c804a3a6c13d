"""paddle.utils and paddle.hub vs real PaddlePaddle 3.3.1 (cases in utils_cases.py, one reference process)."""
import pytest

import torchpaddle as paddle
import paddle_ref
from tests.utils import utils_cases as cases
from tests.nn.layer_case_tools import compare, run_cases


def _compare(ours, theirs, name):
    if name == "run_check" and paddle.device.cuda.device_count():
        pytest.skip("the reference is Paddle's CPU build")
    compare(ours, theirs, name)


reference, ours, test_matches_real_paddle = paddle_ref.case_table(
    "tests.utils.utils_cases", cases.CASES, lambda: run_cases(cases.CASES, paddle), _compare)
