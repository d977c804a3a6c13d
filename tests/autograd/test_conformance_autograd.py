"""The autograd scenarios on real PaddlePaddle 3.3.1 vs torchpaddle: values, dtypes, stop_gradient and
exception types (ours may be a subclass of both Paddle's type and a more precise one)."""

import numpy as np
import pytest

import torchpaddle as paddle
import paddle_ref
from tests.autograd import scenarios

pytestmark = pytest.mark.conformance

@pytest.fixture(scope="module")
def reference():
    return paddle_ref.results("tests.autograd.scenarios")


def _leaf(ours, theirs, where):
    if not (isinstance(theirs, tuple) and theirs and theirs[0] in ("T", "A", "E")):
        return False
    assert isinstance(ours, tuple) and ours and ours[0] == theirs[0], f"{where}: ours {ours!r}, Paddle {theirs!r}"
    if theirs[0] == "E":
        assert theirs[1][0] in ours[1], f"{where}: Paddle raises {theirs[1][0]}, ours {ours[1]}"
        return True
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-5, atol=1e-6, err_msg=where)
    assert np.asarray(ours[1]).shape == np.asarray(theirs[1]).shape, where
    if theirs[0] == "T":
        assert ours[2:] == theirs[2:], f"{where}: (dtype, stop_gradient) ours {ours[2:]}, Paddle {theirs[2:]}"
    return True


def _compare(ours, theirs, where):
    paddle_ref.compare_tree(ours, theirs, where, _leaf)


@pytest.fixture(scope="module")
def ours():
    return scenarios.run_all(paddle)


@pytest.mark.parametrize("name", sorted(scenarios.SCENARIOS))
def test_matches_real_paddle(name, reference, ours):
    _compare(ours[name], reference[name], name)
