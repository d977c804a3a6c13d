"""Activation and common layers vs real PaddlePaddle 3.3.1 (cases in basic_layer_cases.py): repr, state_dict
keys/shapes/names, outputs, input and weight gradients with the same weights, initializer statistics, train/eval
behaviour and construction errors; plus torchpaddle-only checks."""
import inspect

import numpy as np
import pytest

import torchpaddle as paddle
import paddle_ref
from tests.nn import basic_layer_cases as cases
from tests.nn.layer_case_tools import compare, run_cases

nn = paddle.nn


@pytest.fixture(scope="module")
def reference():
    return paddle_ref.results("tests.nn.basic_layer_cases")


@pytest.fixture(scope="module")
def ours():
    return run_cases(cases.CASES, paddle)


def _require_functional(name):
    # the layers are only as complete as the nn.functional they call
    if name.startswith("pairwise_distance") and not hasattr(paddle.nn.functional, "pairwise_distance"):
        pytest.skip("nn.functional.pairwise_distance is not implemented yet")


@pytest.mark.conformance
@pytest.mark.parametrize("name", sorted(cases.CASES))
def test_matches_real_paddle(name, reference, ours):
    _require_functional(name)
    compare(ours[name], reference[name], name)


@pytest.mark.parametrize("name", sorted(set(cases.CASES) - set(cases.ERRORS)))
def test_case_runs(name, ours):
    _require_functional(name)
    assert not (isinstance(ours[name], tuple) and ours[name][0] == "E"), f"{name} raised {ours[name][1]}"


SIGNATURES = {
    "CELU": "(alpha=1.0, name=None)", "GLU": "(axis=-1, name=None)", "Maxout": "(groups, axis=1, name=None)",
    "SELU": "(scale=1.0507009873554805, alpha=1.6732632423543772, name=None)", "ReLU": "(name=None)",
    "Softplus": "(beta=1, threshold=20, name=None)", "ThresholdedReLU": "(threshold=1.0, value=0.0, name=None)",
    "ConstantPad2D": "(padding, value, data_format='NCHW', name=None)",
    "Pad3D": "(padding, mode='constant', value=0.0, data_format='NCDHW', name=None)",
    "ZeroPad1D": "(padding, data_format='NCL', name=None)",
}


@pytest.mark.parametrize("cls", sorted(SIGNATURES))
def test_signatures_match_paddle(cls):
    assert str(inspect.signature(getattr(nn, cls))) == SIGNATURES[cls]


def test_activation_argument_errors():
    with pytest.raises(TypeError):
        nn.ELU(1.0, "n", 3)
    with pytest.raises(TypeError):
        nn.Maxout()
    with pytest.raises(TypeError):
        nn.ReLU(alpha=1.0)


def test_dropout_train_and_eval():
    paddle.seed(0)
    x = paddle.ones([400, 50])
    layer = nn.Dropout(0.3)
    y = layer(x).numpy()
    np.testing.assert_allclose(y[y != 0], 1 / 0.7, rtol=1e-6)
    assert abs((y == 0).mean() - 0.3) < 0.02
    layer.eval()
    np.testing.assert_array_equal(layer(x).numpy(), x.numpy())
    down = nn.Dropout(0.3, mode="downscale_in_infer").eval()
    np.testing.assert_allclose(down(x).numpy(), 0.7)


def test_embedding_padding_row_stays_zero():
    emb = nn.Embedding(5, 3, padding_idx=-1)
    np.testing.assert_array_equal(emb.weight.numpy()[4], 0.0)
    out = emb(paddle.to_tensor(np.array([[4, 1, 4]], "int64")))
    out.sum().backward()
    np.testing.assert_array_equal(emb.weight.grad.numpy()[4], 0.0)
    np.testing.assert_array_equal(emb.weight.grad.numpy()[1], 1.0)


def test_linear_layout_and_dtype():
    lin = nn.Linear(3, 5)
    assert lin.weight.shape == [3, 5] and lin.bias.shape == [5]
    assert float(lin.bias.abs().sum()) == 0.0
    assert np.abs(lin.weight.numpy()).max() <= np.sqrt(6 / 8) + 1e-6
    x = paddle.to_tensor(np.ones([2, 3], "float32"))
    np.testing.assert_allclose(lin(x).numpy(), x.numpy() @ lin.weight.numpy(), rtol=1e-6)
    paddle.set_default_dtype("float64")
    try:
        assert nn.Linear(2, 2).weight.dtype == paddle.float64 and nn.Embedding(2, 2).weight.dtype == paddle.float64
    finally:
        paddle.set_default_dtype("float32")


def test_prelu_and_rrelu_modes():
    prelu = nn.PReLU(2, init=0.5, data_format="NHWC")
    x = paddle.to_tensor(np.array([[[[-2.0, -4.0]]]], "float32"))
    np.testing.assert_allclose(prelu(x).numpy(), [[[[-1.0, -2.0]]]])
    rrelu = nn.RReLU(0.1, 0.3)
    neg = paddle.to_tensor(-np.ones([1000], "float32"))
    slopes = -rrelu(neg).numpy()
    assert slopes.min() >= 0.1 and slopes.max() <= 0.3 and slopes.std() > 0.01
    rrelu.eval()
    np.testing.assert_allclose(rrelu(neg).numpy(), -0.2, rtol=1e-6)
