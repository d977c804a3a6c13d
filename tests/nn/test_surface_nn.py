"""The nn names Paddle 3.x added: every call in tests/nn/surface_nn_cases.py compared with real Paddle 3.3.1,
plus NumPy and hand-worked checks (rms_norm, whose Paddle kernel is GPU-only), gradients and bad arguments."""
import numpy as np
import pytest

import torchpaddle as paddle
import paddle_ref
from tests.nn import surface_nn_cases as cases
from tests.tensor.test_surface_names import _compare

F = paddle.nn.functional

reference, ours, test_matches_real_paddle = paddle_ref.case_table(
    "tests.nn.surface_nn_cases", cases._cases(paddle), lambda: cases.run(paddle), _compare)


def test_rms_norm_against_numpy():
    rng = np.random.default_rng(1)
    x, w = rng.standard_normal((2, 3, 4)), rng.standard_normal(4)
    out, invvar = F.rms_norm(paddle.to_tensor(x), [4], weight=paddle.to_tensor(w), eps=1e-6)
    inv = 1 / np.sqrt((x ** 2).mean(-1) + 1e-6)
    np.testing.assert_allclose(out.numpy(), x * inv[..., None] * w, rtol=1e-10)
    np.testing.assert_allclose(invvar.numpy(), inv, rtol=1e-10)
    assert invvar.shape == [2, 3]


def test_sdpa_gradient_matches_finite_difference():
    rng = np.random.default_rng(2)
    arrays = [rng.standard_normal((1, 2, 2, 3)) for _ in range(3)]
    q, k, v = (paddle.to_tensor(a, stop_gradient=False) for a in arrays)
    F.scaled_dot_product_attention(q, k, v, is_causal=True).sum().backward()

    def value(qa):
        return F.scaled_dot_product_attention(paddle.to_tensor(qa), k.detach(), v.detach(),
                                              is_causal=True).sum().item()
    eps, numeric = 1e-6, np.zeros_like(arrays[0])
    for idx in np.ndindex(arrays[0].shape):
        plus, minus = arrays[0].copy(), arrays[0].copy()
        plus[idx] += eps
        minus[idx] -= eps
        numeric[idx] = (value(plus) - value(minus)) / (2 * eps)
    np.testing.assert_allclose(q.grad.numpy(), numeric, rtol=1e-5, atol=1e-7)


def test_fractional_pool_gradient_goes_to_the_maxima():
    x = paddle.to_tensor(np.arange(25.0).reshape(1, 1, 5, 5), stop_gradient=False)
    out, mask = F.fractional_max_pool2d(x, 3, random_u=0.3, return_mask=True)
    out.sum().backward()
    expected = np.zeros(25)
    expected[mask.numpy().ravel()] = 1
    np.testing.assert_array_equal(x.grad.numpy().ravel(), expected)


def test_swiglu_and_sequence_mask_hand_worked():
    x = paddle.to_tensor([[1.0, -1.0, 2.0, 3.0]])
    silu = np.array([1.0, -1.0]) / (1 + np.exp(-np.array([1.0, -1.0])))
    np.testing.assert_allclose(F.swiglu(x).numpy(), [silu * [2.0, 3.0]], rtol=1e-6)
    np.testing.assert_array_equal(F.sequence_mask(paddle.to_tensor([2, 0]), 3).numpy(), [[1, 1, 0], [0, 0, 0]])


@pytest.mark.parametrize("call, exc", [
    (lambda: F.rms_norm(paddle.ones([2, 3]), [4]), ValueError),
    (lambda: F.rms_norm(paddle.ones([2, 3]), [3], weight=paddle.ones([2])), ValueError),
    (lambda: F.swiglu(paddle.ones([2, 3])), ValueError),
    (lambda: F.swiglu(paddle.ones([2, 2]), paddle.ones([2, 3])), ValueError),
    (lambda: F.sequence_mask(paddle.ones([2])), TypeError),
    (lambda: F.sequence_mask(paddle.to_tensor([1]), -1), ValueError),
    (lambda: F.scaled_dot_product_attention(paddle.ones([2, 3, 4]), paddle.ones([2, 3, 4]), paddle.ones([2, 3, 4])),
     ValueError),
    (lambda: F.scaled_dot_product_attention(paddle.ones([1, 2, 3, 4]), paddle.ones([1, 2, 2, 4]),
                                            paddle.ones([1, 2, 2, 4])), ValueError),
    (lambda: F.fractional_max_pool2d(paddle.ones([1, 1, 4, 4]), 5, random_u=0.5), ValueError),
    (lambda: F.fractional_max_pool2d(paddle.ones([1, 1, 4, 4]), 2, random_u=1.5), ValueError),
    (lambda: F.fractional_max_pool2d(paddle.ones([1, 4, 4]), 2), ValueError),
    (lambda: F.fractional_max_pool3d(paddle.ones([1, 1, 4, 4, 4]), [2, 2]), ValueError),
])
def test_bad_arguments(call, exc):
    with pytest.raises(exc):
        call()


def _attention(q, k, v, keep=None):
    s = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    if keep is not None:
        s = np.where(keep, s, -1e300)   # finite, so a fully masked row stays defined
    p = np.exp(s - s.max(-1, keepdims=True))
    return (p / p.sum(-1, keepdims=True)) @ v


def test_flash_attn_qkvpacked_grouped_heads_against_numpy():
    # two query groups share each key/value head: query head h reads kv head h // groups
    qkv = np.random.default_rng(3).random((1, 4, 4, 2, 8))
    out, softmax = F.flash_attn_qkvpacked(paddle.to_tensor(qkv))
    assert softmax is None
    q = qkv[:, :, :2].reshape(1, 4, 4, 8).transpose(0, 2, 1, 3)
    k = np.repeat(qkv[:, :, 2].transpose(0, 2, 1, 3), 2, axis=1)
    v = np.repeat(qkv[:, :, 3].transpose(0, 2, 1, 3), 2, axis=1)
    np.testing.assert_allclose(out.numpy(), _attention(q, k, v).transpose(0, 2, 1, 3), rtol=1e-10)


def test_sparse_attention_against_numpy():
    rng = np.random.default_rng(4)
    q, k, v = (rng.random((1, 2, 4, 8)) for _ in range(3))
    offset = np.array([[[0, 2, 3, 5, 6], [0, 1, 2, 3, 4]]], dtype="int32")
    columns = np.array([[[0, 1, 1, 2, 3, 3], [0, 1, 2, 3, 0, 0]]], dtype="int32")
    padding = np.array([[1, 1, 1, 0]], dtype="float64")
    out = F.sparse_attention(*(paddle.to_tensor(a) for a in (q, k, v, offset, columns)),
                             key_padding_mask=paddle.to_tensor(padding))
    keep = np.zeros((1, 2, 4, 4), bool)
    for h in range(2):
        for i in range(4):
            keep[0, h, i, columns[0, h, offset[0, h, i]:offset[0, h, i + 1]]] = True
    keep &= padding.astype(bool)[:, None, None, :]
    expected = _attention(q, k, v, keep)
    finite = keep.any(-1)   # a row left with no key has no defined softmax
    np.testing.assert_allclose(out.numpy()[finite], expected[finite], rtol=1e-10)


def test_margin_cross_entropy_against_numpy():
    rng = np.random.default_rng(5)
    logits, label = rng.uniform(-0.9, 0.9, (4, 6)), np.array([1, 5, 0, 3])
    x = paddle.to_tensor(logits, stop_gradient=False)
    loss, sm = F.margin_cross_entropy(x, paddle.to_tensor(label), margin1=1.0, margin2=0.3, margin3=0.1, scale=8.0,
                                      return_softmax=True, reduction=None)
    t = logits.copy()
    rows = np.arange(4)
    t[rows, label] = np.cos(np.arccos(t[rows, label]) + 0.3) - 0.1
    t *= 8.0
    ref = np.log(np.exp(t).sum(1)) - t[rows, label]
    np.testing.assert_allclose(loss.numpy().ravel(), ref, rtol=1e-10)
    np.testing.assert_allclose(sm.numpy(), np.exp(t) / np.exp(t).sum(1, keepdims=True), rtol=1e-10)
    F.margin_cross_entropy(x, paddle.to_tensor(label)).backward()
    assert x.grad is not None and np.isfinite(x.grad.numpy()).all()
    with pytest.raises(ValueError):
        F.margin_cross_entropy(x, paddle.to_tensor([1, 2, 3, 9]))
    with pytest.raises(ValueError):
        F.margin_cross_entropy(x, paddle.to_tensor(label), reduction="max")


def test_class_center_sample_properties():
    paddle.seed(7)
    remapped, sampled = F.class_center_sample(paddle.to_tensor([3, 8, 3]), 20, 5)
    sampled = sampled.numpy()
    assert list(sampled[:2]) == [3, 8] and len(set(sampled)) == 5 and sampled.max() < 20
    np.testing.assert_array_equal(sampled[remapped.numpy()], [3, 8, 3])


@pytest.mark.parametrize("padded", [True, False])
def test_flash_attn_varlen_qkvpacked_attends_within_each_sequence(padded):
    rng = np.random.default_rng(6)
    qkv = rng.random((8, 3, 2, 4))
    cu = paddle.to_tensor([0, 3, 7], dtype="int32")
    out, softmax = F.flash_attn_varlen_qkvpacked(paddle.to_tensor(qkv), cu, cu, 4, 4, 0.5, causal=True,
                                                 varlen_padded=padded)
    assert softmax is None and out.shape == [8, 2, 4]
    starts, lengths = ([0, 4], [3, 4]) if padded else ([0, 3], [3, 4])
    expected = np.zeros((8, 2, 4))
    for start, n in zip(starts, lengths):
        part = qkv[start:start + n].transpose(2, 1, 0, 3)   # [kv_head, slot, seq, dim]
        q, k, v = part[:, 0], part[:, 1], part[:, 2]
        s = q @ k.transpose(0, 2, 1) * 0.5 + np.triu(np.full((n, n), -np.inf), 1)
        p = np.exp(s - s.max(-1, keepdims=True))
        expected[start:start + n] = ((p / p.sum(-1, keepdims=True)) @ v).transpose(1, 0, 2)
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-10)
    with pytest.raises(ValueError):
        F.flash_attn_varlen_qkvpacked(paddle.to_tensor(qkv), cu, paddle.to_tensor([0, 2, 7], dtype="int32"), 4, 4,
                                      0.5)
