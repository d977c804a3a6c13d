"""paddle.static.nn.cond / while_loop / case / switch_case: static programs (sub-blocks run by the executor) and
dygraph, vs hand-computed NumPy; gradients and training through cond; clone, printing and ProgramDesc round trip;
bad input; the same scenarios on real Paddle 3.3.1."""
import os
import pickle
import tempfile

import numpy as np
import pytest

import torchpaddle as paddle
import paddle_ref
from tests.static import static_nn_scenarios as scenarios

cond, while_loop, case, switch_case = (paddle.static.nn.cond, paddle.static.nn.while_loop, paddle.static.nn.case,
                                       paddle.static.nn.switch_case)
X = np.arange(6, dtype="float32").reshape(2, 3)


def _run(main, feed, fetch):
    return paddle.static.Executor().run(main, feed=feed, fetch_list=fetch)


# -- static programs vs NumPy -----------------------------------------------------------------------------------------
def test_cond_values_nested_and_structured():
    results = scenarios.run_all(paddle, ["cond_values"])["cond_values"]
    for (doubled, reduced, sign), s in zip(results, (1.0, -2.0, 0.0)):
        if s > 0:
            np.testing.assert_array_equal(doubled, X * 2)
            assert reduced == X.max()
        else:
            np.testing.assert_array_equal(doubled, X - 1)
            np.testing.assert_allclose(reduced, X.mean())
        assert sign.tolist() == [np.sign(s)]


def test_while_loop_values():
    results = scenarios.run_all(paddle, ["while_loop"])["while_loop"]
    for (i, acc), n in zip(results, (0, 1, 5)):
        a = 1.0
        for k in range(n):
            a = a * 2 + k
        assert i.tolist() == [n] and acc.tolist() == [a]


def test_case_and_switch_case_values():
    results = scenarios.run_all(paddle, ["case_switch"])["case_switch"]
    for (c, c_nodefault, sw, sw_list), (x, k) in zip(results, ((-1.0, 1), (0.5, 3), (2.0, 0), (0.5, 7))):
        assert c.tolist() == [10.0 if x < 0 else 20.0 if x < 1 else 30.0]
        # no default: the last pair's fn is the default
        assert c_nodefault.tolist() == [1.0 if x < 0 else 2.0]
        assert sw.tolist() == [{1: 100.0, 3: 300.0}.get(k, -1.0)]
        # no default: the largest key's fn
        assert sw_list.tolist() == [0.5 if k == 0 else 1.5]


def test_training_through_cond_reduces_loss():
    result = scenarios.run_all(paddle, ["train_through_cond"])["train_through_cond"]
    losses = result["losses"]
    # steps 0, 1, 3, 4 use the left branch, 2 and 5 the right one: each branch's loss falls when trained
    assert losses[1] < losses[0] and losses[3] < losses[1] and losses[4] < losses[3]
    assert losses[5] < losses[2]


def test_nested_cond_and_while_loop(static_mode):
    main, _ = static_mode
    n = paddle.static.data("n", [1], "int64")

    def body(i, total):   # adds k for even k, -1 for odd k
        even = paddle.equal(i % 2, paddle.full([1], 0, "int64"))
        return [i + 1, total + cond(even, lambda: paddle.cast(i, "float32"), lambda: paddle.full([1], -1.0))]

    _, total = while_loop(lambda i, t: i < n, body, [paddle.full([1], 0, "int64"), paddle.full([1], 0.0)])
    doubling = cond(n > 3, lambda: while_loop(lambda j: j < 10, lambda j: [j * 2], [paddle.full([1], 1, "int64")])[0],
                    lambda: n)
    for k in (0, 3, 6):
        got_total, got_doubling = _run(main, {"n": np.array([k])}, [total, doubling])
        assert got_total.tolist() == [sum(j if j % 2 == 0 else -1 for j in range(k))]
        assert got_doubling.tolist() == [16 if k > 3 else k]


def test_layers_built_inside_branches_train_only_when_taken(static_mode):
    main, startup = static_mode
    x = paddle.static.data("x", [-1, 3], "float32")
    y = paddle.static.data("y", [-1, 1], "float32")
    flag = paddle.static.data("flag", [1], "bool")
    pred = cond(flag, lambda: paddle.static.nn.fc(x, 1, name="left"), lambda: paddle.static.nn.fc(x, 1, name="right"))
    loss = paddle.mean((pred - y) ** 2)
    paddle.optimizer.SGD(0.2).minimize(loss)
    exe = paddle.static.Executor()
    exe.run(startup)
    scope = paddle.static.global_scope()

    def value(name):
        return np.array(scope.find_var(name).get_tensor()).copy()

    right_before = value("right.w_0")
    xv = X / 5.0
    target = xv[:, :1] * 0.5 - 1.0
    losses = [float(exe.run(main, feed={"x": xv, "y": target, "flag": np.array([True])}, fetch_list=[loss])[0])
              for _ in range(20)]
    assert losses[-1] < 0.5 * losses[0]
    np.testing.assert_array_equal(value("right.w_0"), right_before)   # the branch not taken gets no update


def test_gradient_through_cond_is_the_taken_branch(static_mode):
    main, _ = static_mode
    x = paddle.static.data("x", [-1, 3], "float32")
    x.stop_gradient = False
    p = paddle.static.data("p", [1], "bool")
    y = cond(p, lambda: x * x, lambda: x * 3.0 + 1.0)
    loss = paddle.mean(y)
    (gx,) = paddle.static.gradients([loss], [x])
    for flag in (True, False):
        out, g = _run(main, {"x": X, "p": np.array([flag])}, [y, gx])
        np.testing.assert_allclose(out, X * X if flag else X * 3 + 1)
        np.testing.assert_allclose(g, (2 * X if flag else np.full_like(X, 3.0)) / X.size, rtol=1e-6)


def test_cond_writes_outer_variable_and_persistable_state(static_mode):
    """A branch assigning an outer variable writes it only when taken (Out of conditional_block)."""
    main, startup = static_mode
    x = paddle.static.data("x", [1], "float32")
    counter = paddle.static.create_global_var([1], 0.0, "float32", persistable=True, name="counter")

    def add():
        paddle.assign(counter + x, output=counter)   # returns nothing: no select_input

    cond(x > 0, add)
    exe = paddle.static.Executor()
    exe.run(startup)
    for v in (2.0, -5.0, 3.0):
        exe.run(main, feed={"x": np.array([v], "float32")})
    assert np.array(paddle.static.global_scope().find_var("counter").get_tensor()).tolist() == [5.0]


def test_cond_output_shape_merges_branches(static_mode):
    x = paddle.static.data("x", [4, 3], "float32")
    p = paddle.static.data("p", [1], "bool")
    out = cond(p, lambda: x, lambda: paddle.concat([x, x]))
    assert out.shape == [-1, 3]
    main = static_mode[0]
    assert _run(main, {"x": np.ones([4, 3], "float32"), "p": np.array([False])}, [out])[0].shape == (8, 3)
    assert cond(p, lambda: None, lambda: None) is None


def test_program_clone_print_and_desc_round_trip(static_mode):
    main, _ = static_mode
    x = paddle.static.data("x", [-1, 3], "float32")
    p = paddle.static.data("p", [1], "bool")
    i = paddle.full([1], 0, "int64")
    y = cond(p, lambda: x + 1.0, lambda: x - 1.0)
    (n,) = while_loop(lambda i: i < 4, lambda i: [i + 1], [i])
    text = str(main)
    assert "sub_block = block[1]" in text and "conditional_block" in text and "while(" in text
    assert main.num_blocks == 4
    clone = main.clone(for_test=True)
    ops = [op for op in clone.global_block().ops if "sub_block" in op.attrs]
    assert all(op.attrs["sub_block"].program is clone for op in ops)
    loaded = paddle.static.Program.parse_from_string(main.desc_bytes())
    for program in (clone, loaded):
        got_y, got_n = _run(program, {"x": X, "p": np.array([False])}, [y.name, n.name])
        np.testing.assert_array_equal(got_y, X - 1)
        assert got_n.tolist() == [4]


def test_gradients_through_while_loop(static_mode):
    """h <- tanh(h W + x) three times from a fed h0: gradients for W (read by the loop), x and the fed h0 (the loop
    starts from a copy of it), vs the unrolled NumPy derivative by finite differences of the same recurrence."""
    main, startup = static_mode
    rng = np.random.RandomState(0)
    xv, wv, hv = (rng.uniform(-1, 1, s).astype("float64") for s in ((4, 3), (3, 3), (4, 3)))
    x = paddle.static.data("x", [-1, 3], "float64")
    h0 = paddle.static.data("h0", [-1, 3], "float64")
    x.stop_gradient = h0.stop_gradient = False
    w = paddle.static.create_parameter([3, 3], "float64", name="w")
    _, h = while_loop(lambda i, h: i < 3, lambda i, h: [i + 1, paddle.tanh(paddle.matmul(h, w) + x)],
                      [paddle.full([1], 0, "int64"), h0])
    loss = paddle.mean(h * h)
    grads = paddle.static.gradients([loss], [w, x, h0])
    exe = paddle.static.Executor()
    exe.run(startup)
    paddle.static.global_scope().var("w").get_tensor().set(wv)
    got = exe.run(main, feed={"x": xv, "h0": hv}, fetch_list=[loss] + grads)

    def numpy_loss(w_, x_, h_):
        for _ in range(3):
            h_ = np.tanh(h_ @ w_ + x_)
        return (h_ * h_).mean()

    np.testing.assert_allclose(got[0], numpy_loss(wv, xv, hv))
    for k, (arr, g) in enumerate(zip((wv, xv, hv), got[1:])):
        numeric = np.zeros_like(arr)
        for idx in np.ndindex(arr.shape):
            plus, minus = [a.copy() for a in (wv, xv, hv)], [a.copy() for a in (wv, xv, hv)]
            plus[k][idx] += 1e-6
            minus[k][idx] -= 1e-6
            numeric[idx] = (numpy_loss(*plus) - numpy_loss(*minus)) / 2e-6
        np.testing.assert_allclose(g, numeric, rtol=1e-5, atol=1e-8)


def test_while_loop_over_a_parameter_gets_its_gradient_op_by_op(static_mode):
    # one autograd step cannot give it (the loop rewrites w's name in place): the Executor runs the grad ops
    # one by one, and while_grad recomputes the loop from the value it started from
    main, startup = static_mode
    w = paddle.static.create_parameter([1], "float32", name="w")
    _, y = while_loop(lambda i, v: i < 3, lambda i, v: [i + 1, v * 2.0], [paddle.full([1], 0, "int64"), w])
    paddle.static.append_backward(paddle.mean(y))
    paddle.static.Executor().run(startup)
    paddle.static.global_scope().var("w").get_tensor().set(np.array([0.5], "float32"))
    got_y, got_grad = _run(main, {}, [y, "w@GRAD"])
    assert got_y.tolist() == [4.0] and got_grad.tolist() == [8.0]
    with pytest.raises(NotImplementedError, match="while_loop variable"):
        from torchpaddle.static.control_flow_exec import check_grad_ops
        check_grad_ops([op for op in main.global_block().ops if op.type == "while_grad"])


def test_static_pylayer_custom_gradients():
    y, cube, grad = scenarios.run_all(paddle, ["static_pylayer"])["static_pylayer"]
    xv = scenarios.VEC[:, :3]
    np.testing.assert_allclose(y, np.exp(xv), rtol=1e-6)
    np.testing.assert_allclose(cube, xv ** 3, rtol=1e-5)
    # 2 * exp(dy) with dy = 1, plus 3 x^2 dy with dy = 1 / 12 (the mean): the backward_fns, not exp's derivative
    np.testing.assert_allclose(grad, 2 * np.e + 3 * xv ** 2 / xv.size, rtol=1e-5)


def test_static_pylayer_without_backward_and_bad_input(static_mode):
    main, _ = static_mode
    x = paddle.static.data("x", [-1, 3], "float32")
    out = paddle.static.nn.static_pylayer(lambda t: (t + 1.0, t * 2.0), [x])
    assert isinstance(out, tuple) and len(out) == 2
    got = _run(main, {"x": X}, list(out))
    np.testing.assert_allclose(got[0], X + 1)
    np.testing.assert_allclose(got[1], X * 2)
    with pytest.raises(TypeError, match="forward_fn"):
        paddle.static.nn.static_pylayer(3, [x])
    with pytest.raises(TypeError, match="inputs"):
        paddle.static.nn.static_pylayer(lambda t: t, x)
    with pytest.raises(ValueError, match="1 input"):
        paddle.static.nn.static_pylayer(lambda t: t * 2.0, [x], lambda dy: (dy, dy))
    paddle.disable_static()
    try:
        with pytest.raises(AssertionError, match="static graph"):
            paddle.static.nn.static_pylayer(lambda t: t, [paddle.ones([2])])
    finally:
        paddle.enable_static()


# -- dygraph ---------------------------------------------------------------------------------------------------------
def test_dygraph_control_flow():
    x = paddle.to_tensor(X)
    out = cond(paddle.to_tensor([True]), lambda: x * 2, lambda: x - 1)
    np.testing.assert_array_equal(out.numpy(), X * 2)
    assert cond(paddle.to_tensor(False), lambda: x) is None
    i, acc = while_loop(lambda i, a: i < 4, lambda i, a: [i + 1, a * 3], [paddle.to_tensor([0]), paddle.to_tensor(1.0)])
    assert i.numpy().tolist() == [4] and float(acc) == 81.0
    pairs = [(x.sum() < 0, lambda: paddle.to_tensor(1)), (x.sum() > 0, lambda: paddle.to_tensor(2))]
    assert int(case(pairs, default=lambda: paddle.to_tensor(3))) == 2
    fns = {2: lambda: paddle.to_tensor(20), 5: lambda: paddle.to_tensor(50)}
    assert int(switch_case(paddle.to_tensor(5), fns)) == 50
    assert int(switch_case(paddle.to_tensor(9), fns)) == 50   # the largest key is the default
    assert int(switch_case(paddle.to_tensor(9), fns, default=lambda: paddle.to_tensor(-1))) == -1


# -- bad input -------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("call, error, match", [
    (lambda v: cond(v["f"], lambda: v["x"], lambda: v["x"]), TypeError, "bool"),
    (lambda v: cond(v["bvec"], lambda: v["x"], lambda: v["x"]), ValueError, "one element"),
    (lambda v: cond(True, lambda: v["x"], lambda: v["x"]), TypeError, "pred"),
    (lambda v: cond(v["p"], v["x"], lambda: v["x"]), TypeError, "true_fn"),
    (lambda v: cond(v["p"], lambda: (v["x"], v["x"]), lambda: v["x"]), ValueError, "Incompatible"),
    (lambda v: cond(v["p"], lambda: [v["x"], v["x"]], lambda: [v["x"]]), ValueError, "lengths"),
    (lambda v: cond(v["p"], lambda: v["x"], None), ValueError, "returns None"),
    (lambda v: cond(v["p"], lambda: v["x"], lambda: paddle.cast(v["x"], "float64")), ValueError, "dtypes"),
    (lambda v: cond(v["p"], lambda: 3, lambda: 4), TypeError, "Variables"),
    (lambda v: while_loop(lambda i: i < 3, lambda i: [i + 1], v["i"]), TypeError, "loop_vars"),
    (lambda v: while_loop(lambda i: i < 3, lambda i: [i + 1], []), ValueError, "empty"),
    (lambda v: while_loop(3, lambda i: [i + 1], [v["i"]]), TypeError, "cond"),
    (lambda v: while_loop(lambda i: i < 3, None, [v["i"]]), TypeError, "body"),
    (lambda v: while_loop(lambda i: i + 1, lambda i: [i + 1], [v["i"]]), TypeError, "bool"),
    (lambda v: while_loop(lambda i: i < 3, lambda i: [i + 1, i], [v["i"]]), ValueError, "arity"),
    (lambda v: while_loop(lambda i: i < 3, lambda i: [i + 1], [v["i"], 3]), TypeError, "loop_vars"),
    (lambda v: case([v["p"], lambda: v["x"]]), TypeError, "tuples"),
    (lambda v: case([(v["p"], lambda: v["x"], 1)]), TypeError, "2-tuples"),
    (lambda v: case([(v["p"], lambda: v["x"])], default=3), TypeError, "default"),
    (lambda v: case(v["p"]), TypeError, "list"),
    (lambda v: switch_case(v["f"], [lambda: v["x"]]), TypeError, "int"),
    (lambda v: switch_case(v["i"], [(1, lambda: v["x"]), (1, lambda: v["x"])]), ValueError, "unique"),
    (lambda v: switch_case(v["i"], [("a", lambda: v["x"])]), TypeError, "keys"),
    (lambda v: switch_case(v["i"], lambda: v["x"]), TypeError, "branch_fns"),
])
def test_bad_input(static_mode, call, error, match):
    v = {"x": paddle.static.data("x", [-1, 3], "float32"), "p": paddle.static.data("p", [1], "bool"),
         "bvec": paddle.static.data("bvec", [3], "bool"), "f": paddle.static.data("f", [1], "float32"),
         "i": paddle.full([1], 0, "int64")}
    with pytest.raises(error, match=match):
        call(v)


def test_dygraph_bad_pred():
    with pytest.raises(ValueError, match="one element"):
        cond(paddle.to_tensor([True, False]), lambda: 1, lambda: 2)
    with pytest.raises(AssertionError):   # what Paddle's dygraph cond raises
        cond(paddle.to_tensor([True, False]), lambda: 1, lambda: 2)
    with pytest.raises(TypeError, match="bool"):
        cond(paddle.to_tensor([1.0]), lambda: 1, lambda: 2)


# -- vs real Paddle -------------------------------------------------------------------------------------------------
@pytest.mark.multiprocess
@pytest.mark.conformance
def test_matches_real_paddle():
    """Fetched values of the control-flow scenarios and the cond training run (losses, parameters) vs Paddle 3.3.1
    (its PIR mode: its legacy cond fails while building, see static_nn_scenarios)."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "ref.pkl")
        paddle_ref.run_module("tests.static.static_nn_scenarios", path, "pir")
        with open(path, "rb") as f:
            theirs = pickle.load(f)["results"]
    ours = scenarios.run_all(paddle, scenarios.PIR_SCENARIOS)
    assert sorted(theirs) == sorted(scenarios.PIR_SCENARIOS)
    for name in scenarios.PIR_SCENARIOS:
        assert not (isinstance(theirs[name], tuple) and theirs[name][0] == "E"), theirs[name]
        _compare(ours[name], theirs[name], name)


@pytest.mark.multiprocess
@pytest.mark.conformance
def test_saved_control_flow_program_runs_in_real_paddle(static_mode, tmp_path):
    """conditional_block / select_input / while ops written here (ProgramDesc with sub-blocks) run in Paddle
    3.3.1's legacy executor with the same results as here."""
    main, _ = static_mode
    x = paddle.static.data("x", [-1, 3], "float32")
    p = paddle.static.data("p", [1], "bool")
    y = cond(p, lambda: paddle.tanh(x) + 1.0, lambda: x * 3.0)
    i, s = paddle.full([1], 0, "int64"), paddle.full([1], 0.5, "float32")
    _, s_out = while_loop(lambda i, s: i < 4, lambda i, s: [i + 1, s * 2.0], [i, s])
    feeds = [{"x": X, "p": np.array([flag])} for flag in (True, False)]
    fetch = [y.name, s_out.name]
    job = tmp_path / "job.pkl"
    job.write_bytes(pickle.dumps({"program": main.desc_bytes(), "feeds": feeds, "fetch": fetch}))
    paddle_ref.run_module("tests.static.static_nn_scenarios", str(tmp_path / "out.pkl"), "saved", str(job))
    theirs = pickle.loads((tmp_path / "out.pkl").read_bytes())["results"]
    ours = [_run(main, feed, fetch) for feed in feeds]
    _compare(ours, theirs, "saved")
    np.testing.assert_allclose(ours[0][0], np.tanh(X) + 1, rtol=1e-6)
    assert ours[1][1].tolist() == [8.0]


def _compare(ours, theirs, where):
    if isinstance(theirs, dict):
        assert sorted(ours) == sorted(theirs), where
        for k in theirs:
            _compare(ours[k], theirs[k], f"{where}.{k}")
    elif isinstance(theirs, (list, tuple)):
        assert len(ours) == len(theirs), where
        for i, (o, t) in enumerate(zip(ours, theirs)):
            _compare(o, t, f"{where}[{i}]")
    else:
        o, t = np.asarray(ours), np.asarray(theirs)
        assert o.shape == t.shape and o.dtype == t.dtype, f"{where}: {o.shape} {o.dtype} vs {t.shape} {t.dtype}"
        np.testing.assert_allclose(o, t, rtol=1e-5, atol=1e-6, err_msg=where)
