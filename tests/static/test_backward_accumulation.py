"""append_backward for a variable read by several ops: each gradient contribution gets a ``@RENAME@`` name of its
own and a ``sum`` op adds them up, as in Paddle, so that a saved training program trains the same in real Paddle
(whose executor overwrites a variable written twice). Cases: backward_cases.py."""
import numpy as np
import pytest

import paddle_ref
import torchpaddle as paddle
from tests.static import backward_cases as C


def _backward(main):
    return [(op.type, op.inputs.get("X", []) if op.type == "sum" else {k: v for k, v in op.outputs.items()})
            for op in main.global_block().ops if op.attrs.get("op_role", 0) & 1 and op.type != "fill_constant"]


def test_a_variable_read_twice_by_one_op_gets_its_parts_summed(static_mode):
    main, _ = static_mode
    x = paddle.static.data("x", [3], "float64")
    x.stop_gradient = False
    y = paddle.tanh(x)
    square = y * y
    gx, = paddle.static.gradients([paddle.sum(square)], [x])
    t = y.name
    assert _backward(main) == [
        ("reduce_sum_grad", {"X@GRAD": [square.name + "@GRAD"]}),
        ("elementwise_mul_grad", {"X@GRAD": [f"{t}@GRAD@RENAME@block0@0"], "Y@GRAD": [f"{t}@GRAD@RENAME@block0@1"]}),
        ("sum", [f"{t}@GRAD@RENAME@block0@0", f"{t}@GRAD@RENAME@block0@1"]),
        ("tanh_grad", {"X@GRAD": ["x@GRAD"]})]
    X = np.array([0.5, -1.0, 2.0])
    got, = paddle.static.Executor().run(main, feed={"x": X}, fetch_list=[gx])
    np.testing.assert_allclose(got, 2 * np.tanh(X) * (1 - np.tanh(X) ** 2), rtol=1e-12)
    # each part is the gradient through one operand of the product: fetching one runs the grad ops one by one
    part, = paddle.static.Executor().run(main, feed={"x": X}, fetch_list=[f"{t}@GRAD@RENAME@block0@1"])
    np.testing.assert_allclose(part, np.tanh(X), rtol=1e-12)


def test_a_gradient_is_summed_before_its_first_reader_and_a_parameters_at_the_end(static_mode):
    main, _ = static_mode
    x = paddle.static.data("x", [2, 3], "float64")
    w = paddle.static.create_parameter([3, 3], "float64", name="w")
    h = paddle.matmul(x, w)
    h = h + paddle.matmul(h, w)         # h read twice, w read twice
    pairs = paddle.static.append_backward(paddle.mean(h))
    ops = [op for op in main.global_block().ops if op.attrs.get("op_role", 0) & 1]
    types = [op.type for op in ops]
    assert types == ["fill_constant", "reduce_mean_grad", "elementwise_add_grad", "matmul_v2_grad", "sum",
                     "matmul_v2_grad", "sum"]
    first_h = main.global_block().ops[0].output("Out")[0]
    assert ops[4].input("X") == [f"{first_h}@GRAD@RENAME@block0@0", f"{first_h}@GRAD@RENAME@block0@1"]
    assert ops[6].input("X") == ["w@GRAD@RENAME@block0@0", "w@GRAD@RENAME@block0@1"]
    # the parameter's gradient is the sum's: the optimizer reads it there (op_role_var, as in Paddle)
    assert ops[6].output("Out") == ["w@GRAD"] and ops[6].attrs["op_role_var"] == ["w", "w@GRAD"]
    assert [g.name for _, g in pairs] == ["w@GRAD"]
    exe = paddle.static.Executor()
    exe.run(paddle.static.default_startup_program())
    W = np.random.RandomState(0).rand(3, 3)
    paddle.static.global_scope().var("w").get_tensor().set(W)
    X = np.random.RandomState(1).rand(2, 3)
    got, = exe.run(main, feed={"x": X}, fetch_list=["w@GRAD"])
    # h2 = XW + XWW; d mean(h2)/dW by hand: G = ones/6; dW = X^T G + X^T G W^T + (XW)^T G
    G = np.full([2, 3], 1 / 6)
    np.testing.assert_allclose(got, X.T @ G + X.T @ G @ W.T + (X @ W).T @ G, rtol=1e-12)


# -- real Paddle 3.3.1 ----------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def saved_here(tmp_path_factory):
    folder = str(tmp_path_factory.mktemp("saved_here"))
    paddle.enable_static()
    try:
        return folder, C.save(paddle, folder)
    finally:
        paddle.disable_static()


@pytest.fixture(scope="module")
def reference(saved_here, tmp_path_factory):
    if not paddle_ref.available():
        pytest.skip("reference PaddlePaddle venv not found")
    theirs = str(tmp_path_factory.mktemp("saved_by_paddle"))
    return paddle_ref.results("tests.static.backward_cases", saved_here[0], theirs, timeout=300), theirs


def _result(reference, key):
    return paddle_ref.value_of(reference[0], key)


@pytest.fixture
def static():
    paddle.enable_static()
    try:
        yield
    finally:
        paddle.disable_static()


@pytest.mark.conformance
@pytest.mark.usefixtures("static")
def test_backward_ops_are_paddles(reference):
    ours, theirs = C.backward_ops(paddle), _result(reference, "ops")
    assert [op[0] for op in ours] == [op[0] for op in theirs]
    for i, (mine, paddles) in enumerate(zip(ours, theirs)):
        assert mine == paddles, f"backward op {i} ({mine[0]})"


@pytest.mark.conformance
@pytest.mark.usefixtures("static")
@pytest.mark.parametrize("per_op", [False, True], ids=["fused", "per_op"])
def test_training_matches_paddle(reference, per_op):
    ours, theirs = C.train(paddle, per_op=per_op), _result(reference, "train")
    np.testing.assert_allclose(ours["losses"], theirs["losses"], rtol=1e-5, atol=1e-6)
    for name, value in theirs["params"].items():
        np.testing.assert_allclose(ours["params"][name], value, rtol=1e-5, atol=1e-6, err_msg=name)


@pytest.mark.conformance
def test_program_saved_here_trains_on_in_paddle(saved_here, reference):
    np.testing.assert_allclose(_result(reference, "resumed"), saved_here[1], rtol=1e-5, atol=1e-6)


@pytest.mark.conformance
@pytest.mark.usefixtures("static")
def test_program_saved_by_paddle_trains_on_here(reference):
    # its grad ops carry Paddle's slots only (relu_grad reads Out, not X): they run one by one here
    np.testing.assert_allclose(C.resume(paddle, reference[1]), _result(reference, "saved"), rtol=1e-5, atol=1e-6)
