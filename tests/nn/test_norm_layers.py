"""Normalization layers vs real PaddlePaddle 3.3.1 with the same weights and inputs: outputs, input and
weight gradients, running statistics over training steps, eval outputs, state_dict keys/shapes/names, repr,
data formats, initial values and errors (cases in norm_layer_cases.py)."""

import numpy as np
import pytest

import torchpaddle as paddle
import paddle_ref
from tests.nn import norm_layer_cases as cases
from tests.nn.layer_case_tools import compare, run_cases, split_fields


@pytest.fixture(scope="module")
def reference():
    return paddle_ref.results("tests.nn.norm_layer_cases")


@pytest.fixture(scope="module")
def ours():
    return run_cases(cases.CASES, paddle)


# Gradients where the batch_norm / group_norm ops (nn.functional's, not these layers) still differ from
# Paddle's kernels; everything else in these cases (outputs, running statistics, state) is compared.
KNOWN_GAPS = {
    # Paddle computes no bias gradient when batch_norm has no scale
    "batchnorm_fluid_named_2d": ("param_grads",),
    # is_test with trainable_statistics: Paddle's backward treats the freshly updated running variance as fixed
    "batchnorm_fluid_trainable_statistics": ("x_grad", "param_grads"),
    "bn2d_eval_batch_stats": ("x_grad", "param_grads"),
    # Paddle's group_norm gradient without a scale differs from the one with scale = 1
    "groupnorm_no_affine_5d": ("x_grad",),
}


@pytest.mark.conformance
@pytest.mark.parametrize("name", sorted(cases.CASES))
def test_matches_real_paddle(name, reference, ours):
    fields = KNOWN_GAPS.get(name, ())
    compare(split_fields(ours[name], fields)[0], split_fields(reference[name], fields)[0], name)


@pytest.mark.conformance
@pytest.mark.xfail(strict=True, reason="functional batch_norm/group_norm gradient gaps (see KNOWN_GAPS)")
@pytest.mark.parametrize("name", sorted(KNOWN_GAPS))
def test_known_gradient_gaps(name, reference, ours):
    compare(split_fields(ours[name], KNOWN_GAPS[name])[1], split_fields(reference[name], KNOWN_GAPS[name])[1], name)



def _batch(shape, seed=0):
    return paddle.to_tensor(np.random.default_rng(seed).uniform(-2, 2, shape).astype("float32"))


def test_running_statistics_follow_momentum():
    # Paddle's running variance takes the biased batch variance
    bn = paddle.nn.BatchNorm2D(3, momentum=0.8)
    x = _batch([4, 3, 2, 2])
    bn(x)
    data = x.numpy().transpose(1, 0, 2, 3).reshape(3, -1)
    np.testing.assert_allclose(bn._mean.numpy(), 0.2 * data.mean(1), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(bn._variance.numpy(), 0.8 + 0.2 * data.var(1), rtol=1e-5)
    bn.eval()
    before = bn._mean.numpy().copy()
    bn(x)
    np.testing.assert_array_equal(bn._mean.numpy(), before)


def test_statistics_are_frozen_parameters():
    bn = paddle.nn.BatchNorm1D(4)
    assert [n for n, _ in bn.named_parameters()] == ["weight", "bias", "_mean", "_variance"]
    assert bn._mean.stop_gradient and not bn._mean.trainable and bn._variance.persistable
    out = bn(_batch([5, 4]))
    out.sum().backward()
    assert bn._mean.grad is None and bn.weight.grad is not None


def test_sync_batch_norm_is_batch_norm_in_one_process():
    sync, plain = paddle.nn.SyncBatchNorm(3), paddle.nn.BatchNorm2D(3)
    plain.set_state_dict(sync.state_dict())
    for seed in range(3):
        x = _batch([4, 3, 3, 3], seed)
        np.testing.assert_allclose(sync(x).numpy(), plain(x).numpy(), rtol=1e-6)
    np.testing.assert_allclose(sync._variance.numpy(), plain._variance.numpy(), rtol=1e-6)
    sync.eval(), plain.eval()
    np.testing.assert_allclose(sync(x).numpy(), plain(x).numpy(), rtol=1e-6)
    x3 = _batch([4, 5, 3], 7)
    np.testing.assert_allclose(paddle.nn.SyncBatchNorm(3, data_format="NLC")(x3).numpy(),
                               paddle.nn.BatchNorm1D(3, data_format="NLC")(x3).numpy(), rtol=1e-6)


def test_convert_sync_batchnorm_keeps_tensors():
    model = paddle.nn.Sequential(paddle.nn.Conv2D(2, 3, 1), paddle.nn.BatchNorm2D(3))
    bn = model[1]
    converted = paddle.nn.SyncBatchNorm.convert_sync_batchnorm(model)
    assert isinstance(converted[1], paddle.nn.SyncBatchNorm) and converted[1].weight is bn.weight
    assert converted[1]._variance is bn._variance and converted[0] is model[0]


def test_fluid_batch_norm_activation_errors():
    with pytest.raises(AttributeError, match="act"):
        paddle.nn.BatchNorm(3, act="no_such_activation")(_batch([2, 3]))


def test_group_norm_zero_learning_rate_freezes():
    gn = paddle.nn.GroupNorm(2, 4, weight_attr=paddle.ParamAttr(learning_rate=0.0))
    assert gn.weight.stop_gradient and not gn.bias.stop_gradient


def test_default_dtype_is_followed():
    paddle.set_default_dtype("float64")
    try:
        for layer in (paddle.nn.BatchNorm2D(2), paddle.nn.LayerNorm(3), paddle.nn.GroupNorm(1, 2),
                      paddle.nn.InstanceNorm1D(2)):
            assert all(p.dtype == paddle.float64 for p in layer.parameters()), layer
        assert paddle.nn.BatchNorm(2).weight.dtype == paddle.float32  # fluid BatchNorm: dtype argument
    finally:
        paddle.set_default_dtype("float32")


def test_spectral_norm_leaves_vectors_alone():
    sn = paddle.nn.SpectralNorm([3, 4], power_iters=2)
    u = sn.weight_u.numpy().copy()
    w = _batch([3, 4])
    out = sn(w)
    np.testing.assert_array_equal(sn.weight_u.numpy(), u)
    np.testing.assert_allclose(np.linalg.svd(out.numpy(), compute_uv=False)[0], 1.0, rtol=0.2)
