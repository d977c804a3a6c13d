"""The compiled backend (static/compiled_plan.py): CompiledProgram with a fusion option and to_static with a
compiling build_strategy run through torch.compile, and give the uncompiled results (inference and training
steps); one compile per input signature; a failed compile falls back with one warning.

The plumbing tests use torch.compile's 'aot_eager' backend (AOTAutograd without code generation: seconds,
not minutes, on a 2-core machine); one slow test runs inductor."""
import subprocess
import warnings

import numpy as np
import pytest
import torch

import torchpaddle as paddle
from torchpaddle.static import compiled_plan

from tests import paddle_ref

RNG = np.random.default_rng(7)
X8 = RNG.standard_normal((4, 8)).astype("float32")
Y8 = RNG.standard_normal((4, 1)).astype("float32")
IMAGES = RNG.standard_normal((5, 1, 6, 6)).astype("float32")


@pytest.fixture
def aot_eager(monkeypatch):
    monkeypatch.setattr(compiled_plan, "_BACKEND", ["aot_eager"])


@pytest.fixture
def count_compiles(monkeypatch):
    """Counts torch.compile calls (one per compiled callable)."""
    calls = []
    real = torch.compile

    def counting(*args, **kwargs):
        calls.append(kwargs.get("backend"))
        return real(*args, **kwargs)
    monkeypatch.setattr(torch, "compile", counting)
    return calls


def _fusing(option="fuse_elewise_add_act_ops"):
    bs = paddle.static.BuildStrategy()
    setattr(bs, option, True)
    return bs


def _mlp_program(optimizer):
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [-1, 8], "float32")
        y = paddle.static.data("y", [-1, 1], "float32")
        h = paddle.nn.functional.relu(paddle.static.nn.fc(x, 16))
        out = paddle.static.nn.fc(h, 1)
        loss = paddle.mean((out - y) ** 2)
        test = main.clone(for_test=True)
        if optimizer is not None:
            optimizer().minimize(loss)
    return main, startup, test, out, loss


def _train_static(optimizer, build_strategy, steps=3):
    """Losses and final parameters of ``steps`` training steps, and the test program's output after them."""
    paddle.seed(3)
    with paddle.utils.unique_name.guard():
        main, startup, test, out, loss = _mlp_program(optimizer)
    scope = paddle.static.Scope()
    exe = paddle.static.Executor(paddle.CPUPlace())
    exe.run(startup, scope=scope)
    train = main if build_strategy is None else paddle.static.CompiledProgram(main, build_strategy)
    infer = test if build_strategy is None else paddle.static.CompiledProgram(test, build_strategy)
    losses = [exe.run(train, feed={"x": X8, "y": Y8}, fetch_list=[loss], scope=scope)[0] for _ in range(steps)]
    pred, = exe.run(infer, feed={"x": X8, "y": Y8}, fetch_list=[out.name], scope=scope)
    params = {p.name: np.array(scope.find_var(p.name).get_tensor()) for p in main.all_parameters()}
    return losses, pred, params, train


@pytest.mark.parametrize("optimizer", [lambda: paddle.optimizer.SGD(0.1), lambda: paddle.optimizer.Adam(0.02)],
                         ids=["sgd", "adam"])
def test_compiled_program_trains_and_infers_like_the_executor(static_mode, aot_eager, optimizer):
    plain, plain_pred, plain_params, _ = _train_static(optimizer, None)
    losses, pred, params, compiled = _train_static(optimizer, _fusing())
    np.testing.assert_allclose(losses, plain, rtol=1e-5)
    np.testing.assert_allclose(pred, plain_pred, rtol=1e-5, atol=1e-6)
    for name, value in plain_params.items():
        np.testing.assert_allclose(params[name], value, rtol=1e-5, atol=1e-6, err_msg=name)
    assert plain[2] < plain[0]   # it trained
    plans = list(compiled._parts.plans.values())
    assert [type(p).__name__ for p in plans] == ["CompiledPlan"] and plans[0].compiles == 1


def test_fusion_options_compile():
    for option in compiled_plan.FUSION_OPTIONS:
        assert compiled_plan.strategy_compiles(_fusing(option)), option
    # Paddle's defaults (fuse_broadcast_ops, fuse_bn_add_act_ops... on) and the other options do not
    assert not compiled_plan.strategy_compiles(paddle.static.BuildStrategy())
    assert not compiled_plan.strategy_compiles(_fusing("fuse_gemm_epilogue"))
    assert not compiled_plan.strategy_compiles(None)


def test_data_parallel_programs_are_not_compiled(static_mode, aot_eager, count_compiles):
    with paddle.utils.unique_name.guard():
        main, startup, _, _, loss = _mlp_program(lambda: paddle.optimizer.SGD(0.1))
    exe = paddle.static.Executor(paddle.CPUPlace())
    exe.run(startup)
    program = paddle.static.CompiledProgram(main, _fusing()).with_data_parallel(
        loss_name=loss.name, places=[paddle.CPUPlace()] * 2)
    exe.run(program, feed={"x": X8, "y": Y8}, fetch_list=[loss])
    assert count_compiles == []


def test_recompiles_only_for_a_new_input_signature(static_mode, aot_eager, count_compiles):
    with paddle.utils.unique_name.guard():
        main, startup, test, out, _ = _mlp_program(None)
    exe = paddle.static.Executor(paddle.CPUPlace())
    exe.run(startup)
    program = paddle.static.CompiledProgram(test, _fusing())
    for batch in (4, 4, 6, 4, 6, 2):
        feed = {"x": RNG.standard_normal((batch, 8)).astype("float32"), "y": np.zeros((batch, 1), "float32")}
        got, = exe.run(program, feed=feed, fetch_list=[out.name])
        want, = exe.run(test, feed=feed, fetch_list=[out.name])
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    plan, = program._parts.plans.values()
    assert plan.compiles == 3 and len(count_compiles) == 3


class _ConvNet(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.conv = paddle.nn.Conv2D(1, 4, 3, padding=1)
        self.bn = paddle.nn.BatchNorm2D(4)
        self.fc = paddle.nn.Linear(4 * 6 * 6, 3)

    def forward(self, x):
        h = paddle.nn.functional.relu(self.bn(self.conv(x)))
        return self.fc(paddle.flatten(h, 1))


def _train_layer(make, compiled, steps=3):
    paddle.seed(5)
    net = make()
    if compiled:
        net = paddle.jit.to_static(net, build_strategy=_fusing("build_cinn_pass"))
    opt = paddle.optimizer.Adam(0.01, parameters=net.parameters())
    x = paddle.to_tensor(IMAGES)
    y = paddle.to_tensor(np.linspace(-1, 1, 15, dtype="float32").reshape(5, 3))
    losses = []
    for _ in range(steps):
        loss = paddle.mean((net(x) - y) ** 2)
        loss.backward()
        opt.step()
        opt.clear_grad()
        losses.append(float(loss))
    net.eval()
    pred = net(x).numpy()
    return losses, pred, {k: v.numpy() for k, v in net.state_dict().items()}, net


def test_to_static_compiled_trains_like_eager(aot_eager, count_compiles):
    plain, plain_pred, plain_state = _train_layer(_ConvNet, False)[:3]
    losses, pred, state, net = _train_layer(_ConvNet, True)
    np.testing.assert_allclose(losses, plain, rtol=1e-5)
    np.testing.assert_allclose(pred, plain_pred, rtol=1e-4, atol=1e-5)
    for k, v in plain_state.items():   # batch norm's running statistics too: updated through the compiled graph
        np.testing.assert_allclose(state[k], v, rtol=1e-5, atol=1e-6, err_msg=k)
    assert plain[2] < plain[0]
    # one traced program per training flag, each compiled once
    programs = list(net.forward.program_cache.values())
    assert [p._plan.compiles for p in programs] == [1, 1] and len(count_compiles) == 2


def test_to_static_backend_values():
    assert not paddle.jit.to_static(lambda x: x)._compiled            # CPU: CINN is not there, as in Paddle
    assert not paddle.jit.to_static(lambda x: x, backend=None, build_strategy=paddle.static.BuildStrategy())._compiled
    assert paddle.jit.to_static(lambda x: x, backend=None, build_strategy=_fusing("build_cinn_pass"))._compiled
    for ok in ("cinn", "PCC"):
        paddle.jit.to_static(lambda x: x, backend=ok)
    with pytest.raises(ValueError, match="Unknown backend inductor"):
        paddle.jit.to_static(lambda x: x, backend="inductor")
    with pytest.raises(TypeError, match="backend"):
        paddle.jit.to_static(lambda x: x, backend=3)
    with pytest.raises(TypeError, match="build_strategy"):
        paddle.jit.to_static(lambda x: x, build_strategy={"build_cinn_pass": True})


def test_flags_use_cinn_turns_the_default_backend_on(monkeypatch):
    monkeypatch.setenv("FLAGS_use_cinn", "1")
    assert paddle.jit.to_static(lambda x: x)._compiled
    assert not paddle.jit.to_static(lambda x: x, backend=None)._compiled


@pytest.mark.conformance
def test_to_static_backend_values_match_paddle():
    if not paddle_ref.available():
        pytest.skip("reference PaddlePaddle venv not found")
    script = ("import paddle\n"
              "for b in ['CINN', 'cinn', 'PCC', None, 'inductor']:\n"
              "    try:\n"
              "        paddle.jit.to_static(lambda x: x, backend=b); print(b, 'ok')\n"
              "    except Exception as e:\n"
              "        print(b, type(e).__name__)\n"
              "try:\n"
              "    paddle.jit.to_static(lambda x: x, build_strategy=1)\n"
              "except Exception as e:\n"
              "    print('bs', type(e).__name__)\n")
    theirs = subprocess.run([paddle_ref.PYTHON, "-c", script], capture_output=True, text=True, timeout=300,
                            env={"GLOG_minloglevel": "3", "PATH": "/usr/bin:/bin"}).stdout.split("\n")
    ours = []
    for b in ["CINN", "cinn", "PCC", None, "inductor"]:
        try:
            paddle.jit.to_static(lambda x: x, backend=b)
            ours.append(f"{b} ok")
        except Exception as e:  # noqa: BLE001 - the type is compared
            ours.append(f"{b} {type(e).__name__}")
    try:
        paddle.jit.to_static(lambda x: x, build_strategy=1)
    except Exception as e:  # noqa: BLE001
        ours.append(f"bs {type(e).__name__}")
    assert [line for line in theirs if line] == ours


def test_failed_compile_falls_back_with_one_warning(static_mode, monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("no compiler here")
    monkeypatch.setattr(torch, "compile", broken)
    plain = _train_static(lambda: paddle.optimizer.SGD(0.1), None)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        compiled = _train_static(lambda: paddle.optimizer.SGD(0.1), _fusing())
    mine = [w for w in caught if "cannot compile" in str(w.message)]
    # one per plan (the train and the test program), not one per run
    assert len(mine) == 2 and "no compiler here" in str(mine[0].message)
    np.testing.assert_allclose(compiled[0], plain[0], rtol=1e-6)


def test_failing_backend_falls_back_with_one_warning(monkeypatch):
    def failing_backend(graph, example_inputs):
        raise RuntimeError("backend exploded")
    monkeypatch.setattr(compiled_plan, "_BACKEND", [failing_backend])
    net = paddle.jit.to_static(paddle.nn.Linear(3, 2), build_strategy=_fusing())
    x = paddle.ones([2, 3])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        outs = [net(x).numpy() for _ in range(3)]
    assert len([w for w in caught if "backend exploded" in str(w.message)]) == 1
    want = x.numpy() @ net.weight.numpy() + net.bias.numpy()
    for out in outs:
        np.testing.assert_allclose(out, want, rtol=1e-6)


def test_host_ops_are_not_compiled(static_mode, aot_eager, count_compiles, capfd):
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [2], "float32")
        y = paddle.static.Print(x * 2, message="seen")
    exe = paddle.static.Executor(paddle.CPUPlace())
    program = paddle.static.CompiledProgram(main, _fusing())
    with pytest.warns(RuntimeWarning, match="print acts outside the tensors"):
        for _ in range(2):
            out, = exe.run(program, feed={"x": np.array([1.0, 2.0], "float32")}, fetch_list=[y])
    np.testing.assert_allclose(out, [2.0, 4.0])
    printed = capfd.readouterr()
    assert (printed.out + printed.err).count("seen") == 2   # printed on every run: not traced away
    assert count_compiles == []


@pytest.mark.slow
def test_inductor_compiles_inference_and_training(static_mode):
    assert compiled_plan.compiler_backend() == "inductor"
    plain, plain_pred, plain_params, _ = _train_static(lambda: paddle.optimizer.SGD(0.1), None, steps=2)
    losses, pred, params, _ = _train_static(lambda: paddle.optimizer.SGD(0.1), _fusing(), steps=2)
    np.testing.assert_allclose(losses, plain, rtol=1e-5)
    np.testing.assert_allclose(pred, plain_pred, rtol=1e-5, atol=1e-6)
    for name, value in plain_params.items():
        np.testing.assert_allclose(params[name], value, rtol=1e-5, atol=1e-6, err_msg=name)


def test_control_flow_on_a_tensor_falls_back(aot_eager, count_compiles):
    def f(x):
        if paddle.mean(x) > 0:
            return x * 2
        return x - 1
    g = paddle.jit.to_static(f, build_strategy=_fusing("build_cinn_pass"), full_graph=True)
    with pytest.warns(RuntimeWarning, match="cannot compile"):
        up = g(paddle.ones([3]))
    down = g(-paddle.ones([3]))
    np.testing.assert_allclose(up.numpy(), [2.0, 2.0, 2.0])
    np.testing.assert_allclose(down.numpy(), [-2.0, -2.0, -2.0])
    assert count_compiles == []
