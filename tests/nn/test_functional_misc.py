"""nn.functional behaviour outside the op table: in-place activations, the out= keyword, batch_norm's running
statistics, embedding's max_norm renormalisation and padding gradient, ctc_loss's norm_by_times gradient.
Expected numbers follow Paddle 3.3.1 (checked against it when these tests were written)."""
import numpy as np
import pytest

import torchpaddle as paddle

F = paddle.nn.functional


@pytest.mark.parametrize("name, kwargs, ref", [
    ("relu_", {}, lambda x: np.maximum(x, 0)),
    ("elu_", {"alpha": 0.5}, lambda x: np.where(x > 0, x, 0.5 * np.expm1(x))),
    ("leaky_relu_", {"negative_slope": 0.1}, lambda x: np.where(x > 0, x, 0.1 * x)),
    ("hardtanh_", {"min": -0.5, "max": 0.5}, lambda x: np.clip(x, -0.5, 0.5)),
    ("thresholded_relu_", {"threshold": 0.2}, lambda x: np.where(x > 0.2, x, 0)),
    ("softmax_", {"axis": 0}, lambda x: np.exp(x) / np.exp(x).sum(0)),
    ("tanh_", {}, np.tanh),
])
def test_inplace_activations(name, kwargs, ref):
    data = np.array([[-1.5, -0.1, 0.3], [0.8, 2.0, -0.7]], dtype="float32")
    x = paddle.to_tensor(data)
    out = getattr(F, name)(x, **kwargs)
    assert out is x
    np.testing.assert_allclose(x.numpy(), ref(data), rtol=1e-6)
    leaf = paddle.to_tensor(data, stop_gradient=False)
    with pytest.raises(ValueError):
        getattr(F, name)(leaf, **kwargs)


def test_inplace_inside_a_graph_keeps_gradients():
    x = paddle.to_tensor([-1.0, 2.0], stop_gradient=False)
    y = x * 3
    F.relu_(y)
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [0.0, 3.0])


def test_elu_inplace_rejects_negative_alpha():
    with pytest.raises(AssertionError):
        F.elu_(paddle.to_tensor([1.0, -1.0]), alpha=-1.0)


def test_out_keyword():
    x = paddle.to_tensor([[1.0, 2.0]])
    out = paddle.zeros([1, 2])
    assert F.softmax(x, out=out) is out
    np.testing.assert_allclose(out.numpy(), [[0.26894142, 0.73105858]], rtol=1e-6)
    assert F.sigmoid(x, out=out) is out
    np.testing.assert_allclose(out.numpy(), [[0.7310586, 0.8807971]], rtol=1e-6)
    assert F.normalize(x, out=out) is out


def test_batch_norm_updates_running_statistics():
    data = np.random.default_rng(0).uniform(size=(4, 3, 2, 2)).astype("float32")
    mean, var = paddle.zeros([3]), paddle.ones([3])
    F.batch_norm(paddle.to_tensor(data), mean, var, training=True, momentum=0.9)
    # running = momentum * running + (1 - momentum) * batch statistic, with the biased batch variance
    np.testing.assert_allclose(mean.numpy(), 0.1 * data.mean(axis=(0, 2, 3)), rtol=1e-5)
    np.testing.assert_allclose(var.numpy(), 0.9 + 0.1 * data.var(axis=(0, 2, 3)), rtol=1e-5)
    # inference and use_global_stats=True leave them alone; use_global_stats=False in inference updates them
    before = mean.numpy().copy()
    F.batch_norm(paddle.to_tensor(data), mean, var)
    F.batch_norm(paddle.to_tensor(data), mean, var, training=True, use_global_stats=True)
    np.testing.assert_array_equal(mean.numpy(), before)
    F.batch_norm(paddle.to_tensor(data), mean, var, training=False, use_global_stats=False)
    assert not np.allclose(mean.numpy(), before)


def test_batch_norm_channel_last_statistics():
    data = np.random.default_rng(1).uniform(size=(4, 2, 2, 3)).astype("float32")
    mean, var = paddle.zeros([3]), paddle.ones([3])
    out = F.batch_norm(paddle.to_tensor(data), mean, var, training=True, momentum=0.5, data_format="NHWC")
    np.testing.assert_allclose(mean.numpy(), 0.5 * data.mean(axis=(0, 1, 2)), rtol=1e-5)
    np.testing.assert_allclose(out.numpy().mean(axis=(0, 1, 2)), 0, atol=1e-6)


def test_embedding_max_norm_renormalises_looked_up_rows():
    weight = paddle.to_tensor(np.arange(12.0, dtype="float32").reshape(3, 4))
    out = F.embedding(paddle.to_tensor([[0, 1]]), weight, max_norm=1.0)
    w = weight.numpy()
    np.testing.assert_allclose(np.linalg.norm(w[:2], axis=1), 1.0, rtol=1e-5)
    np.testing.assert_array_equal(w[2], [8, 9, 10, 11])     # not looked up: untouched
    np.testing.assert_allclose(out.numpy()[0], w[:2])
    np.testing.assert_allclose(w[0], [0.0, 0.26726124, 0.5345225, 0.8017837], rtol=1e-6)


def test_embedding_padding_row_is_zero_and_gets_no_gradient():
    weight = paddle.to_tensor(np.ones((3, 2), dtype="float32"), stop_gradient=False)
    out = F.embedding(paddle.to_tensor([0, 2, 2, 1]), weight, padding_idx=2, sparse=True)
    np.testing.assert_array_equal(out.numpy()[1:3], 0)
    out.sum().backward()
    np.testing.assert_array_equal(weight.grad.numpy(), [[1, 1], [1, 1], [0, 0]])


def test_ctc_norm_by_times_scales_the_gradient_only():
    logits = paddle.to_tensor(np.random.default_rng(0).normal(size=(5, 2, 4)).astype("float32"),
                              stop_gradient=False)
    args = (paddle.to_tensor([[1, 2], [3, 0]], dtype="int32"), paddle.to_tensor([5, 4]), paddle.to_tensor([2, 1]))
    plain = F.ctc_loss(logits, *args, reduction="sum")
    plain.backward()
    g1 = logits.grad.numpy().copy()
    logits.clear_gradient()
    scaled = F.ctc_loss(logits, *args, reduction="sum", norm_by_times=True)
    scaled.backward()
    np.testing.assert_allclose(scaled.numpy(), plain.numpy())
    np.testing.assert_allclose(logits.grad.numpy()[:4, 0], g1[:4, 0] / 5, rtol=1e-5)
    np.testing.assert_allclose(logits.grad.numpy()[:4, 1], g1[:4, 1] / 4, rtol=1e-5)


def test_cross_entropy_gradient_matches_softmax_minus_one_hot():
    logits = paddle.to_tensor([[1.0, 2.0, 0.5], [0.3, -1.0, 2.0]], stop_gradient=False)
    F.cross_entropy(logits, paddle.to_tensor([1, 2]), reduction="sum").backward()
    p = np.exp(logits.numpy()) / np.exp(logits.numpy()).sum(1, keepdims=True)
    np.testing.assert_allclose(logits.grad.numpy(), p - np.eye(3)[[1, 2]], rtol=1e-5)


def test_functional_names_are_exported():
    for name in ["relu", "softmax", "cross_entropy", "batch_norm", "layer_norm", "dropout", "embedding", "one_hot",
                 "linear", "conv2d", "max_pool2d", "diag_embed", "gelu", "sigmoid", "tanh", "silu"]:
        assert callable(getattr(F, name)), name
        assert name in F.__all__
