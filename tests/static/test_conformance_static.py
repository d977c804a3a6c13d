"""The static scenarios (tests/static/static_scenarios.py) on real PaddlePaddle 3.3.1's legacy static graph vs
torchpaddle: values (rtol 1e-5), names, op lists and exception types."""

import numpy as np
import pytest

import torchpaddle as paddle
import paddle_ref
from tests.static import static_scenarios as scenarios

pytestmark = pytest.mark.conformance


@pytest.fixture(scope="module")
def reference():
    return paddle_ref.results("tests.static.static_scenarios")


@pytest.fixture(scope="module")
def ours():
    return scenarios.run_all(paddle)


def _leaf(ours, theirs, where):
    if not isinstance(theirs, (np.ndarray, float)):
        return False
    ours_a, theirs_a = np.asarray(ours), np.asarray(theirs)
    assert ours_a.shape == theirs_a.shape, f"{where}: shape {ours_a.shape} vs Paddle {theirs_a.shape}"
    assert ours_a.dtype == theirs_a.dtype, f"{where}: dtype {ours_a.dtype} vs Paddle {theirs_a.dtype}"
    np.testing.assert_allclose(ours_a, theirs_a, rtol=1e-5, atol=1e-6, err_msg=where)
    return True


def _compare(ours, theirs, where):
    paddle_ref.compare_tree(ours, theirs, where, _leaf)


@pytest.mark.parametrize("name", sorted(scenarios.SCENARIOS))
def test_matches_real_paddle(name, reference, ours):
    theirs = reference[name]
    if isinstance(theirs, tuple) and theirs and theirs[0] == "E" and len(theirs) == 3:
        pytest.fail(f"the scenario fails on real Paddle: {theirs}")
    _compare(ours[name], theirs, name)
