"""paddle.nn.utils vs real PaddlePaddle 3.3.1 (cases in nn_utils_cases.py): weight_norm / remove_weight_norm and
spectral_norm (state_dict layout, buffers, outputs and gradients, power-iteration updates), parameters_to_vector
/ vector_to_parameters and clip_grad_norm_ / clip_grad_value_."""

import numpy as np
import pytest

import torchpaddle as paddle
import paddle_ref
from tests.nn import nn_utils_cases as cases
from tests.nn.layer_case_tools import compare, run_cases


reference, ours, test_matches_real_paddle = paddle_ref.case_table(
    "tests.nn.nn_utils_cases", cases.CASES, lambda: run_cases(cases.CASES, paddle), compare)


@pytest.mark.parametrize("name", sorted(cases.CASES))
def test_case_runs(name, ours):
    assert not (isinstance(ours[name], tuple) and ours[name][0] == "E"), f"{name} raised {ours[name][1]}"


def test_weight_norm_reconstructs_weight_and_trains_g_and_v():
    conv = paddle.nn.Conv2D(2, 3, 3)
    w = conv.weight.numpy().copy()
    paddle.nn.utils.weight_norm(conv, dim=0)
    np.testing.assert_allclose(conv.weight.numpy(), w, rtol=1e-5, atol=1e-6)
    norms = np.sqrt((w.reshape(3, -1) ** 2).sum(1) + 1e-12)
    np.testing.assert_allclose(conv.weight_g.numpy(), norms, rtol=1e-6)
    out = conv(paddle.ones([1, 2, 4, 4]))
    out.sum().backward()
    assert conv.weight_g.grad is not None and conv.weight_v.grad is not None
    assert "weight" not in conv.state_dict() and conv.weight.stop_gradient is False


def test_spectral_norm_divides_by_the_top_singular_value():
    layer = paddle.nn.Conv2D(3, 4, 3)
    paddle.nn.utils.spectral_norm(layer, n_power_iterations=50)
    layer(paddle.ones([1, 3, 5, 5]))
    matrix = layer.weight.numpy().reshape(4, -1)
    assert abs(np.linalg.svd(matrix, compute_uv=False)[0] - 1.0) < 1e-3


def test_clip_grad_norm_matches_numpy():
    rng = np.random.default_rng(0)
    grads = [rng.standard_normal(s).astype("float32") for s in ([3, 4], [5])]
    params = cases._grads(paddle, grads)
    total = paddle.nn.utils.clip_grad_norm_(params, max_norm=0.5)
    expected = np.sqrt(sum((g.astype(np.float64) ** 2).sum() for g in grads))
    np.testing.assert_allclose(float(total), expected, rtol=1e-5)
    for p, g in zip(params, grads):
        np.testing.assert_allclose(p.grad.numpy(), g * 0.5 / (expected + 1e-6), rtol=1e-5)
