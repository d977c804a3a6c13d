"""Conv1D/2D/3D and transposes vs real PaddlePaddle 3.3.1: outputs, input and weight gradients with the same
weights, state_dict keys/shapes/names, repr, data formats, padding forms, groups/dilation, initializer
statistics and construction errors (cases in conv_layer_cases.py)."""

import numpy as np
import pytest

import torchpaddle as paddle
import paddle_ref
from tests.nn import conv_layer_cases as cases
from tests.nn.layer_case_tools import compare, run_cases


reference, ours, test_matches_real_paddle = paddle_ref.case_table(
    "tests.nn.conv_layer_cases", cases.CASES, lambda: run_cases(cases.CASES, paddle), compare)


def test_parameter_layout_and_defaults():
    conv = paddle.nn.Conv2D(4, 6, (3, 2), groups=2)
    assert [(k, v.shape) for k, v in conv.state_dict().items()] == [("weight", [6, 2, 3, 2]), ("bias", [6])]
    assert not conv.weight.stop_gradient and conv.bias.dtype == paddle.float32
    assert float(conv.bias.abs().sum()) == 0.0
    tconv = paddle.nn.Conv3DTranspose(4, 6, 2, groups=2)
    assert tconv.weight.shape == [4, 3, 2, 2, 2]
    assert paddle.nn.Conv1D(3, 4, 3, bias=False).bias is None


def test_dtype_and_default_dtype():
    assert paddle.nn.Conv2D(2, 2, 1, dtype="float64").weight.dtype == paddle.float64
    paddle.set_default_dtype("float64")
    try:
        conv = paddle.nn.Conv1D(2, 3, 1)
        assert conv.weight.dtype == paddle.float64
        out = conv(paddle.ones([1, 2, 4], dtype="float64"))
        assert out.dtype == paddle.float64
    finally:
        paddle.set_default_dtype("float32")


def test_param_attr_initializer_and_name():
    weight_attr = paddle.ParamAttr(name="w", initializer=paddle.nn.initializer.Constant(0.5))
    conv = paddle.nn.Conv2D(2, 3, 1, weight_attr=weight_attr, bias_attr=paddle.nn.initializer.Constant(0.25))
    assert conv.weight.name == "w"
    np.testing.assert_allclose(conv.weight.numpy(), 0.5)
    np.testing.assert_allclose(conv(paddle.ones([1, 2, 2, 2])).numpy(), 1.25)


def test_output_padding_follows_output_size():
    layer = paddle.nn.Conv2DTranspose(2, 2, 3, stride=2, output_padding=1)
    x = paddle.ones([1, 2, 4, 4])
    assert layer(x).shape == [1, 2, 10, 10]
    assert layer(x, output_size=[9, 9]).shape == [1, 2, 9, 9]


def test_errors_name_the_layer():
    with pytest.raises(ValueError, match="Conv2D.*in_channels"):
        paddle.nn.Conv2D(3, 4, 3, groups=2)
    with pytest.raises(AssertionError):
        paddle.nn.Conv1D(3, 4, 3, weight_attr=False)
    with pytest.raises(TypeError, match="padding_mode"):
        paddle.nn.Conv3D(3, 4, 3, padding=(1, 1, 1), padding_mode="circular")
    with pytest.raises(ValueError, match="out_channels"):
        paddle.nn.Conv2DTranspose(4, 6, 3, groups=4)
