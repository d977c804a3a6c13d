"""paddle.Model / callbacks / summary / flops: argument checking, error types and messages (as Paddle 3.3.1
raises them), callback plumbing, and checkpoint interop with real Paddle (a checkpoint torchpaddle writes is
loaded by real Paddle's Model.load; the reverse direction is the ``resume_checkpoint`` fixture case)."""
import json
import types
import warnings

import numpy as np
import pytest

import hapi_compare as H
import paddle_ref
import torchpaddle as paddle
from torchpaddle import nn
from torchpaddle.hapi.callbacks import CallbackList, config_callbacks

hapi_cases = H.hapi_cases


def _model(prepare=True, metrics=True):
    net = hapi_cases.mlp(paddle)
    model = paddle.Model(net)
    if prepare:
        model.prepare(paddle.optimizer.SGD(0.1, parameters=net.parameters()), nn.CrossEntropyLoss(),
                      paddle.metric.Accuracy() if metrics else None)
    return model


X = np.linspace(-1, 1, 24).reshape(3, 8).astype("float32")
Y = np.array([[0], [1], [2]], dtype="int64")


# -- prepare / batch methods -------------------------------------------------------------------------------
def test_train_batch_needs_prepare():
    with pytest.raises(AssertionError, match=r"model not ready, please call `model.prepare\(\)` first"):
        _model(prepare=False).train_batch([X], [Y])


@pytest.mark.parametrize("kwargs, error, message", [
    ({"loss": 3}, TypeError, "'loss' must be sub classes of `paddle.nn.Layer` or any callable function."),
    ({"metrics": 3}, AssertionError, "int is not sub class of Metric"),
    ({"metrics": [paddle.metric.Accuracy(), "acc"]}, AssertionError, "str is not sub class of Metric"),
    ({"amp_configs": "O3"}, ValueError, "The level of amp_configs should be 'O0', 'O1' or 'O2'."),
    ({"amp_configs": {"level": "O4"}}, ValueError, "amp_configs['level'] should be 'O0', 'O1' or 'O2'."),
    ({"amp_configs": {"level": "O1", "use_pure_fp16": True}}, ValueError, "'use_pure_fp16' is an invalid"),
    ({"amp_configs": {"level": "O1", "bogus": 1}}, ValueError, r"but ('bogus',) could not be recognized"),
    ({"amp_configs": {"level": "O1", "use_fp16_guard": False}}, ValueError,
     "'use_fp16_guard' is supported in static graph mode only."),
])
def test_prepare_rejects_bad_arguments(kwargs, error, message):
    model = _model(prepare=False)
    with pytest.raises(error) as info:
        model.prepare(**kwargs)
    assert message in str(info.value)


def test_amp_level_o0_is_plain_training():
    model = _model(prepare=False)
    model.prepare(paddle.optimizer.SGD(0.1, parameters=model.parameters()), nn.CrossEntropyLoss(),
                  amp_configs={"level": "O0", "init_loss_scaling": 128.0})
    assert model._adapter._amp_level == "O0"
    assert len(model.train_batch([X], [Y])) == 1


def test_batch_methods_accept_arrays_and_tensors():
    model = _model()
    losses, metrics = model.train_batch([paddle.to_tensor(X)], [paddle.to_tensor(Y)])
    assert isinstance(losses[0], np.ndarray) and losses[0].shape == () and losses[0].dtype == np.float32
    assert len(metrics) == 1
    out = model.predict_batch(X)   # a bare array is one input
    assert isinstance(out, list) and out[0].shape == (3, 3)
    assert model.parameters() == model.network.parameters()
    # no loss and no metrics: eval_batch returns the (empty) metric list
    bare = _model(prepare=False)
    bare.prepare()
    assert bare.eval_batch([X], [Y]) == []
    no_metric = _model(metrics=False)
    assert isinstance(no_metric.eval_batch([X], [Y]), list)


def test_train_batch_update_false_accumulates():
    model = _model(metrics=False)
    before = hapi_cases.params(model.network)
    model.train_batch([X], [Y], update=False)
    assert all(np.array_equal(before[k], v) for k, v in hapi_cases.params(model.network).items())
    grads = [p.grad for p in model.parameters()]
    assert all(g is not None for g in grads)


def test_optional_forward_arguments_are_not_an_error():
    # NOTE: Paddle raises IndexError here (it builds one InputSpec per forward argument from the inputs given)
    class Net(nn.Layer):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(8, 3)

        def forward(self, x, mask=None):
            return self.fc(x)

    model = paddle.Model(Net())
    assert [s.name for s in model._inputs] == ["x", "mask"]
    model.prepare(paddle.optimizer.SGD(0.1, parameters=model.parameters()), nn.CrossEntropyLoss())
    model.train_batch([X], [Y])
    assert [s.name for s in model._inputs] == ["x"]


def test_fit_needs_train_data_and_valid_batch_size():
    model = _model()
    with pytest.raises(AssertionError, match="train_data must be given!"):
        model.fit(None)
    with pytest.raises(AssertionError, match="batch_size length error"):
        model.fit(hapi_cases.dataset(paddle, 4, [8], 3, 0), batch_size=[1, 2, 3], verbose=0)
    with pytest.raises(AssertionError, match="num_iters must be greater than 0!"):
        model.fit(hapi_cases.dataset(paddle, 4, [8], 3, 0), num_iters=0, verbose=0)


def test_fit_with_two_batch_sizes(capsys):
    model = _model()
    model.fit(hapi_cases.dataset(paddle, 8, [8], 3, 0), hapi_cases.dataset(paddle, 6, [8], 3, 1),
              batch_size=[4, 3], epochs=1, verbose=2, log_freq=1, shuffle=False)
    out = capsys.readouterr().out
    assert "step 2/2 - loss:" in out and "Eval samples: 6" in out


def test_static_mode_is_refused():
    net, spec = nn.Linear(2, 2), hapi_cases_spec()
    paddle.enable_static()
    try:
        with pytest.raises(TypeError, match="'inputs' must be list or tuple or dict"):
            paddle.Model(net)
        with pytest.raises(NotImplementedError, match="static graph mode"):
            paddle.Model(net, inputs=[spec])
    finally:
        paddle.disable_static()


def hapi_cases_spec():
    from torchpaddle.hapi.model_summary import _input_spec_types
    return _input_spec_types()[0](shape=[None, 2], dtype="float32", name="x")


def test_inputs_and_labels_specs():
    spec = hapi_cases_spec()
    model = paddle.Model(nn.Linear(2, 2), inputs=spec, labels=[spec])
    assert model._inputs == [spec] and model._labels == [spec]
    assert model._input_info == ([[-1, 2]], [paddle.float32])
    nameless = type(spec)(shape=[None, 2], dtype="float32")
    with pytest.raises(ValueError, match=r"Requires Input\[0\].name != None"):
        paddle.Model(nn.Linear(2, 2), inputs=[nameless])
    with pytest.raises(TypeError, match=r"inputs must be InputSpec instances .* got \['tuple'\]"):
        paddle.Model(nn.Linear(2, 2), inputs=[(None, 2)])   # Paddle: AttributeError ('tuple' has no 'shape')


def test_save_for_inference_needs_input_shapes(tmp_path):
    with pytest.raises(RuntimeError, match="Saving inference model needs 'inputs'"):
        _model().save(str(tmp_path / "infer"), training=False)


# -- load ------------------------------------------------------------------------------------------------
def test_skip_mismatch_on_the_first_key(tmp_path):
    # NOTE: Paddle fails here (it appends the previous key's pair, which does not exist yet); we skip the key.
    model = _model()
    model.save(str(tmp_path / "m"))
    other = paddle.Model(hapi_cases.set_weights(nn.Sequential(nn.Linear(8, 5), nn.ReLU(), nn.Linear(5, 3)), 3))
    before = hapi_cases.params(other.network)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        other.load(str(tmp_path / "m"), skip_mismatch=True)
    assert any("Skip loading for 0.weight" in str(w.message) for w in caught)
    after = hapi_cases.params(other.network)
    assert np.array_equal(before["0.weight"], after["0.weight"])
    assert np.array_equal(after["2.bias"], hapi_cases.params(model.network)["2.bias"])


def test_missing_key_is_a_value_error(tmp_path):
    paddle.save({"0.weight": np.zeros((8, 16), "float32")}, str(tmp_path / "part.pdparams"))
    with pytest.raises(ValueError, match="0.bias is not found in the providing file."):
        _model().load(str(tmp_path / "part"))


@pytest.mark.slow
def test_checkpoint_written_here_loads_in_paddle(tmp_path):
    if not paddle_ref.available():
        pytest.skip("reference PaddlePaddle venv not available")
    ctx = types.SimpleNamespace(tmp=str(tmp_path), fixtures=str(tmp_path), checkpoint=str(tmp_path / "paddle_ckpt"))
    with paddle.utils.unique_name.guard():
        hapi_cases.make_checkpoint(paddle, ctx)     # written by torchpaddle this time
    ours = hapi_cases.run_case(paddle, "resume_checkpoint", ctx)
    out = tmp_path / "paddle.json"
    paddle_ref.run_module("tests.fixtures.hapi.paddle_load_check", ctx.checkpoint, str(out), timeout=300)
    theirs = json.loads(out.read_text())
    H.assert_close(json.loads(json.dumps(ours)), theirs, "resume_in_paddle")


# -- callbacks ------------------------------------------------------------------------------------------
def test_config_callbacks_composition():
    es = paddle.callbacks.EarlyStopping()
    cbks = config_callbacks([es], model=None, verbose=2, save_dir="somewhere", metrics=["loss"])
    kinds = [type(c).__name__ for c in cbks]
    assert kinds == ["ProgBarLogger", "EarlyStopping", "ModelCheckpoint", "LRScheduler"]
    assert es.save_dir == "somewhere" and cbks.callbacks[2].save_dir == "somewhere"
    assert [type(c).__name__ for c in config_callbacks(None, verbose=0)] == ["ModelCheckpoint", "LRScheduler"]
    assert config_callbacks(None, metrics=["loss"], mode="test").callbacks[0].params["metrics"] == []
    mine = paddle.callbacks.ProgBarLogger(log_freq=5, verbose=1)
    assert config_callbacks(mine, verbose=2).callbacks[0] is mine


def test_callback_list_checks_mode():
    with pytest.raises(AssertionError, match="mode should be train, eval or predict"):
        CallbackList([]).on_begin("test")
    base = paddle.callbacks.Callback()
    for hook in ("on_train_begin", "on_eval_end", "on_predict_begin"):
        assert getattr(base, hook)() is None
    assert base.on_epoch_begin(0) is None and base.on_train_batch_end(3, {}) is None


def test_callback_exports():
    assert set(paddle.callbacks.__all__) == {"Callback", "ProgBarLogger", "ModelCheckpoint", "VisualDL",
                                             "LRScheduler", "EarlyStopping", "ReduceLROnPlateau", "WandbCallback"}
    assert paddle.hapi.Model is paddle.Model


def test_early_stopping_modes():
    es = paddle.callbacks
    assert es.EarlyStopping(monitor="acc", min_delta=0.1).min_delta == 0.1
    assert es.EarlyStopping(monitor="loss", min_delta=0.1).min_delta == -0.1
    assert es.EarlyStopping(monitor="loss", mode="max", min_delta=-0.2).monitor_op is np.greater
    with pytest.warns(UserWarning, match="EarlyStopping mode odd is unknown, fallback to auto mode."):
        es.EarlyStopping(mode="odd")


def test_visualdl_needs_visualdl(tmp_path):
    try:
        import visualdl  # noqa: F401
        pytest.skip("visualdl is installed")
    except ImportError:
        pass
    model = _model()
    with pytest.raises(ImportError, match="Failed importing visualdl"):
        model.fit(hapi_cases.dataset(paddle, 4, [8], 3, 0), batch_size=2, verbose=0,
                  callbacks=[paddle.callbacks.VisualDL(str(tmp_path))])


def test_wandb_needs_wandb():
    try:
        import wandb  # noqa: F401
        pytest.skip("wandb is installed")
    except ImportError:
        pass
    with pytest.raises(ImportError, match="install it with `pip install wandb`"):
        paddle.callbacks.WandbCallback()


def test_visualdl_writes_scalars(tmp_path, monkeypatch):
    written = []

    class Writer:
        def __init__(self, log_dir):
            written.append(("open", log_dir))

        def add_scalar(self, tag, step, value):
            written.append((tag, step, round(float(value), 6)))

        def close(self):
            written.append(("close",))

    import sys
    monkeypatch.setitem(sys.modules, "visualdl", types.SimpleNamespace(LogWriter=Writer))
    model = _model()
    model.fit(hapi_cases.dataset(paddle, 4, [8], 3, 0), hapi_cases.dataset(paddle, 2, [8], 3, 1), batch_size=2,
              verbose=0, shuffle=False, callbacks=[paddle.callbacks.VisualDL(str(tmp_path))])
    tags = [w[0] for w in written]
    assert tags == ["open", "train/loss", "train/acc", "train/loss", "train/acc", "eval/loss", "eval/acc", "close"]
    assert [w[1] for w in written[1:5]] == [1, 1, 2, 2] and written[5][1] == 0


# -- summary / flops --------------------------------------------------------------------------------------
def test_summary_rejects_bad_input():
    net = nn.Linear(2, 2)
    with pytest.raises(ValueError, match="Input is not tensor, list, tuple and dict"):
        paddle.summary(net, input=3)
    with pytest.raises(AssertionError, match="When input_size is list"):
        paddle.summary(net, [[1, 2]])
    with pytest.raises(AssertionError, match="'input_size' or 'self._input' must be set"):
        m = paddle.Model(net)
        m._inputs = None
        m.summary()


def test_summary_single_int_and_spec(capsys):
    info = paddle.summary(nn.Linear(3, 2), 3)
    assert info == {"total_params": 8, "trainable_params": 8}
    assert "Linear-" in capsys.readouterr().out
    info = paddle.Model(nn.Linear(4, 2), inputs=[type(hapi_cases_spec())([None, 4], "float32", "x")]).summary()
    assert info["total_params"] == 10


def test_flops_of_unknown_object_warns():
    with pytest.warns(UserWarning, match="Your model must be an instance of paddle.nn.Layer or paddle.static.Program"):
        assert paddle.flops(object(), [1, 2]) == -1


def test_flops_keeps_state_and_mode(capsys):
    net = hapi_cases.resnet_like(paddle)
    keys = sorted(net.state_dict())
    total = paddle.flops(net, [1, 3, 8, 8])
    assert total > 0 and net.training
    assert sorted(net.state_dict()) == keys
    assert all(not hasattr(m, "total_ops") for m in net.sublayers(include_self=True))
    assert capsys.readouterr().out.endswith(f"Total Flops: {total}     Total Params: 5458\n")


def test_flops_failing_forward_leaves_no_buffers():
    net = nn.Sequential(nn.Linear(4, 3), nn.Linear(5, 2))
    with pytest.raises(ValueError):
        paddle.flops(net, [1, 4])
    assert sorted(net.state_dict()) == ["0.bias", "0.weight", "1.bias", "1.weight"]
