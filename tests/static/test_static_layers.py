"""nn Layers built in static mode: parameters live in the program (initialized by the startup program) and
the program's output equals the same layer's eager output with the same weights. The layer lists are the nn
tests' (which compare eager mode with real Paddle)."""
import numpy as np
import pytest

import torchpaddle as paddle
from tests.nn import basic_layer_cases, conv_layer_cases, norm_layer_cases, pool_layer_cases
from tests.device_numerics import float32_tolerance
from tests.nn.layer_case_tools import fill_state, stable_seed

# layers drawing random numbers in eval mode too, or taking no plain float input
_SKIP = {"rrelu", "rrelu_bounds", "embedding", "embedding_padding_idx", "embedding_sparse", "alpha_dropout",
         "feature_alpha_dropout", "dropout", "dropout2d", "dropout3d"}


def _cases():
    cases = {}
    for table in (basic_layer_cases.ACTIVATIONS, basic_layer_cases.COMMON, conv_layer_cases.LAYERS,
                  pool_layer_cases.LAYERS):
        for name, entry in table.items():
            kwargs = entry[2] if len(entry) > 2 and isinstance(entry[2], dict) else {}
            shapes = entry[1]
            if name in _SKIP or not shapes or not isinstance(shapes[0], tuple) or \
                    not all(isinstance(d, int) for d in shapes[0]):
                continue
            cases[name] = (entry[0], shapes[0], kwargs)
    for name, entry in norm_layer_cases.LAYERS.items():
        cases[name] = (entry[0], entry[1], {})
    return cases


CASES = _cases()


@pytest.mark.parametrize("name", sorted(CASES))
def test_static_layer_equals_eager(name, static_mode):
    make, shape, kwargs = CASES[name]
    main, startup = static_mode
    rng = np.random.RandomState(stable_seed(name))
    x = rng.uniform(-2, 2, shape).astype("float32")

    paddle.disable_static()
    try:
        eager = make(paddle.nn)
        eager.eval()
        fill_state(eager, rng)
        state = {k: v.numpy() for k, v in eager.state_dict().items()}
        want = eager(paddle.to_tensor(x), **kwargs)
        want = [w.numpy() for w in (want if isinstance(want, (list, tuple)) else [want])]
    finally:
        paddle.enable_static()

    layer = make(paddle.nn)
    layer.eval()
    xv = paddle.static.data("x", list(shape), "float32")
    out = layer(xv, **kwargs)
    outs = list(out) if isinstance(out, (list, tuple)) else [out]
    static_state = layer.state_dict()
    assert sorted(static_state) == sorted(state), f"{name}: state_dict keys differ from eager"
    exe = paddle.static.Executor()   # the current place, where the eager run computed ``want``
    exe.run(startup)
    scope = paddle.static.global_scope()
    for key, var in static_state.items():
        assert list(var.shape) == list(state[key].shape), f"{name}: {key} shape"
        scope.var(var.name).get_tensor().set(state[key])
    got = exe.run(main, feed={"x": x}, fetch_list=outs)
    assert len(got) == len(want)
    for g, w, v in zip(got, want, outs):
        assert list(v.shape) == list(w.shape), f"{name}: inferred shape {v.shape}, computed {list(w.shape)}"
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6, err_msg=name)


def test_batch_norm_training_updates_running_statistics(static_mode):
    main, startup = static_mode
    rng = np.random.RandomState(0)
    x = rng.uniform(0, 3, (8, 3, 4, 4)).astype("float32")
    paddle.disable_static()
    try:
        eager = paddle.nn.BatchNorm2D(3, momentum=0.8)
        outs = [eager(paddle.to_tensor(x)).numpy() for _ in range(2)]
        mean, var = eager._mean.numpy(), eager._variance.numpy()
    finally:
        paddle.enable_static()
    bn = paddle.nn.BatchNorm2D(3, momentum=0.8)
    y = bn(paddle.static.data("x", [-1, 3, 4, 4], "float32"))
    exe = paddle.static.Executor(paddle.CPUPlace())
    exe.run(startup)
    got = [exe.run(main, feed={"x": x}, fetch_list=[y])[0] for _ in range(2)]
    np.testing.assert_allclose(got, outs, rtol=1e-5, atol=1e-6)
    scope = paddle.static.global_scope()
    np.testing.assert_allclose(np.array(scope.find_var(bn._mean.name).get_tensor()), mean, rtol=1e-6)
    np.testing.assert_allclose(np.array(scope.find_var(bn._variance.name).get_tensor()), var, rtol=1e-6)


SEQUENCE_LAYERS = {
    "lstm_2layers": lambda: paddle.nn.LSTM(8, 6, num_layers=2),
    "gru_bidirect": lambda: paddle.nn.GRU(8, 6, direction="bidirect"),
    "simple_rnn_cell": lambda: paddle.nn.RNN(paddle.nn.SimpleRNNCell(8, 5)),
    "transformer_encoder": lambda: paddle.nn.TransformerEncoder(
        paddle.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0), 2),
    "multi_head_attention": lambda: paddle.nn.MultiHeadAttention(8, 2),
}


@pytest.mark.parametrize("name", sorted(SEQUENCE_LAYERS))
def test_sequence_layers_with_unknown_batch(name, static_mode):
    """Initial states of a batch known only at run time come from fill_constant_batch_size_like."""
    main, startup = static_mode
    make = SEQUENCE_LAYERS[name]
    x = np.random.RandomState(1).rand(3, 5, 8).astype("float32")
    paddle.disable_static()
    try:
        eager = make()
        eager.eval()
        state = {k: v.numpy() for k, v in eager.state_dict().items()}
        want = eager(paddle.to_tensor(x))
        want = (want[0] if isinstance(want, (list, tuple)) else want).numpy()
    finally:
        paddle.enable_static()
    layer = make()
    layer.eval()
    out = layer(paddle.static.data("x", [-1, 5, 8], "float32"))
    out = out[0] if isinstance(out, (list, tuple)) else out
    assert out.shape == [-1] + list(want.shape[1:])
    exe = paddle.static.Executor()   # the current place, where the eager run computed ``want``
    exe.run(startup)
    for key, var in layer.state_dict().items():
        paddle.static.global_scope().var(var.name).get_tensor().set(state[key])
    got, = exe.run(main, feed={"x": x}, fetch_list=[out])
    rtol, atol = float32_tolerance(1e-5, 1e-6, cudnn=True)   # eager RNNs run cuDNN's kernel on a GPU
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)


def test_fill_constant_batch_size_like_op():
    from torchpaddle import ops
    ref = paddle.to_tensor(np.zeros([4, 7], "float32"))
    out = ops.fill_constant_batch_size_like(ref, shape=[2, -1, 3], value=1.5, dtype=paddle.float64.proto,
                                            input_dim_idx=0, output_dim_idx=1)
    np.testing.assert_array_equal(out.numpy(), np.full([2, 4, 3], 1.5))
    with pytest.raises(ValueError, match="input_dim_idx"):
        ops.fill_constant_batch_size_like(ref, shape=[2, -1], value=0.0, input_dim_idx=2, output_dim_idx=1)
    with pytest.raises(ValueError, match="output_dim_idx"):
        ops.fill_constant_batch_size_like(ref, shape=[2, -1], value=0.0, input_dim_idx=0, output_dim_idx=5)


def test_weight_norm_param_attr(static_mode):
    """w = g * v / ||v|| (norm over every dim but ``dim``); g starts at ||v||, so w starts equal to v."""
    main, startup = static_mode
    x = paddle.static.data("x", [-1, 4], "float32")
    layer = paddle.nn.Linear(4, 3, weight_attr=paddle.static.WeightNormParamAttr(dim=1))
    loss = paddle.sum(layer(x))
    paddle.static.append_backward(loss)
    assert sorted(p.name for p in main.all_parameters()) == ["linear_0.b_0", "linear_0.w_0_g", "linear_0.w_0_v"]
    exe = paddle.static.Executor(paddle.CPUPlace())
    exe.run(startup)
    scope = paddle.static.global_scope()
    v = np.array(scope.find_var("linear_0.w_0_v").get_tensor())
    g = np.array(scope.find_var("linear_0.w_0_g").get_tensor())
    np.testing.assert_allclose(g, np.linalg.norm(v, axis=0), rtol=1e-6)
    X = np.random.RandomState(0).rand(5, 4).astype("float32")
    out, g_grad = exe.run(main, feed={"x": X}, fetch_list=[loss, "linear_0.w_0_g@GRAD"])
    np.testing.assert_allclose(out, (X @ v).sum(), rtol=1e-5)
    np.testing.assert_allclose(g_grad, X.sum(0) @ (v / np.linalg.norm(v, axis=0)), rtol=1e-5)
    with pytest.raises(ValueError, match="dim"):
        paddle.nn.Linear(4, 3, weight_attr=paddle.static.WeightNormParamAttr(dim=2))


def test_weight_norm_param_attr_is_static_only():
    with pytest.raises(TypeError, match="static graph mode only"):
        paddle.nn.Linear(4, 3, weight_attr=paddle.static.WeightNormParamAttr(dim=None))
