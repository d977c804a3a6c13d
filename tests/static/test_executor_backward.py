"""Executor (feeds, fetches, scopes, plans, errors) and append_backward / gradients against NumPy."""
import numpy as np
import pytest

import torchpaddle as paddle


def _exe():
    return paddle.static.Executor(paddle.CPUPlace())


def test_fetch_by_variable_or_name_and_return_numpy_false(static_mode):
    x = paddle.static.data("x", [-1, 3], "float32")
    y = paddle.exp(x) + 1
    data = np.random.rand(4, 3).astype("float32")
    a, b = _exe().run(feed={"x": data}, fetch_list=[y, y.name])
    np.testing.assert_allclose(a, np.exp(data) + 1, rtol=1e-6)
    np.testing.assert_array_equal(a, b)
    t, = _exe().run(feed={"x": data}, fetch_list=[y], return_numpy=False)
    assert isinstance(t, paddle.Tensor) and t.shape == [4, 3]


def test_feed_checks_and_errors(static_mode):
    main, _ = static_mode
    x = paddle.static.data("x", [-1, 3], "float32")
    y = x * 2
    exe = _exe()
    with pytest.raises(ValueError, match="data type of fed Variable 'x' must be 'float32'"):
        exe.run(feed={"x": np.ones([2, 3])}, fetch_list=[y])
    with pytest.raises(ValueError, match="should have dimensions = 2"):
        exe.run(feed={"x": np.ones([2, 4], "float32")}, fetch_list=[y])
    with pytest.raises(ValueError, match="not fed"):
        exe.run(feed={}, fetch_list=[y])
    # as Paddle: a fed name the program lacks is ignored, with a warning
    with pytest.warns(UserWarning, match="'nope' is not in the program"):
        out, = exe.run(feed={"x": np.ones([2, 3], "float32"), "nope": np.ones(1)}, fetch_list=[y])
    np.testing.assert_array_equal(out, np.full([2, 3], 2.0, "float32"))
    with pytest.raises(TypeError):
        exe.run(feed=[np.ones([2, 3], "float32")], fetch_list=[y])
    with pytest.raises(TypeError):
        exe.run(feed={"x": np.ones([2, 3], "float32")}, fetch_list=[3])
    with pytest.raises(ValueError, match="not in the program"):
        exe.run(feed={"x": np.ones([2, 3], "float32")}, fetch_list=["missing_var"])
    # a list of Python floats is converted to the variable's dtype, as Paddle does
    got, = exe.run(feed={"x": [[1.0, 2.0, 3.0]]}, fetch_list=[y])
    assert got.dtype == np.float32 and got.tolist() == [[2.0, 4.0, 6.0]]


def test_missing_startup_run_is_a_clear_error(static_mode):
    x = paddle.static.data("x", [-1, 3], "float32")
    out = paddle.nn.Linear(3, 2)(x)
    with pytest.raises(RuntimeError, match="startup program"):
        _exe().run(feed={"x": np.ones([1, 3], "float32")}, fetch_list=[out])


def test_scopes_are_separate_and_plans_cached(static_mode):
    main, startup = static_mode
    x = paddle.static.data("x", [-1, 2], "float32")
    out = paddle.nn.Linear(2, 1, bias_attr=False)(x)
    w = main.all_parameters()[0].name
    exe = _exe()
    s1, s2 = paddle.static.Scope(), paddle.static.Scope()
    for scope, value in ((s1, 1.0), (s2, 2.0)):
        exe.run(startup, scope=scope)
        scope.var(w).get_tensor().set(np.full([2, 1], value, "float32"))
    feed = {"x": np.ones([1, 2], "float32")}
    assert exe.run(main, feed=feed, fetch_list=[out], scope=s1)[0].item() == 2.0
    assert exe.run(main, feed=feed, fetch_list=[out], scope=s2)[0].item() == 4.0
    assert len(main._plan_cache) == 1
    paddle.exp(out)   # building more invalidates the cached plans
    assert not main._plan_cache


def test_append_backward_matches_numpy(static_mode):
    main, startup = static_mode
    x = paddle.static.data("x", [-1, 3], "float64")
    w = paddle.static.create_parameter([3, 2], "float64", name="w")
    h = paddle.tanh(paddle.matmul(x, w))
    loss = paddle.sum(h * h) + paddle.sum(h)   # h used twice: gradients add up
    pairs = paddle.static.append_backward(loss)
    assert [(p.name, g.name) for p, g in pairs] == [("w", "w@GRAD")]
    exe = _exe()
    exe.run(startup)
    W = np.random.rand(3, 2)
    paddle.static.global_scope().var("w").get_tensor().set(W)
    X = np.random.rand(5, 3)
    gw, gh = exe.run(feed={"x": X}, fetch_list=["w@GRAD", h.name + "@GRAD"])
    H = np.tanh(X @ W)
    dh = 2 * H + 1
    np.testing.assert_allclose(gh, dh, rtol=1e-10)
    np.testing.assert_allclose(gw, X.T @ (dh * (1 - H ** 2)), rtol=1e-10)
    assert "tanh_grad" in [op.type for op in main.global_block().ops]


def test_no_grad_set_and_stop_gradient_cut_the_backward(static_mode):
    x = paddle.static.data("x", [2, 2], "float32")
    a = paddle.static.create_parameter([2, 2], "float32", name="a")
    b = paddle.static.create_parameter([2, 2], "float32", name="b")
    mid = paddle.matmul(x, a)
    cut = paddle.matmul(x, b)
    cut.stop_gradient = True
    loss = paddle.mean(mid + cut)
    pairs = paddle.static.append_backward(loss, no_grad_set={"a"})
    assert pairs == []
    with pytest.raises(TypeError):
        paddle.static.append_backward("loss")
    data = paddle.static.data("d", [2], "float32")
    with pytest.raises(ValueError, match="stop_gradient"):
        paddle.static.append_backward(paddle.mean(data))


def test_gradients_with_target_gradients_against_numpy(static_mode):
    x = paddle.static.data("x", [3], "float64")
    x.stop_gradient = False
    y = x * x * 3.0
    seed = paddle.static.data("seed", [3], "float64")
    gx, = paddle.static.gradients([y], [x], target_gradients=[seed])
    X, S = np.array([1.0, -2.0, 0.5]), np.array([1.0, 2.0, 3.0])
    got, = _exe().run(feed={"x": X, "seed": S}, fetch_list=[gx])
    np.testing.assert_allclose(got, 6 * X * S)
    with pytest.raises(ValueError):
        paddle.static.gradients([y], [x], target_gradients=[seed, seed])


def test_training_loop_reduces_loss_and_updates_scope(static_mode):
    main, startup = static_mode
    x = paddle.static.data("x", [-1, 4], "float32")
    y = paddle.static.data("y", [-1, 1], "float32")
    loss = paddle.nn.functional.mse_loss(paddle.nn.Linear(4, 1)(x), y)
    paddle.optimizer.SGD(0.1).minimize(loss)
    exe = _exe()
    exe.run(startup)
    paddle.static.global_scope().var("linear_0.w_0").get_tensor().set(np.full([4, 1], 0.1, "float32"))
    rng = np.random.RandomState(0)
    X = rng.rand(32, 4).astype("float32")
    Y = X @ np.array([[1.0], [-2.0], [0.5], [3.0]], "float32")
    losses = [exe.run(main, feed={"x": X, "y": Y}, fetch_list=[loss])[0].item() for _ in range(50)]
    assert losses[-1] < losses[0] * 0.2


def test_two_backward_passes_keep_their_own_gradients(static_mode):
    x = paddle.static.data("x", [3], "float64")
    x.stop_gradient = False
    g1, = paddle.static.gradients([x * x], [x])
    g2, = paddle.static.gradients([x * 3.0], [x])
    assert (g1.name, g2.name) == ("x@GRAD", "x@GRAD_1")
    X = np.array([1.0, 2.0, 3.0])
    a, b = _exe().run(feed={"x": X}, fetch_list=[g1, g2])
    np.testing.assert_allclose(a, 2 * X)
    np.testing.assert_allclose(b, [3.0, 3.0, 3.0])
