"""Loss layers vs real PaddlePaddle 3.3.1 (cases in loss_layer_cases.py): loss values for every reduction,
input and parameter gradients, repr, state_dict and construction errors; plus torchpaddle-only checks."""

import numpy as np
import pytest

import torchpaddle as paddle
import paddle_ref
from tests.nn import loss_layer_cases as cases
from tests.nn.layer_case_tools import compare, run_cases

nn = paddle.nn


@pytest.fixture(scope="module")
def reference():
    return paddle_ref.results("tests.nn.loss_layer_cases")


@pytest.fixture(scope="module")
def ours():
    return run_cases(cases.CASES, paddle)


def _functional(name):
    """The nn.functional loss a case's layer calls (the layer is only as complete as it)."""
    if name == "adaptive_log_softmax":
        return "adaptive_log_softmax_with_loss"
    if name in cases.LOSSES:
        return getattr(cases.LOSSES[name][0](paddle), "_fn", None)
    return None


def _require_functional(name):
    fn = _functional(name)
    if fn is not None and not hasattr(paddle.nn.functional, fn):
        pytest.skip(f"nn.functional.{fn} is not implemented yet")


@pytest.mark.conformance
@pytest.mark.parametrize("name", sorted(cases.CASES))
def test_matches_real_paddle(name, reference, ours):
    _require_functional(name)
    compare(ours[name], reference[name], name, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("name", sorted(set(cases.CASES) - {n for n in cases.ERRORS if n.startswith("err_")}))
def test_case_runs(name, ours):
    _require_functional(name)
    assert not (isinstance(ours[name], tuple) and ours[name][0] == "E"), f"{name} raised {ours[name][1]}"


def test_losses_against_numpy():
    rng = np.random.default_rng(1)
    x, y = rng.uniform(-1, 1, [4, 3]).astype("float32"), rng.uniform(-1, 1, [4, 3]).astype("float32")
    tx, ty = paddle.to_tensor(x), paddle.to_tensor(y)
    np.testing.assert_allclose(float(nn.MSELoss()(tx, ty)), ((x - y) ** 2).mean(), rtol=1e-6)
    np.testing.assert_allclose(float(nn.L1Loss("sum")(tx, ty)), np.abs(x - y).sum(), rtol=1e-6)
    logits, label = rng.uniform(-2, 2, [5, 4]).astype("float32"), np.array([0, 3, 1, 2, 3])
    logp = logits - np.log(np.exp(logits).sum(1, keepdims=True))
    ce = nn.CrossEntropyLoss()(paddle.to_tensor(logits), paddle.to_tensor(label))
    np.testing.assert_allclose(float(ce), -logp[np.arange(5), label].mean(), rtol=1e-5)


def test_loss_weight_is_a_buffer_and_follows_to():
    loss = nn.BCELoss(weight=paddle.to_tensor(np.ones(3, "float32")))
    assert [k for k, _ in loss.named_buffers()] == ["weight"] and list(loss.state_dict()) == []
    loss.to(dtype="float64")
    assert loss.weight.dtype == paddle.float64


def test_triplet_with_distance_uses_the_distance_function():
    # NOTE: Paddle 3.3.1's layer drops distance_function; we pass it on.
    _require_functional("triplet_distance")
    calls = []

    def l1(a, b):
        calls.append(1)
        return (a - b).abs().sum(-1)

    a, p, n = (paddle.to_tensor(np.full([2, 3], v, "float32")) for v in (0.0, 1.0, 3.0))
    out = nn.TripletMarginWithDistanceLoss(distance_function=l1, margin=1.0)(a, p, n)
    assert calls and float(out) == 0.0  # max(3 - 9 + 1, 0)


def test_reduction_errors_name_the_layer():
    with pytest.raises(ValueError, match="MSELoss"):
        nn.MSELoss("avg")
    with pytest.raises(TypeError):
        nn.L1Loss("mean", None, 3)
