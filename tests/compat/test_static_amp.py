"""paddle.static.amp: op lists and decorate() vs real PaddlePaddle 3.3.1 (static_amp_cases.py); the program
rewrites, loss scaling, inf/nan step skipping and O2 parameters checked here."""
import numpy as np
import pytest

import torchpaddle as paddle
import paddle_ref
from tests.compat import static_amp_cases as cases
from tests.nn.layer_case_tools import compare, run_cases

amp = paddle.static.amp


@pytest.fixture(scope="module")
def reference():
    return paddle_ref.results("tests.compat.static_amp_cases")


@pytest.fixture(scope="module")
def ours():
    return run_cases(cases.CASES, paddle)


@pytest.mark.conformance
@pytest.mark.parametrize("name", sorted(set(cases.CASES) - {n for n in cases.CASES if n.startswith("train_")}))
def test_matches_real_paddle(name, reference, ours):
    compare(ours[name], reference[name], name)


@pytest.mark.conformance
@pytest.mark.parametrize("name", ["train_fp32", "train_o1", "train_o2", "train_o1_sgd"])
def test_losses_match_paddle(name, reference, ours):
    # Paddle computes in float32 on CPU; torchpaddle's O1/O2 really run float16 kernels
    tol = 1e-6 if name == "train_fp32" else 2e-4
    np.testing.assert_allclose(ours[name], reference[name], rtol=tol, atol=tol)


def test_losses_close_to_float32():
    fp32 = cases.train(paddle, "fp32")
    for mode in ("O1", "O2"):
        np.testing.assert_allclose(cases.train(paddle, mode), fp32, rtol=2e-4, err_msg=mode)
    np.testing.assert_allclose(cases.train(paddle, "O1", dtype="bfloat16"), fp32, rtol=2e-2)


def _program(build, decorate, optimizer=lambda: paddle.optimizer.SGD(0.5)):
    paddle.enable_static()
    main, startup = paddle.static.Program(), paddle.static.Program()
    try:
        with paddle.static.program_guard(main, startup):
            loss = build()
            opt = decorate(optimizer())
            opt.minimize(loss)
    finally:
        paddle.disable_static()
    return main, startup, loss, opt


W = np.arange(12, dtype="float32").reshape(4, 3) / 10


def _mlp():
    x = paddle.static.data("x", [-1, 4], "float32")
    w = paddle.ParamAttr(name="w", initializer=paddle.nn.initializer.Assign(W))
    h = paddle.static.nn.fc(x, 3, weight_attr=w, bias_attr=False)
    return paddle.mean(paddle.nn.functional.softmax(h) * h)


def test_o1_casts_around_white_ops():
    main, _, loss, _ = _program(_mlp, lambda o: amp.decorate(o, level="O1"))
    block = main.global_block()
    ops = block.ops
    mul = next(op for op in ops if op.type == "mul")
    for name in mul.input_arg_names:
        assert block.var(name).dtype == paddle.float16
        writer = next(op for op in ops if name in op.output_arg_names)
        assert writer.type == "cast" and writer.attr("out_dtype") == paddle.float16.proto
    assert block.var(mul.output("Out")[0]).dtype == paddle.float16
    softmax = next(op for op in ops if op.type == "softmax")       # black list: back to float32
    assert block.var(softmax.input("X")[0]).dtype == paddle.float32
    assert block.var("w").dtype == paddle.float32                   # O1 keeps float32 parameters
    assert loss.dtype == paddle.float32
    types = [op.type for op in ops]
    assert types.index("check_finite_and_unscale") < types.index("update_loss_scaling") < types.index("sgd")


def test_collect_operator_stats_counts_dtypes(capsys):
    main, *_ = _program(_mlp, lambda o: amp.decorate(o, level="O1"))
    per_op = amp.debugging._stats(main, False)[0]
    assert per_op["mul"].convert_to_list() == [1, 0, 0, 0]          # float16
    assert per_op["softmax"].convert_to_list() == [0, 0, 1, 0]      # float32
    amp.debugging.collect_operator_stats(main)
    assert "mul" in capsys.readouterr().out


def test_custom_lists_change_the_rewrite():
    lists = amp.AutoMixedPrecisionLists(custom_black_list={"mul"})
    main, *_ = _program(_mlp, lambda o: amp.decorate(o, amp_lists=lists, level="O1"))
    assert "cast" not in [op.type for op in main.global_block().ops]


def _run(main, startup, feeds, fetch):
    exe = paddle.static.Executor(paddle.CPUPlace())
    scope = paddle.static.Scope()
    out = []
    with paddle.static.scope_guard(scope):
        exe.run(startup)
        for feed in feeds:
            out.append([np.asarray(v) for v in exe.run(main, feed=feed, fetch_list=fetch)])
    return out, scope


def test_dynamic_loss_scaling_skips_inf_steps_and_adapts():
    main, startup, loss, opt = _program(
        _mlp, lambda o: amp.decorate(o, level="O1", init_loss_scaling=2.0 ** 15, incr_every_n_steps=2,
                                     decr_every_n_nan_or_inf=1, incr_ratio=2.0, decr_ratio=0.5))
    good, huge = np.ones([2, 4], "float32"), np.full([2, 4], 6e4, "float32")   # x @ W overflows float16
    w = main.global_block().var("w")
    steps, _ = _run(main, startup, [{"x": huge}, {"x": good}, {"x": good}],
                    [opt.get_loss_scaling(), w])
    # the inf step halves the scaling and leaves the weight alone
    assert float(steps[0][0][0]) == 2.0 ** 14
    np.testing.assert_array_equal(steps[0][1], W)
    # two good steps: the second doubles the scaling back; both update the weight
    assert float(steps[1][0][0]) == 2.0 ** 14 and float(steps[2][0][0]) == 2.0 ** 15
    assert not np.allclose(steps[1][1], W) and not np.allclose(steps[2][1], steps[1][1])


def test_inf_step_leaves_adam_alone():
    """Zeroed gradients alone would still move Adam (its moments); the inf step must skip the update."""
    main, startup, loss, opt = _program(_mlp, lambda o: amp.decorate(o, level="O1"),
                                        lambda: paddle.optimizer.Adam(0.1))
    good, huge = np.ones([2, 4], "float32"), np.full([2, 4], 6e4, "float32")
    steps, _ = _run(main, startup, [{"x": good}, {"x": huge}, {"x": good}], [main.global_block().var("w")])
    assert not np.allclose(steps[0][0], W)
    np.testing.assert_array_equal(steps[1][0], steps[0][0])
    assert not np.allclose(steps[2][0], steps[1][0])


def test_update_loss_scaling_rules():
    """Hand-worked values of Paddle's update rule (incr every 1000 good steps x2, decr every 2 bad x0.5,
    never below 1, never to inf)."""
    op = paddle.ops.update_loss_scaling
    for found, prev, good, bad, expect in [(True, 1.5, 3, 1, (1.0, 0, 0)), (True, 8.0, 5, 0, (8.0, 0, 1)),
                                           (False, 4.0, 999, 0, (8.0, 0, 0)), (False, 3e38, 999, 0, (3e38, 0, 0)),
                                           (False, 4.0, 10, 1, (4.0, 11, 0))]:
        xs = [paddle.to_tensor([1.0, 2.0])]
        outs, scale, g, b = op(xs, paddle.to_tensor([found]), paddle.to_tensor([prev]),
                               paddle.to_tensor([good], "int32"), paddle.to_tensor([bad], "int32"), None,
                               incr_every_n_steps=1000, decr_every_n_nan_or_inf=2, incr_ratio=2.0, decr_ratio=0.5)
        np.testing.assert_allclose(scale.numpy(), [expect[0]], rtol=1e-6)
        assert (int(g.numpy()[0]), int(b.numpy()[0])) == expect[1:]
        np.testing.assert_array_equal(outs[0].numpy(), [0.0, 0.0] if found else [1.0, 2.0])
    outs, found = paddle.ops.check_finite_and_unscale([paddle.to_tensor([2.0, 4.0])], paddle.to_tensor([4.0]))
    np.testing.assert_array_equal(outs[0].numpy(), [0.5, 1.0])
    assert not found.numpy()[0]


def test_o2_parameters_are_half_with_float32_master_weights():
    main, startup, loss, opt = _program(_mlp, lambda o: amp.decorate(o, level="O2"))
    assert main.global_block().var("w").dtype == paddle.float16
    masters = [v.name for v in main.list_vars() if v.persistable and "master" in v.name]
    assert len(masters) == 1
    steps, scope = _run(main, startup, [{"x": np.ones([2, 4], "float32")}], [loss])
    exe = paddle.static.Executor(paddle.CPUPlace())
    fresh = paddle.static.Scope()
    with paddle.static.scope_guard(fresh):
        exe.run(startup)
    # the master weight starts from the exact float32 initial value, the parameter from its float16 rounding
    np.testing.assert_array_equal(np.asarray(fresh.find_var(masters[0]).get_tensor()), W)
    np.testing.assert_array_equal(np.asarray(fresh.find_var("w").get_tensor()), W.astype("float16"))
    assert np.asarray(scope.find_var("w").get_tensor()).dtype == np.float16
    assert np.asarray(scope.find_var(masters[0]).get_tensor()).dtype == np.float32


def test_o2_fp16_guard_limits_half_precision():
    def build():
        x = paddle.static.data("x", [-1, 4], "float32")
        with amp.fp16_guard():
            h = paddle.static.nn.fc(x, 3, weight_attr=paddle.ParamAttr(name="wg"), bias_attr=False)
        out = paddle.static.nn.fc(h, 2, weight_attr=paddle.ParamAttr(name="wf"), bias_attr=False)
        return paddle.mean(out)
    main, *_ = _program(build, lambda o: amp.decorate(o, level="O2", use_amp_guard=True))
    block = main.global_block()
    assert block.var("wg").dtype == paddle.float16 and block.var("wf").dtype == paddle.float32


def test_errors():
    with pytest.raises(ValueError, match="level"):
        amp.decorate(None, level="O3")
    with pytest.raises(ValueError, match="dtype"):
        amp.decorate(None, dtype="float32")
    with pytest.raises(ValueError, match="relu"):
        amp.AutoMixedPrecisionLists(custom_white_list={"relu"}, custom_black_list={"relu"})
    with pytest.raises(AssertionError, match="minimize"):
        amp.decorate(paddle.optimizer.SGD(0.1, parameters=paddle.nn.Linear(2, 2).parameters())).get_loss_scaling()
