"""paddle.amp where it acts (a GPU place in Paddle): the cast rules, decorate's O2 master weights and GradScaler's
dynamic loss scaling. Paddle's AMP does nothing on a CPU place (test_amp_conformance pins that), so these tests
make the CPU count as a supported place; the expected dtypes are Paddle's documented rules (white list ->
float16/bfloat16, black list -> float32, the rest promote to float32 when an input is float32) and its
auto_cast/decorate examples; the scaling sequences are worked out by hand."""
import sys
import warnings

import numpy as np
import pytest
import torch

import torchpaddle as paddle
from torchpaddle.amp import _dispatch
from torchpaddle.ops.registry import REGISTRY

AMP_GLOBAL = sys.modules["torchpaddle.amp.auto_cast"].amp_global_state()

F32 = np.float32


@pytest.fixture
def amp_here(monkeypatch):
    """Let AMP act on the CPU, as it does on Paddle's GPU places."""
    monkeypatch.setattr(_dispatch, "unsupported_reason", lambda *args, **kwargs: None)
    monkeypatch.setattr(AMP_GLOBAL, "amp_dtype", "float32")   # as in a fresh process
    yield
    assert not _dispatch._ORIGINAL and _dispatch.STATE.level == "O0"


def _t(shape, seed=0):
    return paddle.to_tensor(np.random.default_rng(seed).uniform(-1, 1, shape).astype(F32))


def _dtype(t):
    return str(t.dtype).replace("paddle.", "")


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_o1_white_black_and_promote(amp_here, dtype):
    paddle.seed(1)
    linear, conv = paddle.nn.Linear(4, 3), paddle.nn.Conv2D(3, 2, 3)
    conv_nb = paddle.nn.Conv2D(3, 2, 3, bias_attr=False)
    norm, bn, emb = paddle.nn.LayerNorm(3), paddle.nn.BatchNorm1D(3), paddle.nn.Embedding(5, 3)
    x, image = _t([2, 4]), _t([1, 3, 5, 5], 1)
    with paddle.amp.auto_cast(dtype=dtype):
        assert paddle.amp.is_autocast_enabled() and paddle.amp.get_autocast_dtype() == dtype
        y = linear(x)                                   # Paddle's linear_v2 is white, bias included
        got = {"linear": y, "matmul": paddle.matmul(x, x, transpose_y=True), "conv_no_bias": conv_nb(image),
               # conv2d is white, but the bias is a separate add that promotes to float32 for a float32 bias
               "conv_bias": conv(image), "relu": paddle.nn.functional.relu(y), "add_fp32": x + x,
               "add_mixed": y + paddle.ones([3]), "softmax": paddle.nn.functional.softmax(y), "exp": paddle.exp(y),
               "sum": y.sum(), "mean": y.mean(), "layer_norm": norm(y), "batch_norm": bn(y),
               "embedding": emb(paddle.to_tensor([1, 2]))}
    low, f32 = dtype, "float32"
    assert {k: _dtype(v) for k, v in got.items()} == {
        "linear": low, "matmul": low, "conv_no_bias": low, "conv_bias": f32, "relu": low, "add_fp32": f32,
        "add_mixed": f32, "softmax": f32, "exp": f32, "sum": f32, "mean": f32, "layer_norm": f32,
        "batch_norm": low, "embedding": f32}
    assert not paddle.amp.is_autocast_enabled() and _dtype(linear(x)) == f32


def test_o1_values_are_the_half_precision_computation(amp_here):
    linear, x = paddle.nn.Linear(4, 3), _t([2, 4])
    with paddle.amp.auto_cast():
        y = linear(x)
    w, b = linear.weight._t.detach(), linear.bias._t.detach()
    expected = x._t.half() @ w.half() + b.half()
    assert torch.equal(y._t, expected)
    np.testing.assert_allclose(y.numpy().astype(F32), (x._t @ w + b).cpu().numpy(), rtol=1e-2, atol=1e-2)


def test_o2_and_od_levels(amp_here):
    y16 = _t([2, 3]).astype("float16")
    f32 = paddle.ones([3])
    with paddle.amp.auto_cast(level="O2"):
        # O2 blacks out only interpolation/embedding/scatter: softmax and reductions stay in float16
        assert [_dtype(v) for v in (paddle.nn.functional.softmax(y16), y16.sum(), y16 + f32)] == \
            ["float16", "float16", "float32"]
    with paddle.amp.auto_cast(level="O2", use_promote=False):
        assert _dtype(y16 + f32) == "float16"
    with paddle.amp.auto_cast(level="OD"):
        # OD: only white-listed ops run in float16
        assert [_dtype(v) for v in (paddle.nn.functional.relu(y16), paddle.matmul(f32, f32))] == \
            ["float32", "float16"]


def test_custom_lists_as_in_paddles_examples(amp_here):
    a, b = _t([2, 3]), _t([2, 3], 1)
    conv, image = paddle.nn.Conv2D(3, 2, 3, bias_attr=False), _t([1, 3, 5, 5])
    with paddle.amp.auto_cast(custom_white_list={"elementwise_add"}):
        assert _dtype(a + b) == "float16"      # the legacy name matches the add a + b runs
    with paddle.amp.auto_cast(custom_white_list={"add"}, level="O2"):
        assert _dtype(a + b) == "float16"
    with paddle.amp.auto_cast(custom_black_list={"conv2d"}):
        assert _dtype(conv(image)) == "float32"
    with paddle.amp.auto_cast(custom_black_list=["matmul_v2"]):
        assert _dtype(paddle.matmul(a, b, transpose_y=True)) == "float32"


def test_nesting_and_disable(amp_here):
    x = _t([2, 2])
    with paddle.amp.auto_cast():
        with paddle.amp.auto_cast(enable=False):
            assert not paddle.amp.is_autocast_enabled() and _dtype(paddle.matmul(x, x)) == "float32"
        with paddle.amp.auto_cast(dtype="bfloat16"):
            assert _dtype(paddle.matmul(x, x)) == "bfloat16"
        assert _dtype(paddle.matmul(x, x)) == "float16"
    assert _dtype(paddle.matmul(x, x)) == "float32"


def test_kernels_are_restored_after_auto_cast(amp_here):
    before = {k: d.call_kernel for k, d in REGISTRY.items()}
    with paddle.amp.auto_cast():
        assert REGISTRY["matmul_v2"].call_kernel is not before["matmul_v2"]
    with pytest.raises(ValueError):
        with paddle.amp.auto_cast():
            raise ValueError("inside")
    assert all(d.call_kernel is before[k] for k, d in REGISTRY.items())


def test_gradients_flow_back_to_float32_parameters(amp_here):
    linear, x = paddle.nn.Linear(4, 3), _t([2, 4])
    x.stop_gradient = False
    with paddle.amp.auto_cast():
        loss = paddle.nn.functional.relu(linear(x)).sum()
    loss.backward()
    assert _dtype(loss) == "float32"
    assert [_dtype(g) for g in (x.grad, linear.weight.grad, linear.bias.grad)] == ["float32"] * 3


# -- decorate ------------------------------------------------------------------------------------------------
def test_decorate_o2_casts_parameters_but_keeps_norms(amp_here):
    net = paddle.nn.Sequential(paddle.nn.Linear(2, 3), paddle.nn.BatchNorm1D(3), paddle.nn.LayerNorm(3),
                               paddle.nn.Linear(3, 1))
    opt = paddle.optimizer.Adam(parameters=net.parameters())
    model, optimizer = paddle.amp.decorate(net, opt, level="O2")
    assert model is net and optimizer is opt and opt._multi_precision
    assert [_dtype(p) for p in net[0].parameters() + net[3].parameters()] == ["float16"] * 4
    assert {_dtype(p) for p in net[1].parameters() + net[2].parameters()} == {"float32"}
    bf = paddle.amp.decorate(paddle.nn.Sequential(paddle.nn.LayerNorm(2)), level="O2", dtype="bfloat16")
    assert {_dtype(p) for p in bf.parameters()} == {"bfloat16"}   # layer norms follow bfloat16
    kept = paddle.amp.decorate(paddle.nn.Sequential(paddle.nn.Linear(2, 2), paddle.nn.Linear(2, 2)), level="O2",
                               excluded_layers=paddle.nn.Linear)
    assert {_dtype(p) for p in kept.parameters()} == {"float32"}


def test_decorate_argument_checks(amp_here):
    with pytest.raises(TypeError, match="models must be"):
        paddle.amp.decorate("not a model", level="O2")
    with pytest.raises(RuntimeError, match="optimizers should be"):
        paddle.amp.decorate(paddle.nn.Linear(2, 2), [object()], level="O2")
    with pytest.raises(TypeError, match="excluded_layers"):
        paddle.amp.decorate(paddle.nn.Linear(2, 2), level="O2", excluded_layers="Linear")
    with pytest.raises(ValueError, match="save_dtype"):
        paddle.amp.decorate(paddle.nn.Linear(2, 2), level="O2", save_dtype="int8")
    with pytest.raises(NotImplementedError, match="master_grad"):
        paddle.amp.decorate(paddle.nn.Linear(2, 2), level="O2", master_grad=True)


def test_o2_master_weights_keep_float32_updates(amp_here):
    # lr * grad = 1e-4 per step is below float16's spacing at 1.0 (2**-10): only the float32 master copy sees it
    def train(master_weight):
        linear = paddle.nn.Linear(2, 1)
        linear.set_state_dict({"weight": np.ones([2, 1], F32), "bias": np.zeros([1], F32)})
        opt = paddle.optimizer.SGD(learning_rate=1e-4, parameters=linear.parameters())
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model, opt = paddle.amp.decorate(linear, opt, level="O2", master_weight=master_weight)
            for _ in range(10):
                with paddle.amp.auto_cast(level="O2"):
                    out = model(paddle.to_tensor(np.ones([1, 2], F32)))
                out.sum().backward()
                opt.step()
                opt.clear_grad()
        return linear, opt
    linear, opt = train(None)
    master = opt._master_weights[linear.weight.name]
    assert _dtype(linear.weight) == "float16" and _dtype(master) == "float32"
    np.testing.assert_allclose(master.numpy(), np.full([2, 1], 1 - 10e-4), rtol=1e-6)
    np.testing.assert_array_equal(linear.weight.numpy(), np.full([2, 1], np.float16(1 - 10e-4)))
    lost, _ = train(False)
    np.testing.assert_array_equal(lost.weight.numpy(), np.ones([2, 1], np.float16))


def test_decorate_save_dtype_casts_the_state_dict_only(amp_here):
    net = paddle.amp.decorate(paddle.nn.Linear(2, 2), level="O2", save_dtype="float32")
    assert _dtype(net.weight) == "float16"
    state = net.state_dict()
    assert {_dtype(v) for v in state.values()} == {"float32"} and state["weight"].name == net.weight.name


# -- GradScaler ----------------------------------------------------------------------------------------------
def _step(scaler, linear, opt, factor):
    with paddle.amp.auto_cast():
        loss = linear(paddle.to_tensor(np.ones([1, 2], F32))).sum() * factor
    scaled = scaler.scale(loss)
    scaled.backward()
    before = linear.weight.numpy().copy()
    scaler.minimize(opt, scaled)
    changed = not np.array_equal(before, linear.weight.numpy())
    opt.clear_grad()
    return float(scaler._scale.numpy()[0]), changed


def test_grad_scaler_dynamic_scaling_sequence(amp_here, capsys):
    linear = paddle.nn.Linear(2, 1)
    opt = paddle.optimizer.SGD(learning_rate=0.01, parameters=linear.parameters())
    scaler = paddle.amp.GradScaler(init_loss_scaling=1024.0, incr_every_n_steps=2)
    steps = [_step(scaler, linear, opt, f) for f in (1.0, 1.0, float("inf"), 1.0, 1.0, 1.0)]
    # two finite steps double the scale, a non-finite one halves it (and skips the update)
    assert steps == [(1024.0, True), (2048.0, True), (1024.0, False), (1024.0, True), (2048.0, True),
                     (2048.0, True)]
    assert "Found inf or nan, current scale is: 2048.0, decrease to: 2048.0*0.5" in capsys.readouterr().out
    assert scaler.state_dict() == {**scaler.state_dict(), "incr_count": 1, "decr_count": 0}


def test_grad_scaler_decreases_after_n_bad_steps(amp_here):
    linear = paddle.nn.Linear(2, 1)
    opt = paddle.optimizer.SGD(learning_rate=0.01, parameters=linear.parameters())
    scaler = paddle.amp.GradScaler(init_loss_scaling=8.0, decr_every_n_nan_or_inf=2, decr_ratio=0.25)
    scales = [_step(scaler, linear, opt, f)[0] for f in (float("nan"), float("inf"), float("inf"), 1.0)]
    assert scales == [8.0, 2.0, 2.0, 2.0]


def test_grad_scaler_unscales_gradients(amp_here):
    linear = paddle.nn.Linear(2, 1)
    linear.set_state_dict({"weight": np.array([[1.0], [2.0]], F32), "bias": np.zeros([1], F32)})
    opt = paddle.optimizer.SGD(learning_rate=0.5, parameters=linear.parameters())
    scaler = paddle.amp.GradScaler(init_loss_scaling=64.0)
    with paddle.amp.auto_cast():
        loss = linear(paddle.to_tensor(np.array([[3.0, 4.0]], F32))).sum()
    scaled = scaler.scale(loss)
    assert scaled.shape == [1] and float(scaled.numpy()[0]) == 64.0 * 11.0
    scaled.backward()
    np.testing.assert_allclose(linear.weight.grad.numpy(), [[192.0], [256.0]])
    scaler.unscale_(opt)
    np.testing.assert_allclose(linear.weight.grad.numpy(), [[3.0], [4.0]])
    with pytest.raises(RuntimeError, match="unscale_\\(\\) has already been called"):
        scaler.unscale_(opt)
    scaler.step(opt)
    with pytest.raises(RuntimeError, match="step\\(\\) has already been called"):
        scaler.step(opt)
    with pytest.raises(RuntimeError, match="unscale_\\(\\) is being called after step"):
        scaler.unscale_(opt)
    scaler.update()
    np.testing.assert_allclose(linear.weight.numpy(), [[1.0 - 1.5], [2.0 - 2.0]])


def test_grad_scaler_state_dict_round_trip(amp_here):
    scaler = paddle.amp.GradScaler(init_loss_scaling=512.0, incr_ratio=3.0, decr_ratio=0.25, incr_every_n_steps=7,
                                   decr_every_n_nan_or_inf=3, use_dynamic_loss_scaling=False)
    state = scaler.state_dict()
    assert state["scale"].dtype == np.float32 and state["scale"].tolist() == [512.0]
    other = paddle.amp.GradScaler()
    other.load_state_dict(state)
    assert (other.get_init_loss_scaling(), other.get_incr_ratio(), other.get_decr_ratio(),
            other.get_incr_every_n_steps(), other.get_decr_every_n_nan_or_inf(),
            other.is_use_dynamic_loss_scaling()) == (512.0, 3.0, 0.25, 7, 3, False)
    with pytest.raises(RuntimeError, match="state dict is empty"):
        other.load_state_dict({})
    with pytest.raises(AssertionError, match="incr_ratio must be > 1.0"):
        paddle.amp.GradScaler(incr_ratio=1.0)
    with pytest.raises(AssertionError, match="new_decr_ratio must be < 1.0"):
        other.set_decr_ratio(1.5)


def test_grad_scaler_turns_itself_off_for_bfloat16(amp_here):
    scaler = paddle.amp.GradScaler()
    with paddle.amp.auto_cast(dtype="bfloat16"):
        loss = paddle.ones([1]).sum()
    with pytest.warns(UserWarning, match="dynamic loss scaling for bfloat16"):
        assert scaler.scale(loss) is loss
    assert not scaler.is_enable()


def test_hapi_model_trains_with_amp_configs(amp_here):
    def train(amp_configs):
        net = paddle.nn.Sequential(paddle.nn.Linear(4, 3))
        net.set_state_dict({"0.weight": np.linspace(-1, 1, 12, dtype=F32).reshape(4, 3),
                            "0.bias": np.zeros([3], F32)})
        model = paddle.Model(net)
        model.prepare(paddle.optimizer.SGD(0.1, parameters=net.parameters()), paddle.nn.CrossEntropyLoss(),
                      amp_configs=amp_configs)
        x = np.linspace(0, 1, 32, dtype=F32).reshape(8, 4)
        y = (np.arange(8) % 3).astype(np.int64).reshape(8, 1)
        losses = [float(model.train_batch([x], [y])[0]) for _ in range(3)]
        return losses, net[0].weight.numpy(), getattr(model, "_scaler", None)
    plain, plain_weight, _ = train(None)
    losses, weight, scaler = train({"level": "O1", "init_loss_scaling": 128.0, "incr_every_n_steps": 2})
    assert scaler.is_enable()
    state = scaler.state_dict()
    assert state["scale"].tolist() == [256.0] and state["incr_count"] == 1 and state["incr_every_n_steps"] == 2
    # the forward ran in float16: close to the float32 run, not equal
    np.testing.assert_allclose(losses, plain, rtol=2e-3)
    np.testing.assert_allclose(weight, plain_weight, rtol=1e-2, atol=1e-3)
    assert not np.array_equal(weight, plain_weight)


def test_static_mode_points_at_static_amp(amp_here):
    net = paddle.nn.Linear(2, 2)
    paddle.enable_static()
    try:
        with pytest.warns(UserWarning, match="paddle.static.amp.decorate"):
            with paddle.amp.auto_cast():
                assert not paddle.amp.is_autocast_enabled()
        with pytest.raises(NotImplementedError, match="paddle.static.amp.decorate"):
            paddle.amp.GradScaler()
        with pytest.raises(NotImplementedError, match="paddle.static.amp.decorate"):
            paddle.amp.decorate(net, level="O2")
    finally:
        paddle.disable_static()
