"""paddle.static.py_func: a Python function run by the executor on its inputs' values, with backward_func
gradients, vs NumPy and real Paddle 3.3.1; bad input."""
import os
import pickle
import tempfile

import numpy as np
import pytest

import torchpaddle as paddle
import paddle_ref
from tests.static import static_nn_scenarios as scenarios

X = np.linspace(-1, 1, 12, dtype="float32").reshape(4, 3)


def _vars(main, *specs):
    return [main.global_block().create_var(name=n, shape=s, dtype=d) for n, s, d in specs]


def test_forward_values_and_received_types(static_mode):
    main, _ = static_mode
    x = paddle.static.data("x", [-1, 3], "float32")
    y = paddle.static.data("y", [-1, 3], "float32")
    total, count = _vars(main, ("total", [-1, 3], "float32"), ("count", [1], "int64"))
    seen = []

    def forward(a, b):
        seen.append(type(a).__name__)
        a, b = np.array(a), np.array(b)
        return [a + 2 * b, np.array([a.shape[0]], "int64")]

    assert paddle.static.py_func(forward, [x, y], [total, count]) == [total, count]
    doubled = total * 2.0   # the outputs feed ordinary ops
    got = paddle.static.Executor().run(main, feed={"x": X, "y": X * 3}, fetch_list=[total, count, doubled])
    np.testing.assert_allclose(got[0], X + 6 * X)
    assert got[1].tolist() == [4] and got[1].dtype == np.int64
    np.testing.assert_allclose(got[2], 14 * X)
    assert seen == ["LoDTensor"]
    op = [o for o in main.global_block().ops if o.type == "py_func"][0]
    assert op.input("X") == ["x", "y"] and op.output("Out") == ["total", "count"]
    assert op.attr("backward_callable_id") == -1


def test_backward_func_gradient_and_skip_vars(static_mode):
    main, _ = static_mode
    x = paddle.static.data("x", [-1, 3], "float32")
    x.stop_gradient = False
    (out,) = _vars(main, ("cube", [-1, 3], "float32"))
    received = []

    def backward(x_value, dy):   # the output is skipped
        received.append(len([x_value, dy]))
        return 3 * np.array(x_value) ** 2 * np.array(dy)

    paddle.static.py_func(lambda a: np.array(a) ** 3, x, out, backward_func=backward,
                          skip_vars_in_backward_input=out)
    loss = paddle.mean(out)
    (gx,) = paddle.static.gradients([loss], [x])
    value, grad = paddle.static.Executor().run(main, feed={"x": X}, fetch_list=[out, gx])
    np.testing.assert_allclose(value, X ** 3, rtol=1e-6)
    np.testing.assert_allclose(grad, 3 * X ** 2 / X.size, rtol=1e-5)
    assert received == [2]


def test_training_with_py_func_layer(static_mode):
    """An fc followed by a NumPy tanh (with its derivative as backward_func) trains by SGD."""
    main, startup = static_mode
    x = paddle.static.data("x", [-1, 3], "float32")
    y = paddle.static.data("y", [-1, 1], "float32")
    h = paddle.static.nn.fc(x, 1)
    (act,) = _vars(main, ("act", [-1, 1], "float32"))
    paddle.static.py_func(lambda a: np.tanh(np.array(a)), h, act,
                          backward_func=lambda a, o, d: np.array(d) * (1 - np.array(o) ** 2))
    loss = paddle.mean((act - y) ** 2)
    paddle.optimizer.SGD(0.5).minimize(loss)
    exe = paddle.static.Executor()
    exe.run(startup)
    target = np.tanh(X @ np.array([[0.5], [-0.3], [0.2]], "float32"))
    losses = [float(exe.run(main, feed={"x": X, "y": target}, fetch_list=[loss])[0]) for _ in range(30)]
    assert losses[-1] < 0.2 * losses[0]


def test_wrong_number_of_results_at_run(static_mode):
    main, _ = static_mode
    x = paddle.static.data("x", [-1, 3], "float32")
    a, b = _vars(main, ("a", [-1, 3], "float32"), ("b", [-1, 3], "float32"))
    paddle.static.py_func(lambda t: np.array(t), x, [a, b])
    with pytest.raises(ValueError, match="returned 1 value"):
        paddle.static.Executor().run(main, feed={"x": X}, fetch_list=[a])


@pytest.mark.parametrize("call, error", [
    (lambda x, o: paddle.static.py_func(3, x, o), TypeError),
    (lambda x, o: paddle.static.py_func(np.tanh, "x", o), TypeError),
    (lambda x, o: paddle.static.py_func(np.tanh, x, [o, 1]), TypeError),
    (lambda x, o: paddle.static.py_func(np.tanh, x, o, backward_func=3), TypeError),
    (lambda x, o: paddle.static.py_func(np.tanh, x, o, skip_vars_in_backward_input="other"), ValueError),
    (lambda x, o: paddle.static.py_func(np.tanh, x, o, skip_vars_in_backward_input=[3]), TypeError),
])
def test_bad_input(static_mode, call, error):
    x = paddle.static.data("x", [-1, 3], "float32")
    (out,) = _vars(static_mode[0], ("o", [-1, 3], "float32"))
    with pytest.raises(error):
        call(x, out)


def test_dygraph_is_refused():
    with pytest.raises(AssertionError, match="enable_static"):
        paddle.static.py_func(np.tanh, paddle.to_tensor(X), None)


@pytest.mark.multiprocess
@pytest.mark.conformance
def test_matches_real_paddle():
    """tanh by py_func with a backward_func (x skipped) and an int64 count output, vs Paddle 3.3.1's legacy graph."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "ref.pkl")
        paddle_ref.run_module("tests.static.static_nn_scenarios", path, "legacy", "py_func")
        with open(path, "rb") as f:
            theirs = pickle.load(f)["results"]["py_func"]
    ours = scenarios.run_all(paddle, ["py_func"])["py_func"]
    assert not (isinstance(theirs, tuple) and theirs[0] == "E"), theirs
    assert len(ours) == len(theirs) == 3
    for o, t in zip(ours, theirs):
        assert o.shape == t.shape and o.dtype == t.dtype
        np.testing.assert_allclose(o, t, rtol=1e-5, atol=1e-7)
