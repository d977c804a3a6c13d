"""Pooling layers vs real PaddlePaddle 3.3.1: outputs, masks and input gradients, repr, data formats,
padding forms, ceil_mode/exclusive/divisor_override and errors (cases in pool_layer_cases.py)."""

import numpy as np
import pytest

import torchpaddle as paddle
import paddle_ref
from tests.nn import pool_layer_cases as cases
from tests.nn.layer_case_tools import compare, run_cases


@pytest.fixture(scope="module")
def reference():
    return paddle_ref.results("tests.nn.pool_layer_cases")


@pytest.fixture(scope="module")
def ours():
    return run_cases(cases.CASES, paddle)


@pytest.mark.conformance
@pytest.mark.parametrize("name", sorted(cases.CASES))
def test_matches_real_paddle(name, reference, ours):
    if name.startswith("unpool") and not hasattr(paddle.nn, f"MaxUnPool{name[6]}D"):
        pytest.skip("nn.functional has no max_unpool yet, so MaxUnPool layers are not published")
    compare(ours[name], reference[name], name)


def test_config_attributes_match_paddle_names():
    pool = paddle.nn.MaxPool2D(3, 2, 1)
    assert (pool.ksize, pool.stride, pool.padding, pool.return_mask, pool.data_format) == (3, 2, 1, False, "NCHW")
    assert paddle.nn.AvgPool3D(2, divisor_override=4).divisor == 4
    assert paddle.nn.AvgPool1D(2).kernel_size == 2
    adaptive = paddle.nn.AdaptiveAvgPool2D(3)
    adaptive.output_size = 2
    assert adaptive(paddle.ones([1, 1, 5, 5])).shape == [1, 1, 2, 2]
    mp = paddle.nn.AdaptiveMaxPool2D(2)
    mp.return_indices = True
    out, mask = mp(paddle.ones([1, 1, 4, 4]))
    assert mask.dtype == paddle.int32 and out.shape == [1, 1, 2, 2]


def test_pool_layers_hold_no_state():
    for layer in (paddle.nn.AvgPool2D(2), paddle.nn.MaxPool1D(2), paddle.nn.AdaptiveMaxPool3D(1)):
        assert layer.state_dict() == {} and layer.parameters() == []


def test_gradient_flows_to_argmax_only():
    x = paddle.to_tensor(np.array([[[1.0, 3.0, 2.0, 0.0]]], "float32"), stop_gradient=False)
    paddle.nn.MaxPool1D(2)(x).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[[0, 1, 1, 0]]])
