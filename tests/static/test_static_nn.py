"""paddle.static.nn layers: outputs after running the program equal the eager functional (and NumPy) with the same
weights; parameter names, shapes and outputs equal real Paddle 3.3.1's; moving statistics; errors."""
import os
import pickle
import tempfile

import numpy as np
import pytest

import torchpaddle as paddle
import torchpaddle.nn.functional as F
import paddle_ref
from tests.static import static_nn_scenarios as scenarios
from tests.static.static_nn_scenarios import FEED, weight_for


def _t(a):
    return paddle.to_tensor(a)


def _spectral(w, dim, iters, u, v, eps=1e-12):
    m = np.moveaxis(w, dim, 0).reshape(w.shape[dim], -1).astype("float64")
    for _ in range(iters):
        v = m.T @ u
        v = v / (np.linalg.norm(v) + eps)
        u = m @ v
        u = u / (np.linalg.norm(u) + eps)
    return w / (u @ m @ v)


def _prelu(x, alpha):
    return np.where(x > 0, x, alpha * x)


# eager references: (params {name: ndarray}, inputs {name: Tensor}) -> list of ndarrays
def _ref_fc(p, v):
    vec, vec2 = v["vec"].numpy(), v["vec2"].numpy()
    return [np.tanh(vec @ p["fc_0.w_0"] + p["fc_0.b_0"]), vec @ p["two.w_0"] + vec2 @ p["two.w_1"] + p["two.b_0"]]


def _ref_bn(p, v):
    x = v["img"]
    mean0, var0 = _t(p["batch_norm_0.w_1"].copy()), _t(p["batch_norm_0.w_2"].copy())
    train = F.relu(F.batch_norm(x, mean0, var0, _t(p["batch_norm_0.w_0"]), _t(p["batch_norm_0.b_0"]),
                                training=True))
    test = F.batch_norm(x, _t(p["batch_norm_1.w_1"]), _t(p["batch_norm_1.w_2"]), _t(p["batch_norm_1.w_0"]),
                        _t(p["batch_norm_1.b_0"]), training=False)
    return [train.numpy(), test.numpy()]


REFERENCES = {
    "fc": _ref_fc,
    "fc_flatten": lambda p, v: [v["img"].numpy().reshape(2, 3, 36) @ p["fc_0.w_0"] + p["fc_0.b_0"]],
    "conv2d": lambda p, v: [
        F.relu(F.conv2d(v["img"], _t(p["conv2d_0.w_0"]), _t(p["conv2d_0.b_0"]), padding=1)).numpy(),
        F.conv2d(v["img"], _t(p["conv2d_1.w_0"]), None, stride=2, groups=3).numpy()],
    "conv2d_transpose": lambda p, v: [
        F.conv2d_transpose(v["img"], _t(p["conv2d_transpose_0.w_0"]), _t(p["conv2d_transpose_0.b_0"]),
                           stride=2).numpy(),
        F.conv2d_transpose(v["img"], _t(p["conv2d_transpose_1.w_0"]), _t(p["conv2d_transpose_1.b_0"])).numpy()],
    "conv3d": lambda p, v: [
        F.conv3d(paddle.unsqueeze(v["img"], 2), _t(p["conv3d_0.w_0"]), _t(p["conv3d_0.b_0"]),
                 padding=[0, 1, 1]).numpy(),
        F.conv3d_transpose(paddle.unsqueeze(v["img"], 2), _t(p["conv3d_transpose_0.w_0"]),
                           _t(p["conv3d_transpose_0.b_0"])).numpy()],
    "batch_norm": _ref_bn,
    "layer_norm": lambda p, v: [
        F.layer_norm(v["img"], [6, 6], _t(p["layer_norm_0.w_0"]),
                     _t(p["layer_norm_0.b_0"])).numpy(),
        F.layer_norm(v["vec"], [6], None, _t(p["layer_norm_1.b_0"]), epsilon=1e-4).numpy()],
    "embedding": lambda p, v: [np.where((v["ids"].numpy() == 2)[..., None], 0.0,
                                        p["embedding_0.w_0"][v["ids"].numpy()])],
    "group_norm": lambda p, v: [
        F.group_norm(v["img"], 3).numpy(),
        F.group_norm(v["img"], 1, weight=_t(p["group_norm_1.w_0"]), bias=_t(p["group_norm_1.b_0"])).numpy()],
    "instance_norm": lambda p, v: [
        F.instance_norm(v["img"]).numpy(),
        F.instance_norm(v["img"], weight=_t(p["instance_norm_1.w_0"]), bias=_t(p["instance_norm_1.b_0"])).numpy()],
    "prelu": lambda p, v: [_prelu(v["img"].numpy(), p["prelu_0.w_0"]), _prelu(v["img"].numpy(), p["prelu_1.w_0"]),
                           _prelu(v["img"].numpy(), p["prelu_2.w_0"])],
    "bilinear_tensor_product": lambda p, v: [
        F.sigmoid(F.bilinear(v["vec"], v["vec2"], _t(p["bilinear_tensor_product_0.w_0"]),
                             _t(p["bilinear_tensor_product_0.b_0"]))).numpy()],
    "spectral_norm": lambda p, v: [_spectral(p["sn_weight"], 1, 3, p["spectral_norm_0.w_0"],
                                             p["spectral_norm_0.w_1"])],
}

# parameter name -> shape, as real Paddle 3.3.1 names them (checked against it by test_matches_real_paddle)
EXPECTED_PARAMS = {
    "conv2d": {"conv2d_0.w_0": (4, 3, 3, 3), "conv2d_0.b_0": (4,), "conv2d_1.w_0": (6, 1, 2, 3)},
    "batch_norm": {f"batch_norm_{i}.{k}": (3,) for i in (0, 1) for k in ("w_0", "b_0", "w_1", "w_2")},
    "group_norm": {"group_norm_1.w_0": (3,), "group_norm_1.b_0": (3,)},
    "prelu": {"prelu_0.w_0": (1,), "prelu_1.w_0": (1, 3, 1, 1), "prelu_2.w_0": (1, 3, 6, 6)},
}


@pytest.fixture(scope="module")
def ours():
    return scenarios.run_all(paddle, ["layers"])["layers"]


@pytest.mark.parametrize("name", sorted(scenarios.LAYERS))
def test_layer_equals_eager_functional(name, ours):
    result = ours[name]
    assert sorted(REFERENCES) == sorted(scenarios.LAYERS)
    params = {n: weight_for(n, shape, stop) for n, (shape, stop, _) in result["params"].items()}
    inputs = {k: paddle.to_tensor(v) for k, v in FEED.items()}
    expected = REFERENCES[name](params, inputs)
    assert len(result["outs"]) == len(expected)
    for got, want in zip(result["outs"], expected):
        assert got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5, err_msg=name)
    for layer, shapes in EXPECTED_PARAMS.items():
        if layer == name:
            assert {n: s for n, (s, _, _) in result["params"].items()} == shapes


def test_batch_norm_updates_moving_statistics(ours):
    result = ours["batch_norm"]
    x = FEED["img"].astype("float64")
    mean0, var0 = weight_for("batch_norm_0.w_1", (3,), True), weight_for("batch_norm_0.w_2", (3,), True)
    batch_mean, batch_var = x.mean((0, 2, 3)), x.var((0, 2, 3))
    np.testing.assert_allclose(result["stats"]["batch_norm_0.w_1"], 0.9 * mean0 + 0.1 * batch_mean, rtol=1e-5)
    np.testing.assert_allclose(result["stats"]["batch_norm_0.w_2"], 0.9 * var0 + 0.1 * batch_var, rtol=1e-5)
    # is_test: the statistics are read, not updated
    np.testing.assert_array_equal(result["stats"]["batch_norm_1.w_1"], weight_for("batch_norm_1.w_1", (3,), True))
    assert result["params"]["batch_norm_0.w_1"][1:] == (True, True)   # stop_gradient, persistable


def test_batch_norm_program_writes_statistics_in_place(static_mode):
    main, _ = static_mode
    x = paddle.static.data("x", [-1, 3, 4, 4], "float32")
    paddle.static.nn.batch_norm(x, name="bn")
    op = [o for o in main.global_block().ops if o.type == "batch_norm"][0]
    assert op.output("MeanOut") == ["bn.w_1"] and op.output("VarianceOut") == ["bn.w_2"]
    assert op.input("Mean") == ["bn.w_1"] and op.attr("is_test") is False
    test = main.clone(for_test=True)
    assert [o for o in test.global_block().ops if o.type == "batch_norm"][0].attr("is_test") is True


def test_names_count_per_layer_type(static_mode):
    x = paddle.static.data("x", [-1, 4], "float32")
    a = paddle.static.nn.fc(x, 3)
    paddle.static.nn.fc(a, 2)
    named = paddle.static.nn.fc(x, 2, name="head")
    main = static_mode[0]
    assert [p.name for p in main.all_parameters()] == ["fc_0.w_0", "fc_0.b_0", "fc_1.w_0", "fc_1.b_0",
                                                       "head.w_0", "head.b_0"]
    assert named.shape == [-1, 2]


def test_conv2d_default_initializer_scale(static_mode):
    """Paddle's conv2d filter default: normal with std sqrt(2 / (kh * kw * C))."""
    main, startup = static_mode
    x = paddle.static.data("x", [-1, 8, 5, 5], "float32")
    paddle.static.nn.conv2d(x, 64, 3)
    exe = paddle.static.Executor()
    exe.run(startup)
    w = np.array(paddle.static.global_scope().find_var("conv2d_0.w_0").get_tensor())
    assert w.shape == (64, 8, 3, 3)
    assert abs(w.std() - (2.0 / 72) ** 0.5) < 0.02


@pytest.mark.parametrize("call, error", [
    (lambda v: paddle.static.nn.conv2d(v["vec"], 2, 3), ValueError),            # not 4-D
    (lambda v: paddle.static.nn.conv2d(v["img"], 0, 3), ValueError),            # num_filters
    (lambda v: paddle.static.nn.conv2d(v["img"], 2, 3, groups=2), ValueError),  # 3 channels / 2 groups
    (lambda v: paddle.static.nn.conv2d(v["ids"], 2, 3), TypeError),             # int input
    (lambda v: paddle.static.nn.conv2d_transpose(v["img"], 2), ValueError),     # no filter_size nor output_size
    (lambda v: paddle.static.nn.batch_norm(v["img"], data_layout="NCL"), ValueError),
    (lambda v: paddle.static.nn.layer_norm(v["img"], begin_norm_axis=4), ValueError),
    (lambda v: paddle.static.nn.embedding(v["vec"], [10, 4]), TypeError),        # float ids
    (lambda v: paddle.static.nn.embedding(v["ids"], [10]), ValueError),
    (lambda v: paddle.static.nn.embedding(v["ids"], [10, 4], padding_idx=10), ValueError),
    (lambda v: paddle.static.nn.group_norm(v["img"], 2), ValueError),
    (lambda v: paddle.static.nn.prelu(v["img"], "row"), ValueError),
    (lambda v: paddle.static.nn.bilinear_tensor_product(v["img"], v["vec"], 3), ValueError),
    (lambda v: paddle.static.nn.fc(v["vec"], 0), ValueError),
    (lambda v: paddle.static.nn.fc("x", 2), TypeError),
    (lambda v: paddle.static.nn.fc(v["vec"], 2, activation="nope"), ValueError),
    (lambda v: paddle.static.nn.spectral_norm(v["vec"], dim=2), ValueError),
])
def test_bad_input(static_mode, call, error):
    v = {"img": paddle.static.data("img", [-1, 3, 6, 6], "float32"),
         "vec": paddle.static.data("vec", [-1, 6], "float32"),
         "ids": paddle.static.data("ids", [-1, 3], "int64")}
    with pytest.raises(error):
        call(v)


@pytest.mark.parametrize("call", [
    lambda x: paddle.static.nn.fc(x, 2), lambda x: paddle.static.nn.conv2d(x, 2, 1),
    lambda x: paddle.static.nn.batch_norm(x), lambda x: paddle.static.nn.embedding(x, [4, 2]),
])
def test_dygraph_is_refused(call):
    """As in Paddle, the static.nn layers only build programs."""
    with pytest.raises(AssertionError, match="enable_static"):
        call(paddle.ones([2, 3, 4, 4]))


@pytest.mark.multiprocess
@pytest.mark.conformance
def test_matches_real_paddle(ours):
    """Parameter names, shapes, stop_gradient/persistable flags, outputs and moving statistics vs Paddle 3.3.1's
    legacy static graph with the same weights."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "ref.pkl")
        paddle_ref.run_module("tests.static.static_nn_scenarios", path, "legacy", "layers")
        with open(path, "rb") as f:
            theirs = pickle.load(f)["results"]["layers"]
    assert not (isinstance(theirs, tuple) and theirs[0] == "E"), theirs
    for name, ref in theirs.items():
        got = ours[name]
        assert got["params"] == ref["params"], name
        assert sorted(got["stats"]) == sorted(ref["stats"]), name
        for key in ref["stats"]:
            np.testing.assert_allclose(got["stats"][key], ref["stats"][key], rtol=1e-5, atol=1e-6,
                                       err_msg=f"{name}.{key}")
        assert len(got["outs"]) == len(ref["outs"]), name
        for i, (o, t) in enumerate(zip(got["outs"], ref["outs"])):
            assert o.shape == t.shape and o.dtype == t.dtype, f"{name}[{i}]"
            np.testing.assert_allclose(o, t, rtol=1e-4, atol=1e-5, err_msg=f"{name}[{i}]")
