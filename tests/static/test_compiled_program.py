"""CompiledProgram, with_data_parallel, BuildStrategy and ExecutionStrategy: data parallel on CPU places
against the same training on one place and against NumPy; Paddle's error cases; the strategies' fields."""
import numpy as np
import pytest

import torchpaddle as paddle
from tests.static.data_parallel_common import (LR, B, W, X, Y, linear_grads, linear_program, mlp_program, start,
                                               values_of)

CPU2 = [paddle.CPUPlace()] * 2


def _dp(program, loss=None, places=CPU2, **kwargs):
    return paddle.static.CompiledProgram(program).with_data_parallel(
        loss_name=None if loss is None else loss.name, places=places, **kwargs)


def test_single_place_compiled_program_equals_executor(static_mode):
    runs = []
    for compiled in (False, True):
        with paddle.utils.unique_name.guard():
            main, startup, loss, names, _ = linear_program(paddle.optimizer.Adam(0.05))
        scope = paddle.static.Scope()
        exe = start(startup, scope, {names[0]: W, names[1]: B})
        program = paddle.static.CompiledProgram(main) if compiled else main
        losses = [exe.run(program, feed={"x": X, "y": Y}, fetch_list=[loss], scope=scope)[0] for _ in range(3)]
        runs.append((losses, values_of(scope, names)))
    (plain, p1), (comp, p2) = runs
    assert comp[0].shape == ()                       # no data parallel: the Executor's 0-D loss
    np.testing.assert_allclose(comp, plain, rtol=1e-6)
    for n in p1:
        np.testing.assert_allclose(p2[n], p1[n], rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("make_optimizer", [lambda: paddle.optimizer.SGD(0.2),
                                            lambda: paddle.optimizer.Adam(0.02),
                                            lambda: paddle.optimizer.Momentum(0.05, momentum=0.9,
                                                                              weight_decay=0.01)],
                         ids=["sgd", "adam", "momentum_decay"])
def test_two_places_train_like_one_place_with_the_whole_batch(static_mode, make_optimizer):
    runs = []
    for data_parallel in (False, True):
        with paddle.utils.unique_name.guard():
            main, startup, loss = mlp_program(make_optimizer())
        scope = paddle.static.Scope()
        exe = start(startup, scope)
        if data_parallel:
            for n, v in init.items():
                scope.var(n).get_tensor().set(v)
        else:
            init = values_of(scope, [p.name for p in main.all_parameters()])
        program = _dp(main, loss) if data_parallel else main
        losses = [exe.run(program, feed={"x": X, "y": Y}, fetch_list=[loss.name], scope=scope)[0]
                  for _ in range(4)]
        runs.append((losses, values_of(scope, list(init))))
    (one, p1), (two, p2) = runs
    for a, b in zip(one, two):
        assert b.shape == (2,)                       # one loss per place, concatenated
        np.testing.assert_allclose(b.mean(), a, rtol=1e-5)   # equal halves: mean of halves = whole mean
    for n in p1:
        np.testing.assert_allclose(p2[n], p1[n], rtol=1e-5, atol=1e-6)


def test_uneven_split_and_averaged_gradients_against_numpy(static_mode):
    main, startup, loss, names, _ = linear_program()
    scope = paddle.static.Scope()
    exe = start(startup, scope, {names[0]: W, names[1]: B})
    x, y = X[:5], Y[:5]
    out, = exe.run(_dp(main, loss), feed={"x": x, "y": y}, fetch_list=[loss], scope=scope)
    # Paddle's split: chunks of ceil(5 / 2) = 3 samples, so 3 and 2
    l1, gw1, gb1 = linear_grads(x[:3], y[:3], W, B)
    l2, gw2, gb2 = linear_grads(x[3:], y[3:], W, B)
    np.testing.assert_allclose(out, [l1, l2], rtol=1e-5)
    got = values_of(scope, names)
    np.testing.assert_allclose(got[names[0]], W - LR * (gw1 + gw2) / 2, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got[names[1]], B - LR * (gb1 + gb2) / 2, rtol=1e-5, atol=1e-6)


def test_list_feed_gives_each_place_its_dict(static_mode):
    main, startup, loss, names, _ = linear_program()
    scope = paddle.static.Scope()
    exe = start(startup, scope, {names[0]: W, names[1]: B})
    feed = [{"x": X[:2], "y": Y[:2]}, {"x": X[2:7], "y": Y[2:7]}]
    out, = exe.run(_dp(main, loss), feed=feed, fetch_list=[loss], scope=scope)
    (l1, gw1, _), (l2, gw2, _) = linear_grads(X[:2], Y[:2], W, B), linear_grads(X[2:7], Y[2:7], W, B)
    np.testing.assert_allclose(out, [l1, l2], rtol=1e-5)
    np.testing.assert_allclose(values_of(scope, names)[names[0]], W - LR * (gw1 + gw2) / 2, rtol=1e-5, atol=1e-6)


def test_fetches_concatenate_per_place_values(static_mode):
    main, startup, loss, names, _ = linear_program()
    scope = paddle.static.Scope()
    exe = start(startup, scope, {names[0]: W, names[1]: B})
    pred = [op for op in main.global_block().ops if op.type == "elementwise_add"][0].output("Out")[0]
    out_pred, out_w, out_g = exe.run(_dp(main, loss), feed={"x": X, "y": Y},
                                     fetch_list=[pred, names[0], names[0] + "@GRAD"], scope=scope)
    np.testing.assert_allclose(out_pred, X @ W + B, rtol=1e-5)           # per-sample values in batch order
    _, gw1, _ = linear_grads(X[:4], Y[:4], W, B)
    _, gw2, _ = linear_grads(X[4:], Y[4:], W, B)
    avg = (gw1 + gw2) / 2
    np.testing.assert_allclose(out_g, np.concatenate([avg, avg]), rtol=1e-5, atol=1e-6)  # averaged, per place
    np.testing.assert_allclose(out_w, np.concatenate([W - LR * avg] * 2), rtol=1e-5, atol=1e-6)  # updated


def test_test_program_shares_the_train_programs_parameters(static_mode):
    main, startup, loss, names, test = linear_program(test_clone=True)
    scope = paddle.static.Scope()
    exe = start(startup, scope, {names[0]: W, names[1]: B})
    train = _dp(main, loss)
    with paddle.static.scope_guard(scope):
        evaluate = _dp(test, share_vars_from=train)
        with pytest.raises(ValueError, match="not compiled and executed"):
            exe.run(evaluate, feed={"x": X, "y": Y}, fetch_list=[loss])
        for _ in range(3):
            exe.run(train, feed={"x": X, "y": Y}, fetch_list=[loss])
        out, = exe.run(evaluate, feed={"x": X, "y": Y}, fetch_list=[loss])
    trained = values_of(scope, names)
    assert not np.allclose(trained[names[0]], W)
    expect = [linear_grads(X[:4], Y[:4], trained[names[0]], trained[names[1]])[0],
              linear_grads(X[4:], Y[4:], trained[names[0]], trained[names[1]])[0]]
    np.testing.assert_allclose(out, expect, rtol=1e-5)


def test_places_default_to_cpu_num(static_mode, monkeypatch):
    monkeypatch.setenv("CPU_NUM", "4")
    main, startup, loss, names, _ = linear_program()
    scope = paddle.static.Scope()
    exe = start(startup, scope, {names[0]: W, names[1]: B})
    out, = exe.run(_dp(main, loss, places=None), feed={"x": X, "y": Y}, fetch_list=[loss], scope=scope)
    expect = [linear_grads(X[i:i + 2], Y[i:i + 2], W, B)[0] for i in range(0, 8, 2)]
    np.testing.assert_allclose(out, expect, rtol=1e-5)


@pytest.mark.parametrize("scale", ["One", "Customized"])
def test_gradient_scale_strategies(static_mode, scale):
    main, startup, loss, names, _ = linear_program()
    scope = paddle.static.Scope()
    exe = start(startup, scope, {names[0]: W, names[1]: B})
    strategy = paddle.static.BuildStrategy()
    strategy.gradient_scale_strategy = getattr(paddle.static.BuildStrategy.GradientScaleStrategy, scale)
    program = _dp(main, loss, build_strategy=strategy)
    _, gw1, gb1 = linear_grads(X[:4], Y[:4], W, B)
    _, gw2, gb2 = linear_grads(X[4:], Y[4:], W, B)
    if scale == "One":      # seed 1 on every place, gradients summed
        exe.run(program, feed={"x": X, "y": Y}, fetch_list=[loss], scope=scope)
        gw, gb = gw1 + gw2, gb1 + gb2
    else:                   # the user feeds each place's loss gradient
        seeds = [np.array(0.25, "float32"), np.array(2.0, "float32")]
        feed = [{"x": X[:4], "y": Y[:4], loss.name + "@GRAD": seeds[0]},
                {"x": X[4:], "y": Y[4:], loss.name + "@GRAD": seeds[1]}]
        exe.run(program, feed=feed, fetch_list=[loss], scope=scope)
        gw, gb = 0.25 * gw1 + 2.0 * gw2, 0.25 * gb1 + 2.0 * gb2
    got = values_of(scope, names)
    np.testing.assert_allclose(got[names[0]], W - LR * gw, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got[names[1]], B - LR * gb, rtol=1e-5, atol=1e-6)


def test_num_iteration_per_run_runs_the_step_that_many_times(static_mode):
    results = []
    for per_run, runs in ((3, 1), (1, 3)):
        with paddle.utils.unique_name.guard():
            main, startup, loss, names, _ = linear_program()
        scope = paddle.static.Scope()
        exe = start(startup, scope, {names[0]: W, names[1]: B})
        es = paddle.static.ExecutionStrategy()
        es.num_iteration_per_run = per_run
        program = _dp(main, loss, exec_strategy=es)
        for _ in range(runs):
            out, = exe.run(program, feed={"x": X, "y": Y}, fetch_list=[loss], scope=scope)
        results.append((out, values_of(scope, names)))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-6)
    for n in results[0][1]:
        np.testing.assert_allclose(results[0][1][n], results[1][1][n], rtol=1e-6)


@pytest.mark.parametrize("memory_optimize", [None, True, False])
def test_memory_optimize_frees_temporaries_unless_false(static_mode, memory_optimize):
    main, startup, loss, names, _ = linear_program()
    scope = paddle.static.Scope()
    exe = start(startup, scope, {names[0]: W, names[1]: B})
    strategy = paddle.static.BuildStrategy()
    strategy.memory_optimize = memory_optimize
    program = paddle.static.CompiledProgram(main, build_strategy=strategy)
    out, = exe.run(program, feed={"x": X, "y": Y}, fetch_list=[loss], scope=scope)
    np.testing.assert_allclose(out, linear_grads(X, Y, W, B)[0], rtol=1e-5)
    plans = list(program._parts.plans.values())
    assert plans and all(bool(p.frees) == (memory_optimize is not False) for p in plans)


def test_batch_norm_statistics_stay_per_place(static_mode):
    main, startup = static_mode
    x = paddle.static.data("x", [-1, 3], "float32")
    bn = paddle.nn.BatchNorm1D(3, momentum=0.5)
    loss = paddle.mean(bn(x))
    paddle.optimizer.SGD(0.1).minimize(loss)
    exe = paddle.static.Executor(paddle.CPUPlace())
    exe.run(startup)
    data = np.concatenate([np.full((2, 3), 1.0), np.full((2, 3), 5.0)]).astype("float32")
    program = _dp(main, loss)
    exe.run(program, feed={"x": data}, fetch_list=[loss])
    name = bn._mean.name
    # place 0 (the run's scope) saw the samples of value 1, place 1 (its child scope) those of value 5
    np.testing.assert_allclose(np.array(paddle.static.global_scope().find_var(name).get_tensor()), [0.5] * 3)
    np.testing.assert_allclose(np.array(program._local_scopes[1].find_var(name).get_tensor()), [2.5] * 3)


# -- errors ------------------------------------------------------------------------------------------------

def test_feed_errors(static_mode):
    main, startup, loss, names, _ = linear_program()
    scope = paddle.static.Scope()
    exe = start(startup, scope, {names[0]: W, names[1]: B})
    program = _dp(main, loss)
    with pytest.raises(ValueError, match="one dict per place: got 3 dicts for 2 places"):
        exe.run(program, feed=[{"x": X, "y": Y}] * 3, fetch_list=[loss], scope=scope)
    with pytest.raises(TypeError, match="element 1 is a tuple"):
        exe.run(program, feed=[{"x": X, "y": Y}, (X, Y)], fetch_list=[loss], scope=scope)
    with pytest.raises(ValueError, match="batch of 1 samples fed to 'x'.*fewer than the 2 places"):
        exe.run(program, feed={"x": X[:1], "y": Y[:1]}, fetch_list=[loss], scope=scope)
    with pytest.raises(TypeError, match="feed must be a dict"):
        exe.run(program, feed=X, fetch_list=[loss], scope=scope)
    with pytest.raises(ValueError, match="should have dimensions = 2"):
        exe.run(program, feed={"x": X[:, :3], "y": Y}, fetch_list=[loss], scope=scope)
    with pytest.raises(ValueError, match="different scope"):
        exe.run(program, feed={"x": X, "y": Y}, fetch_list=[loss], scope=paddle.static.Scope())


def test_configuration_errors(static_mode):
    main, startup, loss, names, test = linear_program(test_clone=True)
    with pytest.raises(TypeError, match="expected Graph or Program"):
        paddle.static.CompiledProgram("main")
    with pytest.raises(TypeError, match="build_strategy must be a BuildStrategy"):
        paddle.static.CompiledProgram(main, build_strategy={})
    with pytest.raises(TypeError, match="share_vars_from must be a CompiledProgram"):
        paddle.static.CompiledProgram(test).with_data_parallel(share_vars_from=main)
    with pytest.raises(ValueError, match="loss_name must be set"):
        paddle.static.CompiledProgram(main).with_data_parallel()
    with pytest.raises(ValueError, match="not a variable of the program"):
        paddle.static.CompiledProgram(main).with_data_parallel(loss_name="nope")
    with pytest.raises(TypeError, match="places must be Places"):
        paddle.static.CompiledProgram(main).with_data_parallel(loss_name=loss.name, places=[0, 1])
    program = _dp(main, loss)
    with pytest.raises(RuntimeError, match="already compiled with data parallel"):
        program.with_data_parallel(loss_name=loss.name)
    exe = paddle.static.Executor(paddle.CPUPlace())
    exe.run(startup)
    plain = paddle.static.CompiledProgram(main)
    exe.run(plain, feed={"x": X, "y": Y}, fetch_list=[loss])
    with pytest.raises(ValueError, match="not data parallel"):
        exe.run(_dp(test, share_vars_from=plain), feed={"x": X, "y": Y}, fetch_list=[loss])


def test_multi_trainer_needs_torch_distributed(static_mode):
    main, startup, loss, names, _ = linear_program()
    exe = paddle.static.Executor(paddle.CPUPlace())
    exe.run(startup)
    strategy = paddle.static.BuildStrategy()
    strategy.num_trainers, strategy.trainer_id = 2, 0
    program = _dp(main, loss, build_strategy=strategy)
    with pytest.raises(NotImplementedError, match="torch.distributed initialized"):
        exe.run(program, feed={"x": X, "y": Y}, fetch_list=[loss])


# -- strategies ----------------------------------------------------------------------------------------------

# Paddle 3.3.1's defaults (printed by its BuildStrategy()); 2.x-only fields with their 2.x defaults
BUILD_DEFAULTS = {
    "reduce_strategy": paddle.static.BuildStrategy.ReduceStrategy.AllReduce, "memory_optimize": None,
    "enable_inplace": True, "fuse_all_reduce_ops": True, "fuse_all_optimizer_ops": False,
    "fuse_elewise_add_act_ops": False, "fuse_bn_act_ops": False, "fuse_bn_add_act_ops": True,
    "fuse_broadcast_ops": True, "fuse_relu_depthwise_conv": False, "fuse_gemm_epilogue": False,
    "fuse_adamw": False, "fuse_dot_product_attention": False, "fuse_resunit": False, "fused_attention": False,
    "fused_feedforward": False, "build_cinn_pass": False, "enable_auto_fusion": False, "sync_batch_norm": False,
    "sequential_run": False, "debug_graphviz_path": "", "num_trainers": 1, "trainer_id": 0,
    "gradient_scale_strategy": paddle.static.BuildStrategy.GradientScaleStrategy.CoeffNumDevice,
    "enable_sequential_execution": False, "remove_unnecessary_lock": True,
}


def test_build_strategy_fields_defaults_and_type_checks():
    bs = paddle.static.BuildStrategy()
    for name, value in BUILD_DEFAULTS.items():
        assert getattr(bs, name) == value, name
    RS, GS = paddle.static.BuildStrategy.ReduceStrategy, paddle.static.BuildStrategy.GradientScaleStrategy
    assert (int(RS.AllReduce), int(RS.Reduce)) == (0, 1)
    assert (int(GS.CoeffNumDevice), int(GS.One), int(GS.Customized)) == (0, 1, 2)
    bs.reduce_strategy = RS.Reduce
    bs.fuse_elewise_add_act_ops = True
    bs.enable_inplace = 0                 # pybind's bool caster takes ints
    bs.fuse_broadcast_ops = None          # ... and None as False
    bs.debug_graphviz_path = "/tmp/g"
    assert (bs.reduce_strategy, bs.fuse_elewise_add_act_ops, bs.enable_inplace, bs.fuse_broadcast_ops,
            bs.debug_graphviz_path) == (RS.Reduce, True, False, False, "/tmp/g")
    with pytest.raises(ValueError, match="memory_optimize must be set to None, False or True"):
        bs.memory_optimize = 1
    for name, bad in (("enable_inplace", "yes"), ("reduce_strategy", 1), ("num_trainers", "2"),
                      ("debug_graphviz_path", 3), ("gradient_scale_strategy", RS.Reduce)):
        with pytest.raises(TypeError, match=name):
            setattr(bs, name, bad)
    with pytest.raises(AttributeError, match="no field 'fuse_everything'"):
        bs.fuse_everything = True


def test_execution_strategy_fields():
    es = paddle.static.ExecutionStrategy()
    assert (es.num_threads, es.num_iteration_per_drop_scope, es.num_iteration_per_run) == (0, 100, 1)
    es.num_threads = 4
    es.num_iteration_per_drop_scope = 10
    assert (es.num_threads, es.num_iteration_per_drop_scope) == (4, 10)
    with pytest.raises(TypeError, match="num_threads must be an int"):
        es.num_threads = 1.5


def test_strategies_are_finalized_by_the_first_run(static_mode):
    main, startup, loss, names, _ = linear_program()
    exe = paddle.static.Executor(paddle.CPUPlace())
    exe.run(startup)
    bs = paddle.static.BuildStrategy()
    bs.fuse_gemm_epilogue = True     # accepted: no such pass here (fusion options compile: test_compiled_plan.py)
    program = paddle.static.CompiledProgram(main, build_strategy=bs)
    out, = exe.run(program, feed={"x": X, "y": Y}, fetch_list=[loss])
    assert np.isfinite(out)
    with pytest.raises(RuntimeError, match="finalized"):
        bs.memory_optimize = True


def test_build_strategy_defaults_match_paddle():
    import subprocess
    from tests import paddle_ref
    if not paddle_ref.available():
        pytest.skip("reference PaddlePaddle venv not found")
    names = [n for n in BUILD_DEFAULTS if n not in ("gradient_scale_strategy", "enable_sequential_execution",
                                                    "remove_unnecessary_lock")]
    code = ("import paddle, json; b = paddle.static.BuildStrategy(); "
            f"print(json.dumps({{n: (int(v) if n == 'reduce_strategy' else v) for n in {names!r} "
            "for v in [getattr(b, n)]}))")
    proc = subprocess.run([paddle_ref.PYTHON, "-c", code], capture_output=True, text=True, timeout=300)
    import json
    theirs = json.loads(proc.stdout.strip().splitlines()[-1])
    ours = paddle.static.BuildStrategy()
    assert {n: (int(getattr(ours, n)) if n == "reduce_strategy" else getattr(ours, n)) for n in names} == theirs


@pytest.mark.parametrize("inplace", [True, False])
def test_enable_inplace_reuses_dying_inputs_in_inference_plans(static_mode, inplace):
    from torchpaddle.static.compiler import _InplaceStep
    main, startup = static_mode
    x = paddle.static.data("x", [-1, 4], "float32")
    hidden = paddle.static.nn.fc(x, 8, activation="relu")            # mul -> add (in place) -> relu (in place)
    out = paddle.nn.functional.sigmoid(paddle.static.nn.fc(hidden, 3)) * 2.0
    exe = paddle.static.Executor(paddle.CPUPlace())
    exe.run(startup)
    expect, = exe.run(main, feed={"x": X}, fetch_list=[out])
    scope = paddle.static.global_scope()
    w0, b0, w1, b1 = (np.array(scope.find_var(p.name).get_tensor()) for p in main.all_parameters())
    hidden_np = np.maximum(X @ w0 + b0, 0)
    np.testing.assert_allclose(expect, 2 / (1 + np.exp(-(hidden_np @ w1 + b1))), rtol=1e-5)
    strategy = paddle.static.BuildStrategy()
    strategy.enable_inplace = inplace
    program = paddle.static.CompiledProgram(main, build_strategy=strategy)
    got, = exe.run(program, feed={"x": X}, fetch_list=[out])
    np.testing.assert_allclose(got, expect, rtol=1e-6)
    steps = [s for p in program._parts.plans.values() for s in p.steps if isinstance(s, _InplaceStep)]
    assert [s.step.op.type for s in steps] == (["elementwise_add", "relu", "elementwise_add", "sigmoid",
                                                "elementwise_mul"] if inplace else [])
    if inplace:     # the buffer really is reused: each result is the tensor its input X was
        seen = []
        for step in steps:
            step.fn = (lambda fn: lambda t, *y: seen.append((t.data_ptr(), fn(t, *y).data_ptr())) or t)(step.fn)
        again, = exe.run(program, feed={"x": X}, fetch_list=[out])
        np.testing.assert_allclose(again, expect, rtol=1e-6)
        assert len(seen) == 5 and all(a == b for a, b in seen)


def test_enable_inplace_leaves_training_plans_alone(static_mode):
    from torchpaddle.static.compiler import _InplaceStep
    main, startup, loss, names, _ = linear_program()
    scope = paddle.static.Scope()
    exe = start(startup, scope, {names[0]: W, names[1]: B})
    program = _dp(main, loss)
    exe.run(program, feed={"x": X, "y": Y}, fetch_list=[loss], scope=scope)
    assert not any(isinstance(s, _InplaceStep) for p in program._parts.plans.values() for s in p.steps)


def test_lr_scheduler_refreshes_each_data_parallel_run(static_mode):
    runs = []
    for data_parallel in (False, True):
        with paddle.utils.unique_name.guard():
            scheduler = paddle.optimizer.lr.PiecewiseDecay([1, 2], [0.3, 0.1, 0.01])
            main, startup, loss, names, _ = linear_program(paddle.optimizer.SGD(scheduler))
        scope = paddle.static.Scope()
        exe = start(startup, scope, {names[0]: W, names[1]: B})
        program = _dp(main, loss) if data_parallel else main
        for _ in range(4):
            exe.run(program, feed={"x": X, "y": Y}, fetch_list=[loss], scope=scope)
            scheduler.step()
        runs.append(values_of(scope, names))
    for n in runs[0]:
        np.testing.assert_allclose(runs[1][n], runs[0][n], rtol=1e-5, atol=1e-6)
    # and by hand for the first step: W - 0.3 * mean gradient
    main, startup, loss, names, _ = linear_program(paddle.optimizer.SGD(
        paddle.optimizer.lr.PiecewiseDecay([1], [0.3, 0.1])))
    scope = paddle.static.Scope()
    exe = start(startup, scope, {names[0]: W, names[1]: B})
    exe.run(_dp(main, loss), feed={"x": X, "y": Y}, fetch_list=[loss], scope=scope)
    gw = (linear_grads(X[:4], Y[:4], W, B)[1] + linear_grads(X[4:], Y[4:], W, B)[1]) / 2
    np.testing.assert_allclose(values_of(scope, names)[names[0]], W - 0.3 * gw, rtol=1e-5, atol=1e-6)


def test_share_vars_from_ignores_a_later_scope_argument(static_mode):
    main, startup, loss, names, test = linear_program(test_clone=True)
    scope = paddle.static.Scope()
    exe = start(startup, scope, {names[0]: W, names[1]: B})
    train = _dp(main, loss)
    exe.run(train, feed={"x": X, "y": Y}, fetch_list=[loss], scope=scope)
    evaluate = _dp(test, share_vars_from=train)
    trained = values_of(scope, names)
    for _ in range(2):   # the global scope holds no parameters: the train program's scope is used
        out, = exe.run(evaluate, feed={"x": X, "y": Y}, fetch_list=[loss])
    np.testing.assert_allclose(out[0], linear_grads(X[:4], Y[:4], trained[names[0]], trained[names[1]])[0],
                               rtol=1e-5)
