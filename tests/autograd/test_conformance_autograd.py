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


def _compare(ours, theirs, where):
    if isinstance(theirs, tuple) and theirs and theirs[0] in ("T", "A", "E"):
        assert isinstance(ours, tuple) and ours and ours[0] == theirs[0], f"{where}: ours {ours!r}, Paddle {theirs!r}"
        if theirs[0] == "E":
            assert theirs[1][0] in ours[1], f"{where}: Paddle raises {theirs[1][0]}, ours {ours[1]}"
            return
        np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-5, atol=1e-6, err_msg=where)
        assert np.asarray(ours[1]).shape == np.asarray(theirs[1]).shape, where
        if theirs[0] == "T":
            assert ours[2:] == theirs[2:], f"{where}: (dtype, stop_gradient) ours {ours[2:]}, Paddle {theirs[2:]}"
    elif isinstance(theirs, dict):
        assert isinstance(ours, dict) and sorted(ours) == sorted(theirs), f"{where}: {ours!r} vs {theirs!r}"
        for key in theirs:
            _compare(ours[key], theirs[key], f"{where}.{key}")
    elif isinstance(theirs, (list, tuple)):
        assert isinstance(ours, (list, tuple)) and len(ours) == len(theirs), f"{where}: {ours!r} vs {theirs!r}"
        for i, (o, t) in enumerate(zip(ours, theirs)):
            _compare(o, t, f"{where}[{i}]")
    else:
        assert ours == theirs and type(ours) is type(theirs), f"{where}: ours {ours!r}, Paddle {theirs!r}"


@pytest.fixture(scope="module")
def ours():
    return scenarios.run_all(paddle)


@pytest.mark.parametrize("name", sorted(scenarios.SCENARIOS))
def test_matches_real_paddle(name, reference, ours):
    _compare(ours[name], reference[name], name)
