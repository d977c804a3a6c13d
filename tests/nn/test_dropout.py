"""The dropout family's distributions and scaling (their op-table rows only compare shapes and dtypes, since
draws cannot match Paddle's): kept fraction, the upscale/downscale factors, shared masks along the dropped axes,
inference identity, gradients through the mask, and reproducibility under paddle.seed."""
import numpy as np
import pytest

import torchpaddle as paddle

F = paddle.nn.functional
N = 200_000


def _ones(*shape, dtype="float32"):
    return paddle.ones(list(shape), dtype=dtype)


@pytest.mark.parametrize("p", [0.1, 0.5, 0.8])
def test_kept_fraction_and_upscale(p):
    out = F.dropout(_ones(N), p=p).numpy()
    kept = out != 0
    assert abs(kept.mean() - (1 - p)) < 0.01
    np.testing.assert_allclose(out[kept], 1 / (1 - p), rtol=1e-6)


def test_downscale_in_infer():
    out = F.dropout(_ones(N), p=0.3, mode="downscale_in_infer").numpy()
    assert set(np.unique(out)) <= {0.0, 1.0}        # training: no scaling
    assert abs((out != 0).mean() - 0.7) < 0.01
    np.testing.assert_allclose(F.dropout(_ones(10), p=0.3, training=False, mode="downscale_in_infer").numpy(), 0.7)


def test_inference_and_p0_are_identity():
    x = paddle.to_tensor(np.arange(6.0).reshape(2, 3))
    np.testing.assert_array_equal(F.dropout(x, 0.5, training=False).numpy(), x.numpy())
    assert F.dropout(x, 0.0) is x      # as in Paddle, p == 0 returns the input itself
    np.testing.assert_array_equal(F.dropout2d(paddle.ones([2, 3, 2, 2]), training=False).numpy(), 1.0)
    np.testing.assert_array_equal(F.alpha_dropout(x, 0.5, training=False).numpy(), x.numpy())


def test_p1_drops_everything():
    np.testing.assert_array_equal(F.dropout(_ones(100), 1.0).numpy(), 0.0)
    np.testing.assert_array_equal(F.dropout(_ones(4, 5), 1.0, axis=1).numpy(), 0.0)


def test_axis_shares_the_mask():
    out = F.dropout(_ones(1000, 6), p=0.5, axis=1).numpy()
    # axis=1 draws one value per column: every row is identical
    assert (out == out[0]).all()
    assert set(np.unique(out)) <= {0.0, 2.0}


@pytest.mark.parametrize("fn, shape, fmt, channel", [
    ("dropout2d", (64, 32, 3, 3), "NCHW", 1), ("dropout2d", (64, 3, 3, 32), "NHWC", 3),
    ("dropout3d", (64, 32, 2, 2, 2), "NCDHW", 1), ("dropout3d", (64, 2, 2, 2, 32), "NDHWC", 4)])
def test_feature_dropout_drops_whole_maps(fn, shape, fmt, channel):
    out = getattr(F, fn)(_ones(*shape), p=0.5, data_format=fmt).numpy()
    per_map = np.moveaxis(out, channel, 1).reshape(shape[0], shape[channel], -1)
    assert (per_map == per_map[..., :1]).all()       # a map is kept or dropped whole
    assert abs((per_map[..., 0] != 0).mean() - 0.5) < 0.05
    assert set(np.unique(out)) <= {0.0, 2.0}


def test_dropout1d_drops_channels():
    out = F.dropout1d(_ones(32, 64, 5), p=0.5).numpy()
    assert (out == out[..., :1]).all()
    assert F.dropout1d(_ones(8, 5), p=0.5).shape == [8, 5]


def test_gradient_follows_the_mask():
    x = paddle.ones([10_000])
    x.stop_gradient = False
    out = F.dropout(x, p=0.4)
    out.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), out.numpy())   # d(out)/dx = mask / (1 - p) = out for x = 1


def test_alpha_dropout_keeps_mean_and_variance():
    x = paddle.to_tensor(np.random.default_rng(0).standard_normal(N).astype("float32"))
    for fn in (F.alpha_dropout, F.feature_alpha_dropout):
        out = fn(x.reshape([N // 8, 8]), p=0.3).numpy()
        assert abs(out.mean()) < 0.02 and abs(out.std() - 1) < 0.02
    out = F.feature_alpha_dropout(paddle.ones([500, 4, 3]), p=0.5).numpy()
    assert (out == out[..., :1]).all()


def test_seed_makes_draws_repeat():
    paddle.seed(123)
    a = F.dropout(_ones(100), 0.5).numpy()
    b = F.dropout2d(_ones(4, 8, 2, 2), 0.5).numpy()
    paddle.seed(123)
    np.testing.assert_array_equal(F.dropout(_ones(100), 0.5).numpy(), a)
    np.testing.assert_array_equal(F.dropout2d(_ones(4, 8, 2, 2), 0.5).numpy(), b)


def test_rrelu_training_slopes():
    x = -paddle.ones([N])
    out = -F.rrelu(x, 0.1, 0.3).numpy()
    assert out.min() >= 0.1 and out.max() <= 0.3 and abs(out.mean() - 0.2) < 0.005


def test_gumbel_softmax_samples_the_distribution():
    logits = paddle.to_tensor(np.log(np.array([[0.1, 0.2, 0.7]] * 20_000, dtype="float32")))
    hard = F.gumbel_softmax(logits, hard=True).numpy()
    assert (hard.sum(-1) == 1).all()
    np.testing.assert_allclose(hard.mean(0), [0.1, 0.2, 0.7], atol=0.015)
    soft = F.gumbel_softmax(logits, temperature=0.5).numpy()
    np.testing.assert_allclose(soft.sum(-1), 1, rtol=1e-5)


def test_inplace_dropout():
    x = paddle.ones([1000])
    out = F.dropout(x, 0.5, inplace=True)
    assert out is x and set(np.unique(x.numpy())) <= {0.0, 2.0}
    with pytest.raises(NotImplementedError):
        F.dropout(paddle.ones([2, 3]), 0.5, axis=1, inplace=True)
