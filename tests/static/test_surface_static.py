"""paddle.static / paddle.static.nn names Paddle 3.x kept: tests/static/surface_static_cases.py run on real
Paddle 3.3.1 (old IR) and here; plus the names that resolve only to explain why they cannot run."""
import numpy as np
import pytest

import torchpaddle as paddle
import paddle_ref
from tests.static import surface_static_cases as cases

# Paddle's sparse_embedding needs a parameter-server table (it fails without one); ours is a local table
_WE_ANSWER = {"sparse_embedding"}


def _compare(ours, theirs, name):
    if theirs[0] == "error":
        if name in _WE_ANSWER:
            assert ours[0] == "ok", f"{name}: {ours}"
            return
        assert ours[0] == "error" and theirs[1] in ours[2], f"{name}: Paddle raises {theirs[1]}, we {ours}"
        return
    assert ours[0] == "ok", f"{name}: Paddle returns, we raise {ours}"
    assert len(ours[1]) == len(theirs[1])
    for o, t in zip(ours[1], theirs[1]):
        np.testing.assert_allclose(np.asarray(o), np.asarray(t), rtol=1e-5, atol=1e-6, err_msg=name)


reference, ours, test_matches_real_paddle = paddle_ref.case_table(
    "tests.static.surface_static_cases", cases._cases(paddle), lambda: cases.run(paddle), _compare)


def test_row_conv_hand_worked(static_mode):
    main, startup = paddle.static.Program(), paddle.static.Program()
    weight = np.array([[1.0, 2.0], [10.0, 20.0]], dtype="float32")
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [1, 3, 2], "float32")
        out = paddle.static.nn.row_conv(
            x, 1, param_attr=paddle.ParamAttr(initializer=paddle.nn.initializer.Assign(weight)))
    exe = paddle.static.Executor(paddle.CPUPlace())
    exe.run(startup)
    value = np.arange(6, dtype="float32").reshape(1, 3, 2)
    (got,) = exe.run(main, feed={"x": value}, fetch_list=[out])
    expected = value * weight[0] + np.concatenate([value[:, 1:], np.zeros((1, 1, 2))], 1) * weight[1]
    np.testing.assert_allclose(got, expected)


@pytest.mark.parametrize("name", ["sequence_conv", "sequence_expand", "sequence_first_step", "sequence_last_step",
                                  "sequence_pool", "sequence_softmax"])
def test_lod_sequence_layers_explain(name):
    with pytest.raises(NotImplementedError, match="LoD"):
        getattr(paddle.static.nn, name)(None)


@pytest.mark.parametrize("call", [lambda: paddle.static.IpuStrategy(), lambda: paddle.static.IpuCompiledProgram(),
                                  lambda: paddle.static.ipu_shard_guard(), lambda: paddle.static.set_ipu_shard(len),
                                  lambda: paddle.static.xpu_places()])
def test_ipu_and_xpu_say_why(call):
    with pytest.raises(RuntimeError, match="no .*(IPU|XPU)"):
        call()


def test_layers_refuse_dygraph_and_bad_arguments(static_mode):
    with pytest.raises(ValueError):
        paddle.static.nn.row_conv(paddle.static.data("a", [2, 3, 4], "float32"), -1)
    with pytest.raises(ValueError):
        paddle.static.nn.deform_conv2d(paddle.static.data("b", [1, 2, 5, 5], "float32"),
                                       paddle.static.data("c", [1, 18, 3, 3], "float32"), None, 0, 3)
    with pytest.raises(ValueError):
        paddle.static.nn.sparse_embedding(paddle.static.data("d", [3, 1], "int64"), [5, 2], table_class="Bad")


def test_static_layers_need_static_mode():
    with pytest.raises(AssertionError):
        paddle.static.nn.row_conv(paddle.ones([1, 2, 3]), 1)


def test_tensor_create_tensor_in_static_mode(static_mode):
    var = paddle.Tensor.create_tensor("float32", persistable=True)
    assert var.persistable and var.dtype == paddle.float32 and var.name.startswith("create_tensor")
