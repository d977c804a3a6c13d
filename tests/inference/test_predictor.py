"""paddle.inference: models saved by real Paddle 3.3.1 (legacy ``.pdmodel`` and PIR ``.json``) run through our
predictor give what Paddle's predictor gives; models saved here give the layer's own outputs."""
import numpy as np
import pytest

import paddle_ref
import torchpaddle as paddle
from torchpaddle import inference
from tests.inference.predictor_cases import FORMATS, IMG, X


@pytest.fixture(scope="module")
def paddle_models(tmp_path_factory):
    folder = tmp_path_factory.mktemp("paddle_models")
    return str(folder), paddle_ref.results("tests.inference.predictor_cases", str(folder), timeout=300)


def _predictor(folder, fmt):
    prefix = f"{folder}/{fmt}/m"
    return inference.create_predictor(inference.Config(f"{prefix}.{FORMATS[fmt]}", f"{prefix}.pdiparams"))


@pytest.mark.conformance
@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_paddle_saved_model_matches_paddle_predictor(paddle_models, fmt):
    folder, ref = paddle_models
    ref = ref[fmt]
    p = _predictor(folder, fmt)
    assert p.get_input_names() == ref["inputs"] and p.get_output_names() == ref["outputs"]
    x = p.get_input_handle("x")
    assert (x.shape(), str(x.type())) == tuple(ref["fresh"])
    x.reshape([2, 4])
    assert x.shape() == ref["reshaped"]
    x.copy_from_cpu(X)
    p.get_input_handle("img").copy_from_cpu(IMG)
    assert p.run() is None
    for name, (shape, dtype, value) in zip(ref["outputs"], ref["handles"]):
        h = p.get_output_handle(name)
        assert (h.shape(), str(h.type())) == (shape, dtype)
        np.testing.assert_allclose(h.copy_to_cpu(), value, rtol=1e-5, atol=1e-6)
    outs = p.run([paddle.to_tensor(X[:1]), paddle.to_tensor(IMG[:1])])
    assert all(isinstance(t, paddle.Tensor) for t in outs)
    for ours, theirs in zip(outs, ref["run_list"]):
        np.testing.assert_allclose(ours.numpy(), theirs, rtol=1e-5, atol=1e-6)
    errors = {"unknown_input": lambda: p.get_input_handle("nope"), "copy_list": lambda: x.copy_from_cpu([1.0])}
    for key, fn in errors.items():
        with pytest.raises(Exception) as info:
            fn()
        assert type(info.value).__name__ == ref["errors"][key], key


@pytest.mark.conformance
@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_mixed_precision_model_of_paddle_file(paddle_models, fmt, tmp_path):
    folder, ref = paddle_models
    prefix, suffix = f"{folder}/{fmt}/m", FORMATS[fmt]
    for precision, low, tol in [(inference.PrecisionType.Half, "paddle.float16", 3e-3),
                                (inference.PrecisionType.Bfloat16, "paddle.bfloat16", 3e-2)]:
        model, params = str(tmp_path / f"half.{suffix}"), str(tmp_path / "half.pdiparams")
        inference.convert_to_mixed_precision(f"{prefix}.{suffix}", f"{prefix}.pdiparams", model, params,
                                             precision, inference.PlaceType.CPU)
        p = inference.create_predictor(inference.Config(model, params))
        weights = {v.name: str(v.dtype) for v in p._program.global_block().vars.values() if v.persistable}
        assert weights["linear_0.w_0"] == low and weights["conv2d_0.w_0"] == low, weights
        outs = p.run([paddle.to_tensor(X[:1]), paddle.to_tensor(IMG[:1])])
        for ours, theirs in zip(outs, ref[fmt]["run_list"]):
            assert ours.dtype == paddle.float32   # keep_io_types
            np.testing.assert_allclose(ours.numpy(), theirs, rtol=tol, atol=tol)


class Net(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(4, 3)

    def forward(self, x):
        return paddle.tanh(self.fc(x))


@pytest.fixture
def saved(tmp_path):
    paddle.seed(3)
    net = Net()
    net.eval()
    prefix = str(tmp_path / "net")
    paddle.jit.save(net, prefix, input_spec=[paddle.static.InputSpec([None, 4], "float32", "x")])
    return net, prefix


def test_model_saved_here_gives_layer_output(saved):
    net, prefix = saved
    config = inference.Config(prefix + ".json", prefix + ".pdiparams")
    config.enable_mkldnn()
    config.switch_ir_optim(False)
    config.set_cpu_math_library_num_threads(2)
    assert config.cpu_math_library_num_threads() == 2 and not config.ir_optim()
    assert "model_file" in config.summary() and prefix + ".json" in config.summary()
    p = inference.create_predictor(config)
    h = p.get_input_handle(p.get_input_names()[0])
    h.copy_from_cpu(X)
    p.run()
    out = p.get_output_handle(p.get_output_names()[0])
    want = np.tanh(X @ net.fc.weight.numpy() + net.fc.bias.numpy())   # the Linear by hand
    np.testing.assert_allclose(out.copy_to_cpu(), want, rtol=1e-6, atol=1e-6)
    assert out.shape() == [2, 3] and out.type() == inference.DataType.FLOAT32


def test_clone_shares_weights_not_io(saved):
    _, prefix = saved
    p = inference.create_predictor(inference.Config(prefix + ".json", prefix + ".pdiparams"))
    q = p.clone()
    assert q._scope is p._scope and q._program is p._program   # one copy of the weights and plans
    a = p.run([paddle.to_tensor(X)])[0].numpy()
    b = q.run([paddle.to_tensor(X[:1] * 2)])[0].numpy()
    assert a.shape == (2, 3) and b.shape == (1, 3)
    np.testing.assert_allclose(p.get_output_handle(p.get_output_names()[0]).copy_to_cpu(), a)
    pool = inference.PredictorPool(inference.Config(prefix + ".json", prefix + ".pdiparams"), 2)
    np.testing.assert_allclose(pool.retrieve(1).run([paddle.to_tensor(X)])[0].numpy(), a, rtol=1e-6)


def test_model_from_memory(saved):
    _, prefix = saved
    config = inference.Config()
    model, params = open(prefix + ".json", "rb").read(), open(prefix + ".pdiparams", "rb").read()
    config.set_model_buffer(model, len(model), params, len(params))
    assert config.model_from_memory()
    assert inference.create_predictor(config).run([paddle.to_tensor(X)])[0].shape == [2, 3]


def test_errors(saved, tmp_path):
    _, prefix = saved
    p = inference.create_predictor(inference.Config(prefix + ".json", prefix + ".pdiparams"))
    with pytest.raises(RuntimeError, match="no data"):
        p.run()
    with pytest.raises(RuntimeError, match="holds no memory"):
        p.get_output_handle(p.get_output_names()[0]).copy_to_cpu()
    with pytest.raises(RuntimeError, match="nope"):
        p.get_output_handle("nope")
    h = p.get_input_handle("x")
    h.copy_from_cpu(X.astype("float64"))
    with pytest.raises(ValueError, match="float32"):
        p.run()
    with pytest.raises(ValueError, match="inputs"):
        p.run([paddle.to_tensor(X), paddle.to_tensor(X)])
    with pytest.raises(TypeError):
        p.run([X])
    with pytest.raises(RuntimeError, match="Cannot open"):
        inference.create_predictor(inference.Config(str(tmp_path / "none.json"), prefix + ".pdiparams"))
    with pytest.raises(ValueError, match="names no model"):
        inference.create_predictor(inference.Config())
    with pytest.raises(TypeError):
        inference.create_predictor("model")
    with pytest.raises(TypeError):
        inference.Config(1, 2, 3)
    with pytest.raises(ValueError):
        inference.Config().set_cpu_math_library_num_threads(0)
    with pytest.raises(ValueError, match="keep_io_types"):
        inference.convert_to_mixed_precision(prefix + ".json", prefix + ".pdiparams", str(tmp_path / "a.json"),
                                             str(tmp_path / "a.pdiparams"), inference.PrecisionType.Half,
                                             inference.PlaceType.CPU, keep_io_types=False)


def test_enums_and_versions():
    # values and spellings of Paddle 3.3.1's pybind enums
    assert int(inference.DataType.FLOAT64) == 7 and str(inference.DataType.FLOAT32) == "PaddleDType.FLOAT32"
    assert int(inference.PrecisionType.Bfloat16) == 3 and int(inference.PlaceType.CUSTOM) == 4
    sizes = {k: inference.get_num_bytes_of_data_type(v) for k, v in inference.DataType.__members__.items()}
    assert sizes == {"FLOAT64": -1, "FLOAT32": 4, "FLOAT16": -1, "BFLOAT16": -1, "INT64": 8, "INT32": 4,
                     "UINT8": 1, "INT8": -1, "BOOL": -1}
    assert inference.get_trt_compile_version() == (0, 0, 0) == inference.get_trt_runtime_version()
    assert inference.get_version().startswith("version: 3.3.1\n")
    with pytest.raises(TypeError):
        inference.get_num_bytes_of_data_type("float32")


def test_model_dir_of_separate_files(static_mode, legacy_program_format, tmp_path):
    """``Config(model_dir)``: the 1.x layout, ``__model__`` and one file per weight."""
    x = paddle.static.data("x", [None, 4], "float32")
    y = paddle.static.nn.fc(x, 3)
    exe = paddle.static.Executor()
    exe.run(paddle.static.default_startup_program())
    paddle.static.save_inference_model(str(tmp_path / "m"), [x], [y], exe, separate_parameters=True,
                                       program=paddle.static.default_main_program())
    want = exe.run(feed={"x": X}, fetch_list=[y])[0]
    p = inference.create_predictor(inference.Config(str(tmp_path)))
    assert inference.Config(str(tmp_path)).model_dir() == str(tmp_path)
    p.get_input_handle("x").copy_from_cpu(X)
    p.run()
    np.testing.assert_allclose(p.get_output_handle(p.get_output_names()[0]).copy_to_cpu(), want, rtol=1e-6)
