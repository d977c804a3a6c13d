"""paddle._C_ops and paddle._legacy_C_ops vs real PaddlePaddle 3.3.1 (cases in c_ops_cases.py), plus the
errors and modes that are torchpaddle's own."""
import numpy as np
import pytest

import torchpaddle as paddle
import paddle_ref
from tests.compat import c_ops_cases as cases
from tests.nn.layer_case_tools import compare, run_cases

C = paddle._C_ops
L = paddle._legacy_C_ops


@pytest.fixture(scope="module")
def reference():
    return paddle_ref.results("tests.compat.c_ops_cases")


@pytest.fixture(scope="module")
def ours():
    return run_cases(cases.CASES, paddle)


@pytest.mark.conformance
@pytest.mark.parametrize("name", sorted(cases.CASES))
def test_matches_real_paddle(name, reference, ours):
    compare(ours[name], reference[name], name, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("name", sorted(cases.CASES))
def test_case_runs(name, ours):
    assert not (isinstance(ours[name], tuple) and ours[name][0] == "E"), f"{name} raised {ours[name][1]}"


def test_against_numpy():
    x = np.arange(12, dtype="float32").reshape(3, 4) / 5 - 1
    t = paddle.to_tensor(x)
    np.testing.assert_allclose(C.matmul(t, t, False, True).numpy(), x @ x.T, rtol=1e-6)
    np.testing.assert_allclose(C.softmax(t, 1).numpy(), np.exp(x) / np.exp(x).sum(1, keepdims=True), rtol=1e-6)
    np.testing.assert_allclose(C.sum(t, [0], None, False).numpy(), x.sum(0), rtol=1e-6)
    mean, var = x.mean(1, keepdims=True), x.var(1, keepdims=True)
    np.testing.assert_allclose(C.layer_norm(t, None, None, 1e-5, 1).numpy(), (x - mean) / np.sqrt(var + 1e-5),
                               rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(L.elementwise_add(t, t).numpy(), 2 * x)


def test_gradients_flow():
    x = paddle.to_tensor(np.ones([2, 3], "float32"), stop_gradient=False)
    w = paddle.to_tensor(np.full([3, 4], 0.5, "float32"), stop_gradient=False)
    out = C.relu(C.matmul(x, w, False, False))
    assert not out.stop_gradient
    C.sum(out, [], None, False).backward()
    np.testing.assert_allclose(x.grad.numpy(), np.full([2, 3], 2.0))
    np.testing.assert_allclose(w.grad.numpy(), np.full([3, 4], 2.0))


def test_out_keyword_writes_into_tensor():
    x = paddle.to_tensor([1.0, 2.0])
    out = paddle.zeros([2])
    assert C.add(x, x, out=out) is out
    np.testing.assert_allclose(out.numpy(), [2.0, 4.0])


def test_static_mode_builds_ops():
    paddle.enable_static()
    try:
        main, startup = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, startup):
            x = paddle.static.data("x", [2, 3], "float32")
            y = C.scale(C.relu(x), 2.0, 1.0, True)
        assert [op.type for op in main.global_block().ops][-2:] == ["relu", "scale"]
        exe = paddle.static.Executor()
        value = np.array([[-1, 0, 1], [2, -3, 4]], "float32")
        got, = exe.run(main, feed={"x": value}, fetch_list=[y])
    finally:
        paddle.disable_static()
    np.testing.assert_allclose(got, np.maximum(value, 0) * 2 + 1)


def test_unknown_names_raise_attribute_error():
    with pytest.raises(AttributeError, match="no_such_op"):
        C.no_such_op
    with pytest.raises(AttributeError, match="no_such_op"):
        L.no_such_op
    assert not hasattr(C, "no_such_op")


def test_legacy_argument_errors():
    x = paddle.ones([2])
    with pytest.raises(ValueError, match="pairs"):
        L.relu(x, "axis")
    with pytest.raises(TypeError, match="input arguments"):
        L.relu(x, x)


def test_legacy_passed_out_and_inplace():
    x = paddle.to_tensor([1.0, -2.0])
    out = paddle.zeros([2])
    assert L.assign(x, out) is out
    np.testing.assert_allclose(out.numpy(), [1.0, -2.0])
    y = paddle.to_tensor([1.0, -2.0])
    assert L.relu_(y) is y
    np.testing.assert_allclose(y.numpy(), [1.0, 0.0])


def test_alias_imports():
    import importlib
    import subprocess
    import sys
    code = ("import torchpaddle; torchpaddle.install_as_paddle()\n"
            "from paddle import _C_ops, _legacy_C_ops\n"
            "import paddle._C_ops as c\n"
            "assert c is _C_ops and c.matmul is torchpaddle._C_ops.matmul\n")
    subprocess.run([sys.executable, "-c", code], check=True)
    assert importlib.import_module("torchpaddle._C_ops") is C
