"""MultiHeadAttention and Transformer layers vs real Paddle 3.3.1 (fixtures in tests/fixtures/nn_rnn, written by
make_fixtures.py from cases_transformer.py): outputs, attention weights, caches, input and weight gradients,
state_dict keys/shapes, repr; plus cache consistency, mask semantics and bad input here."""
import numpy as np
import pytest

import torchpaddle as paddle
from tests.fixtures.nn_rnn import cases_transformer, harness

META, STORED = harness.load_fixture("cases_transformer")


@pytest.mark.parametrize("key", sorted(META))
def test_matches_paddle(key):
    harness.check_case(paddle, cases_transformer.CASES, META, STORED, key)


def test_every_case_has_a_fixture():
    assert harness.fixture_keys(cases_transformer.CASES) == set(META)


def _x(*shape, seed=0):
    return paddle.to_tensor(np.random.default_rng(seed).standard_normal(shape).astype("float32"))


def test_incremental_decoding_equals_full_decoding():
    paddle.seed(0)
    decoder = paddle.nn.TransformerDecoder(paddle.nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0), 2,
                                           paddle.nn.LayerNorm(8))
    tgt, memory = _x(2, 5, 8), _x(2, 3, 8, seed=1)
    causal = paddle.nn.Transformer(8, 2, 1, 1, 16).generate_square_subsequent_mask(5)
    full = decoder(tgt, memory, tgt_mask=causal).numpy()
    cache = decoder.gen_cache(memory)
    steps = []
    for i in range(5):
        out, cache = decoder(tgt[:, i:i + 1], memory, cache=cache)
        steps.append(out.numpy())
    np.testing.assert_allclose(np.concatenate(steps, axis=1), full, rtol=1e-5, atol=1e-5)
    assert cache[0][0].k.shape == [2, 2, 5, 4] and isinstance(cache[0][1], paddle.nn.MultiHeadAttention.StaticCache)


def test_mha_cache_equals_full_attention():
    paddle.seed(0)
    mha = paddle.nn.MultiHeadAttention(8, 4)
    x = _x(2, 4, 8)
    causal = paddle.triu(paddle.full([4, 4], float("-inf")), 1)
    full = mha(x, attn_mask=causal).numpy()
    cache = mha.gen_cache(x)
    assert cache.k.shape == [2, 4, 0, 2]
    for i in range(4):
        out, cache = mha(x[:, i:i + 1], cache=cache)
        np.testing.assert_allclose(out.numpy(), full[:, i:i + 1], rtol=1e-5, atol=1e-6)


def test_bool_mask_true_keeps_and_matches_additive_mask():
    paddle.seed(0)
    mha = paddle.nn.MultiHeadAttention(8, 2, need_weights=True)
    x = _x(2, 3, 8)
    keep = np.array([[True, False, True]] * 3)
    out_b, w_b = mha(x, attn_mask=paddle.to_tensor(keep))
    out_i, w_i = mha(x, attn_mask=paddle.to_tensor(keep.astype("int32")))
    out_f, w_f = mha(x, attn_mask=paddle.to_tensor(np.where(keep, 0.0, -1e9).astype("float32")))
    np.testing.assert_allclose(w_b.numpy(), w_f.numpy(), rtol=1e-6)
    np.testing.assert_allclose(w_i.numpy(), w_f.numpy(), rtol=1e-6)
    np.testing.assert_allclose(out_b.numpy(), out_f.numpy(), rtol=1e-6)
    assert np.all(w_b.numpy()[..., 1] == 0)


def test_attention_dropout_only_in_training():
    paddle.seed(0)
    mha = paddle.nn.MultiHeadAttention(8, 2, dropout=0.5, need_weights=True)
    x = _x(2, 6, 8)
    _, w_train = mha(x)
    assert np.any(w_train.numpy() == 0)
    mha.eval()
    _, w_eval = mha(x)
    np.testing.assert_allclose(w_eval.numpy().sum(-1), 1.0, rtol=1e-5)


def test_encoder_clones_layers_with_fresh_parameters():
    layer = paddle.nn.TransformerEncoderLayer(8, 2, 16, activation="gelu", normalize_before=True)
    encoder = paddle.nn.TransformerEncoder(layer, 3)
    assert encoder.layers[0] is layer
    assert all(l.normalize_before and l.activation is paddle.nn.functional.gelu for l in encoder.layers)
    names = {p.name for p in encoder.parameters()}
    assert len(names) == len(encoder.parameters()) == 3 * len(layer.parameters())


def test_generate_square_subsequent_mask():
    t = paddle.nn.Transformer(8, 2, 1, 1, 16)
    m = t.generate_square_subsequent_mask(3)
    assert m.dtype == paddle.float32
    np.testing.assert_array_equal(m.numpy(), [[0, -np.inf, -np.inf], [0, 0, -np.inf], [0, 0, 0]])
    assert t.generate_square_subsequent_mask(paddle.to_tensor(4)).shape == [4, 4]


def test_transformer_train_eval_dropout():
    paddle.seed(0)
    t = paddle.nn.Transformer(8, 2, 1, 1, 16, dropout=0.3)
    src, tgt = _x(2, 4, 8), _x(2, 3, 8, seed=1)
    t.eval()
    a, b = t(src, tgt).numpy(), t(src, tgt).numpy()
    np.testing.assert_array_equal(a, b)
    t.train()
    assert not np.allclose(t(src, tgt).numpy(), a)


ERRORS = [
    (lambda: paddle.nn.MultiHeadAttention(8, 3), AssertionError),
    (lambda: paddle.nn.MultiHeadAttention(0, 1), AssertionError),
    (lambda: paddle.nn.MultiHeadAttention(8, 0), AssertionError),
    (lambda: paddle.nn.TransformerEncoderLayer(8, 2, 0), AssertionError),
    (lambda: paddle.nn.TransformerDecoderLayer(0, 2, 8), AssertionError),
    (lambda: paddle.nn.TransformerEncoderLayer(8, 2, 16, activation="nope"), AttributeError),
    (lambda: paddle.nn.Transformer(8, 2, 1, 1, 16, weight_attr=[None] * 4), AssertionError),
    (lambda: paddle.nn.TransformerEncoderLayer(8, 2, 16, bias_attr=[None] * 3), AssertionError),
    (lambda: paddle.nn.MultiHeadAttention(8, 2)(_x(2, 3, 6)), ValueError),
    (lambda: paddle.nn.MultiHeadAttention(8, 2)(_x(3, 8)), ValueError),
    (lambda: paddle.nn.MultiHeadAttention(8, 2)(_x(2, 3, 8), attn_mask=_x(2, 2, 3, 5)), ValueError),
    (lambda: paddle.nn.MultiHeadAttention(8, 2)(_x(2, 3, 8), cache=(1, 2)), TypeError),
    (lambda: paddle.nn.MultiHeadAttention(8, 2)(_x(2, 3, 8), attn_mask=np.ones((3, 3))), TypeError),
]


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_bad_input_raises(i):
    fn, exc = ERRORS[i]
    with pytest.raises(exc):
        fn()
