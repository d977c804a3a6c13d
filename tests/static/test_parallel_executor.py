"""ParallelExecutor on $CPU_NUM = 2 CPU places: training equals one place with the whole batch, the test
executor sees the train executor's parameters, Paddle's error cases; the doc examples of the
CompiledProgram and ParallelExecutor pages run unchanged through ``python -m torchpaddle``."""
import os
import re
import subprocess
import sys

import numpy as np
import pytest

import torchpaddle as paddle
from tests.static.data_parallel_common import (LR, B, W, X, Y, linear_grads, linear_program, mlp_program, start,
                                               values_of)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture
def cpu2(static_mode, monkeypatch):
    monkeypatch.setenv("CPU_NUM", "2")
    return static_mode


def test_training_on_two_places_equals_one_place(cpu2):
    runs = []
    for parallel in (False, True):
        with paddle.utils.unique_name.guard():
            main, startup, loss = mlp_program(paddle.optimizer.Adam(0.02))
        scope = paddle.static.Scope()
        exe = start(startup, scope)
        names = [p.name for p in main.all_parameters()]
        if parallel:
            for n, v in init.items():
                scope.var(n).get_tensor().set(v)
            pe = paddle.static.ParallelExecutor(use_cuda=False, loss_name=loss.name, main_program=main, scope=scope)
            assert pe.device_count == 2
            losses = [pe.run([loss.name], feed={"x": X, "y": Y})[0] for _ in range(4)]
        else:
            init = values_of(scope, names)
            losses = [exe.run(main, feed={"x": X, "y": Y}, fetch_list=[loss], scope=scope)[0] for _ in range(4)]
        runs.append((losses, values_of(scope, names)))
    (one, p1), (two, p2) = runs
    for a, b in zip(one, two):
        assert b.shape == (2,)
        np.testing.assert_allclose(b.mean(), a, rtol=1e-5)
    for n in p1:
        np.testing.assert_allclose(p2[n], p1[n], rtol=1e-5, atol=1e-6)


def test_test_executor_sees_the_train_executors_parameters(cpu2):
    main, startup, loss, names, test = linear_program(test_clone=True)
    exe = start(startup, paddle.static.global_scope(), {names[0]: W, names[1]: B})
    train_exe = paddle.static.ParallelExecutor(use_cuda=False, main_program=main, loss_name=loss.name)
    test_exe = paddle.static.ParallelExecutor(use_cuda=False, main_program=test, share_vars_from=train_exe)
    first, = train_exe.run(feed={"x": X, "y": Y}, fetch_list=[loss.name])
    np.testing.assert_allclose(first, [linear_grads(X[:4], Y[:4], W, B)[0], linear_grads(X[4:], Y[4:], W, B)[0]],
                               rtol=1e-5)
    train_exe.run(feed_dict={"x": X, "y": Y}, fetch_list=[loss.name])   # the deprecated alias of feed
    out, = test_exe.run(feed={"x": X, "y": Y}, fetch_list=[loss.name])
    trained = values_of(paddle.static.global_scope(), names)
    assert not np.allclose(trained[names[0]], W)
    expect = [linear_grads(X[:4], Y[:4], trained[names[0]], trained[names[1]])[0],
              linear_grads(X[4:], Y[4:], trained[names[0]], trained[names[1]])[0]]
    np.testing.assert_allclose(out, expect, rtol=1e-5)
    # the test program has no optimizer: running it changed nothing
    np.testing.assert_array_equal(values_of(paddle.static.global_scope(), names)[names[0]], trained[names[0]])


def test_list_feed_and_return_numpy_false(cpu2):
    main, startup, loss, names, _ = linear_program()
    start(startup, paddle.static.global_scope(), {names[0]: W, names[1]: B})
    pe = paddle.static.ParallelExecutor(use_cuda=False, main_program=main, loss_name=loss.name)
    out, = pe.run([loss.name], feed=[{"x": X[:3], "y": Y[:3]}, {"x": X[3:], "y": Y[3:]}], return_numpy=False)
    assert isinstance(out, paddle.Tensor) and out.shape == [2]
    (l1, gw1, _), (l2, gw2, _) = linear_grads(X[:3], Y[:3], W, B), linear_grads(X[3:], Y[3:], W, B)
    np.testing.assert_allclose(out.numpy(), [l1, l2], rtol=1e-5)
    got = values_of(paddle.static.global_scope(), names)[names[0]]
    np.testing.assert_allclose(got, W - LR * (gw1 + gw2) / 2, rtol=1e-5, atol=1e-6)


def test_errors(cpu2):
    main, startup, loss, names, test = linear_program(test_clone=True)
    start(startup, paddle.static.global_scope(), {names[0]: W, names[1]: B})
    with pytest.raises(TypeError, match="share_vars_from must be a ParallelExecutor"):
        paddle.static.ParallelExecutor(use_cuda=False, main_program=test, share_vars_from=main)
    with pytest.raises(TypeError, match="main_program must be a Program"):
        paddle.static.ParallelExecutor(use_cuda=False, main_program="main")
    with pytest.raises(ValueError, match="loss_name must be set"):
        paddle.static.ParallelExecutor(use_cuda=False, main_program=main)
    with pytest.raises(ValueError, match="trainer_id"):
        paddle.static.ParallelExecutor(use_cuda=False, main_program=main, loss_name=loss.name, num_trainers=2,
                                       trainer_id=2)
    pe = paddle.static.ParallelExecutor(use_cuda=False, main_program=main, loss_name=loss.name)
    with pytest.raises(TypeError, match="has not run yet"):
        pe.drop_local_exe_scopes()
    with pytest.raises(ValueError, match="got 1 dicts for 2 places"):
        pe.run([loss.name], feed=[{"x": X, "y": Y}])
    with pytest.raises(TypeError, match="must be a dict, element 0 is a list"):
        pe.run([loss.name], feed=[[X, Y], [X, Y]])
    with pytest.raises(ValueError, match="fewer than the 2 places"):
        pe.run([loss.name], feed={"x": X[:1], "y": Y[:1]})
    # after the refused feeds a good run works, and then the scopes can be dropped
    out, = pe.run([loss.name], feed={"x": X, "y": Y})
    assert out.shape == (2,)
    pe.drop_local_exe_scopes()
    multi = paddle.static.ParallelExecutor(use_cuda=False, main_program=main, loss_name=loss.name, num_trainers=2)
    with pytest.raises(NotImplementedError, match="torch.distributed"):
        multi.run([loss.name], feed={"x": X, "y": Y})


# -- static.nn.fc -------------------------------------------------------------------------------------------

def test_fc_names_shapes_and_values(static_mode):
    main, startup = static_mode
    a = paddle.static.data("a", [-1, 2, 3], "float32")
    b = paddle.static.data("b", [-1, 2, 5], "float32")
    out = paddle.static.nn.fc([a, b], 4, num_flatten_dims=2, activation="relu")
    assert out.shape == [-1, 2, 4]
    assert [p.name for p in main.all_parameters()] == ["fc_0.w_0", "fc_0.w_1", "fc_0.b_0"]
    assert [op.type for op in main.global_block().ops] == ["mul", "mul", "sum", "elementwise_add", "relu"]
    rng = np.random.RandomState(0)
    wa, wb, bias = rng.randn(3, 4), rng.randn(5, 4), rng.randn(4)
    va, vb = rng.randn(3, 2, 3).astype("float32"), rng.randn(3, 2, 5).astype("float32")
    exe = start(startup, paddle.static.global_scope(), {"fc_0.w_0": wa.astype("float32"),
                                                        "fc_0.w_1": wb.astype("float32"),
                                                        "fc_0.b_0": bias.astype("float32")})
    got, = exe.run(main, feed={"a": va, "b": vb}, fetch_list=[out])
    np.testing.assert_allclose(got, np.maximum(va @ wa + vb @ wb + bias, 0), rtol=1e-5, atol=1e-5)


def test_fc_flattens_trailing_dims_and_takes_attrs(static_mode):
    main, startup = static_mode
    x = paddle.static.data("x", [-1, 2, 3], "float32")
    out = paddle.static.nn.fc(x, 5, bias_attr=False, name="head",
                              weight_attr=paddle.ParamAttr(initializer=paddle.nn.initializer.Constant(0.5)))
    assert out.shape == [-1, 5]
    assert [p.name for p in main.all_parameters()] == ["head.w_0"]
    exe = paddle.static.Executor(paddle.CPUPlace())
    exe.run(startup)
    v = np.arange(12, dtype="float32").reshape(2, 2, 3)
    got, = exe.run(main, feed={"x": v}, fetch_list=[out])
    np.testing.assert_allclose(got, np.repeat(v.reshape(2, 6).sum(1, keepdims=True) * 0.5, 5, axis=1))


_FC_PROGRAM = """
a = paddle.static.data('a', [-1, 2, 3], 'float32')
b = paddle.static.data('b', [-1, 2, 5], 'float32')
out = paddle.static.nn.fc([a, b], 4, num_flatten_dims=2, activation='relu')
m = paddle.static.default_main_program()
ops = [(op.type, op.attr('x_num_col_dims') if op.type == 'mul' else op.attr('axis')
        if op.type == 'elementwise_add' else None) for op in m.global_block().ops]
summary = json.dumps([list(out.shape), [(p.name, list(p.shape)) for p in m.all_parameters()], ops])
"""


@pytest.mark.conformance
def test_fc_program_matches_paddle(static_mode):
    from tests import paddle_ref
    if not paddle_ref.available():
        pytest.skip("reference PaddlePaddle venv not found")
    code = "import json, paddle\npaddle.enable_static()\n" + _FC_PROGRAM + "print(summary)\n"
    env = dict(os.environ, FLAGS_enable_pir_api="0", GLOG_minloglevel="3")
    proc = subprocess.run([paddle_ref.PYTHON, "-c", code], capture_output=True, text=True, timeout=300, env=env)
    assert proc.returncode == 0, proc.stderr[-2000:]
    space = {"paddle": paddle, "json": __import__("json")}
    exec(_FC_PROGRAM, space)
    assert space["summary"] == proc.stdout.strip().splitlines()[-1]


def test_fc_errors(static_mode):
    x = paddle.static.data("x", [-1, 3], "float32")
    with pytest.raises(TypeError, match="x must be a Tensor"):
        paddle.static.nn.fc(np.zeros((2, 3)), 4)
    with pytest.raises(ValueError, match="size must be a positive int"):
        paddle.static.nn.fc(x, 0)
    with pytest.raises(ValueError, match="num_flatten_dims must be in"):
        paddle.static.nn.fc(x, 4, num_flatten_dims=2)
    with pytest.raises(TypeError, match="float16, bfloat16, float32 or float64"):
        paddle.static.nn.fc(paddle.static.data("i", [-1, 3], "int64"), 4)
    with pytest.raises(ValueError, match="activation"):
        paddle.static.nn.fc(x, 4, activation="no_such_act")


# -- the doc examples ----------------------------------------------------------------------------------------

def _run_example(name):
    env = dict(os.environ, CPU_NUM="2")
    proc = subprocess.run([sys.executable, "-m", "torchpaddle", os.path.join("examples", "static", name)],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout


def _floats(text):
    return [float(v) for v in re.findall(r"-?\d+\.\d+(?:e-?\d+)?", text)]


@pytest.mark.multiprocess
def test_compiled_program_example():
    out = _run_example("compiled_program.py")
    shape, value = re.search(r"loss \((.*)\) (\S+)", out).groups()
    assert shape == "" and np.isfinite(float(value))      # one 0-D loss, as the Executor gives


@pytest.mark.multiprocess
@pytest.mark.parametrize("name", ["compiled_program_data_parallel.py", "parallel_executor.py",
                                  "parallel_executor_drop_scopes.py"])
def test_data_parallel_examples(name):
    out = _run_example(name)
    per_place_line, whole_line = out.strip().splitlines()[-2:]
    assert "[2]" in per_place_line                    # one loss per CPU place
    per_place, whole = _floats(per_place_line.split("]", 1)[1]), _floats(whole_line)[0]
    # 10 samples split 5 + 5: the mean of the places' mean losses is the mean loss of the whole batch, computed
    # by a plain Executor with the parameters the data parallel program trained (or, untrained, shares)
    assert len(per_place) == 2
    np.testing.assert_allclose(np.mean(per_place), whole, rtol=1e-5, atol=1e-7)


# -- num_trainers > 1 over torch.distributed --------------------------------------------------------------------

_TRAINER = """
import json, os, sys
import numpy as np
import torch.distributed as dist
sys.path.insert(0, {root!r})
import torchpaddle as paddle
from tests.static.data_parallel_common import B, W, X, Y, linear_program, start, values_of
rank = int(os.environ["RANK"])
dist.init_process_group("gloo", rank=rank, world_size=2)
paddle.enable_static()
main, startup, loss, names, _ = linear_program()
start(startup, paddle.static.global_scope(), {{names[0]: W, names[1]: B}})
pe = paddle.static.ParallelExecutor(use_cuda=False, main_program=main, loss_name=loss.name, num_trainers=2,
                                    trainer_id=rank)
half = slice(4 * rank, 4 * rank + 4)
out, = pe.run([loss.name], feed={{"x": X[half], "y": Y[half]}})
got = values_of(paddle.static.global_scope(), names)
json.dump({{"loss": out.tolist(), "w": got[names[0]].tolist(), "b": got[names[1]].tolist()}},
          open(sys.argv[1], "w"))
dist.destroy_process_group()
"""


@pytest.mark.multiprocess
def test_two_trainers_average_gradients_over_torch_distributed(tmp_path):
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    script = tmp_path / "trainer.py"
    script.write_text(_TRAINER.format(root=ROOT))
    procs = []
    for rank in range(2):
        env = dict(os.environ, CPU_NUM="2", RANK=str(rank), WORLD_SIZE="2", MASTER_ADDR="127.0.0.1",
                   MASTER_PORT=str(port))
        procs.append(subprocess.Popen([sys.executable, str(script), str(tmp_path / f"rank{rank}.json")], env=env,
                                      stderr=subprocess.PIPE, text=True))
    errors = [p.communicate(timeout=240)[1] for p in procs]
    assert all(p.returncode == 0 for p in procs), "\n".join(e[-2000:] for e in errors)
    import json
    results = [json.loads((tmp_path / f"rank{r}.json").read_text()) for r in range(2)]
    # 2 trainers x 2 places: the 8 samples make 4 shards of 2; the gradient is their mean on both trainers
    shards = [linear_grads(X[i:i + 2], Y[i:i + 2], W, B) for i in range(0, 8, 2)]
    gw = np.mean([s[1] for s in shards], 0)
    gb = np.mean([s[2] for s in shards], 0)
    for rank, res in enumerate(results):
        np.testing.assert_allclose(res["loss"], [s[0] for s in shards[2 * rank:2 * rank + 2]], rtol=1e-5)
        np.testing.assert_allclose(res["w"], W - LR * gw, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(res["b"], B - LR * gb, rtol=1e-5, atol=1e-6)
