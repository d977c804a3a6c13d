"""Recurrent layers vs real Paddle 3.3.1: cells, RNN/BiRNN, SimpleRNN/LSTM/GRU. Reference numbers come from
tests/fixtures/nn_rnn (make_fixtures.py runs the same cases under real Paddle): outputs, final states, input
and weight gradients, state_dict keys/shapes (loaded from Paddle's own state_dict layout), repr."""
import json
import os

import numpy as np
import pytest

import paddle_ref
import torchpaddle as paddle
from tests.device_numerics import float32_tolerance
from tests.fixtures.nn_rnn import cases_rnn, harness

META, STORED = harness.load_fixture("cases_rnn")


@pytest.mark.parametrize("key", sorted(META))
def test_matches_paddle(key):
    harness.check_case(paddle, cases_rnn.CASES, META, STORED, key)


def test_every_case_has_a_fixture():
    assert harness.fixture_keys(cases_rnn.CASES) == set(META)


@pytest.mark.slow
@pytest.mark.conformance
def test_fixtures_are_what_paddle_writes_now(tmp_path):
    """Regenerate every nn_rnn fixture with real Paddle and compare with the committed files (stale cases)."""
    paddle_ref.run_module("tests.fixtures.nn_rnn.make_fixtures", "--out", str(tmp_path), timeout=600)
    for module in ("cases_rnn", "cases_transformer", "cases_decode"):
        with open(os.path.join(harness.HERE, module + ".json")) as f, open(tmp_path / (module + ".json")) as g:
            assert json.load(f)["cases"] == json.load(g)["cases"], module
        old, new = np.load(os.path.join(harness.HERE, module + ".npz")), np.load(tmp_path / (module + ".npz"))
        assert sorted(old.files) == sorted(new.files), module
        for key in old.files:
            paddle_ref.assert_fixture_close(new[key], old[key], err_msg=f"{module} {key}")


def test_loads_a_checkpoint_saved_by_paddle():
    state = paddle.load(os.path.join(harness.HERE, "lstm_bidirect.pdparams"))
    io = np.load(os.path.join(harness.HERE, "lstm_bidirect_io.npz"))
    layer = paddle.nn.LSTM(3, 4, num_layers=2, direction="bidirect")
    missing, unexpected = layer.set_state_dict(state)
    assert missing == [] and unexpected == []
    out, (h, c) = layer(paddle.to_tensor(io["x"]), sequence_length=paddle.to_tensor(io["lengths"]))
    for got, key in ((out, "out"), (h, "h"), (c, "c")):
        rtol, atol = float32_tolerance(1e-5, 1e-6, cudnn=True)
        np.testing.assert_allclose(got.numpy(), io[key], rtol=rtol, atol=atol)


# -- behaviour the fixtures cannot show ----------------------------------------------------------------------
def _x(*shape, seed=0):
    return paddle.to_tensor(np.random.default_rng(seed).standard_normal(shape).astype("float32"))


def test_parameter_names_and_aliases_share_tensors():
    m = paddle.nn.LSTM(3, 4, num_layers=2, direction="bidirect")
    sd = m.state_dict()
    assert sd["weight_ih_l1_reverse"] is sd["1.cell_bw.weight_ih"]
    assert [p.name for p in m.parameters()][:2] == [m[0].cell_fw.weight_ih.name, m[0].cell_fw.weight_hh.name]
    assert len(m.parameters()) == 16 and len(m) == 2


def test_default_initializer_bounds():
    m = paddle.nn.GRU(3, 16)
    bound = 1 / np.sqrt(16)
    for p in m.parameters():
        v = p.numpy()
        assert v.min() >= -bound and v.max() <= bound and v.std() > 0


def test_attr_false_creates_frozen_tensors():
    cell = paddle.nn.LSTMCell(3, 4, weight_hh_attr=False, bias_ih_attr=False)
    assert cell.weight_hh.stop_gradient and np.all(cell.weight_hh.numpy() == 1)
    assert cell.bias_ih.stop_gradient and np.all(cell.bias_ih.numpy() == 0)
    assert not cell.weight_ih.stop_gradient


def test_simple_rnn_without_bias_ih_runs():
    # Paddle 3.3.1 segfaults here; the math is a SimpleRNN whose bias_ih is frozen zeros.
    m = paddle.nn.SimpleRNN(3, 4, bias_ih_attr=False)
    x = _x(2, 3, 3)
    out, h = m(x)
    cell = m[0].cell
    ref = np.zeros((2, 4), "float32")
    w_ih, w_hh, b_hh = cell.weight_ih.numpy(), cell.weight_hh.numpy(), cell.bias_hh.numpy()
    for t in range(3):
        ref = np.tanh(x.numpy()[:, t] @ w_ih.T + ref @ w_hh.T + b_hh)
    rtol, atol = float32_tolerance(1e-5, 1e-6, cudnn=True)
    np.testing.assert_allclose(h.numpy()[0], ref, rtol=rtol, atol=atol)


@pytest.mark.parametrize("kind", ["GRU", "LSTM"])
def test_fused_and_cell_paths_agree(kind):
    # The cell loop is plain ops; the fused op must give the same values and gradients on valid steps, also
    # for nonzero initial states with sequence_length in the reverse direction (where Paddle's own fused CPU
    # kernel gets weight_hh_reverse's gradient wrong).
    paddle.seed(1)
    m = getattr(paddle.nn, kind)(3, 4, num_layers=2, direction="bidirect")
    x, lengths = _x(3, 5, 3), paddle.to_tensor([5, 2, 4])
    states = (_x(4, 3, 4, seed=1), _x(4, 3, 4, seed=2)) if kind == "LSTM" else _x(4, 3, 4, seed=1)
    valid = (np.arange(5)[None, :] < lengths.numpy()[:, None])[..., None]
    results = []
    for fused in (True, False):
        m.could_use_cudnn = fused
        m.clear_gradients()
        out, final = m(x, states, sequence_length=lengths)
        final = final if kind == "LSTM" else (final,)
        loss = (out * paddle.to_tensor(valid.astype("float32"))).sum() + sum((f * f).sum() for f in final)
        loss.backward()
        results.append(([out.numpy() * valid] + [f.numpy() for f in final],
                        {n: p.grad.numpy() for n, p in m.named_parameters()}))
        if fused:
            assert np.all(out.numpy()[~valid[..., 0]] == 0)      # the fused op zeroes padded steps
    rtol, atol = float32_tolerance(1e-5, 1e-6, cudnn=True)   # the fused op is cuDNN's on a GPU
    for a, b in zip(results[0][0], results[1][0]):
        np.testing.assert_allclose(a, b, rtol=rtol, atol=atol)
    rtol, atol = float32_tolerance(1e-4, 1e-5, cudnn=True)
    for name in results[0][1]:
        np.testing.assert_allclose(results[0][1][name], results[1][1][name], rtol=rtol, atol=atol, err_msg=name)


def test_dropout_between_layers_only_in_training():
    paddle.seed(3)
    m = paddle.nn.LSTM(3, 8, num_layers=2, dropout=0.9)
    x = _x(2, 4, 3)
    m.eval()
    a, b = m(x)[0].numpy(), m(x)[0].numpy()
    np.testing.assert_array_equal(a, b)
    m.train()
    c = m(x)[0].numpy()
    assert not np.allclose(a, c)


def test_state_dict_round_trip_between_layers():
    src, dst = paddle.nn.LSTM(3, 4, num_layers=2), paddle.nn.LSTM(3, 4, num_layers=2)
    missing, unexpected = dst.set_state_dict(src.state_dict())
    assert missing == [] and unexpected == []
    x = _x(2, 3, 3)
    np.testing.assert_array_equal(src(x)[0].numpy(), dst(x)[0].numpy())


def test_get_initial_states():
    cell = paddle.nn.LSTMCell(3, 4, proj_size=2)
    h, c = cell.get_initial_states(_x(5, 3), init_value=0.5)
    assert h.shape == [5, 2] and c.shape == [5, 4] and float(h.numpy()[0, 0]) == 0.5
    s = paddle.nn.GRUCell(3, 4).get_initial_states(_x(2, 7, 3), shape=[[3], [-1, 5]], batch_dim_idx=1,
                                                  dtype="float64")
    assert [t.shape for t in s] == [[7, 3], [7, 5]] and s[0].dtype == paddle.float64


def test_cell_with_custom_state_structure():
    class Accumulate(paddle.nn.RNNCellBase):
        input_size = 3

        def forward(self, x, states):
            total, count = states["total"], states["count"]
            return x * 2, {"total": total + x, "count": count + 1}

    x = _x(2, 4, 3)
    init = {"total": paddle.zeros([2, 3]), "count": paddle.zeros([2, 1])}
    out, final = paddle.nn.RNN(Accumulate())(x, init, sequence_length=paddle.to_tensor([4, 2]))
    np.testing.assert_allclose(out.numpy(), x.numpy() * 2, rtol=1e-6)
    np.testing.assert_allclose(final["total"].numpy(), [x.numpy()[0].sum(0), x.numpy()[1, :2].sum(0)],
                               rtol=1e-5)
    np.testing.assert_allclose(final["count"].numpy()[:, 0], [4, 2])


ERRORS = [
    (lambda: paddle.nn.LSTM(3, 4, direction="backward"), ValueError),
    (lambda: paddle.nn.LSTM(3, 0), ValueError),
    (lambda: paddle.nn.GRU(3, 4, num_layers=0), ValueError),
    (lambda: paddle.nn.SimpleRNN(3, 4, activation="sigmoid"), ValueError),
    (lambda: paddle.nn.SimpleRNNCell(3, 4, activation="gelu"), ValueError),
    (lambda: paddle.nn.LSTMCell(3, 4, proj_size=4), ValueError),
    (lambda: paddle.nn.LSTMCell(3, 4, proj_size=-1), ValueError),
    (lambda: paddle.nn.BiRNN(paddle.nn.GRUCell(3, 4), paddle.nn.GRUCell(4, 4)), ValueError),
    (lambda: paddle.nn.LSTM(3, 4)(_x(2, 5, 4)), ValueError),
    (lambda: paddle.nn.LSTM(3, 4)(_x(5, 3)), ValueError),
    (lambda: paddle.nn.LSTM(3, 4)(_x(2, 5, 3), (paddle.zeros([1, 3, 4]), paddle.zeros([1, 3, 4]))), ValueError),
    (lambda: paddle.nn.LSTM(3, 4)(_x(2, 5, 3), paddle.zeros([1, 2, 4])), ValueError),
    (lambda: paddle.nn.LSTM(3, 4)(_x(2, 5, 3).astype("float64")), ValueError),
    (lambda: paddle.nn.GRU(3, 4)(_x(2, 5, 3), sequence_length=paddle.to_tensor([5.0, 2.0])), ValueError),
    (lambda: paddle.nn.GRU(3, 4)(_x(2, 5, 3), sequence_length=paddle.to_tensor([6, 2])), ValueError),
    (lambda: paddle.nn.GRU(3, 4)(_x(2, 5, 3), sequence_length=paddle.to_tensor([-1, 2])), ValueError),
    (lambda: paddle.nn.GRU(3, 4)(_x(2, 5, 3), sequence_length=paddle.to_tensor([5, 2, 1])), ValueError),
    (lambda: paddle.nn.GRU(3, 4)([1.0, 2.0]), TypeError),
    (lambda: paddle.nn.LSTMCell(3, 4)(_x(2, 3), _x(2, 4)), ValueError),
    (lambda: paddle.nn.GRUCell(3, 4)(_x(2, 4)), ValueError),
    (lambda: paddle.nn.RNN(paddle.nn.GRUCell(3, 4))(_x(2, 0, 3)), ValueError),
    (lambda: paddle.nn.RNN(paddle.nn.GRUCell(3, 4))(_x(2, 3, 3), sequence_length=[3, 2]), TypeError),
    (lambda: paddle.nn.BiRNN(paddle.nn.GRUCell(3, 4), paddle.nn.GRUCell(3, 4))(_x(2, 3, 3), [None]), ValueError),
]


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_bad_input_raises(i):
    fn, exc = ERRORS[i]
    with pytest.raises(exc):
        fn()
