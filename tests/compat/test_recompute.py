"""paddle.distributed.fleet.utils.recompute vs real PaddlePaddle 3.3.1 (recompute_cases.py), and the
dropout/RNG replay that only a same-framework comparison can check."""
import numpy as np
import pytest

import torchpaddle as paddle
import paddle_ref
from tests.compat import recompute_cases as cases
from tests.nn.layer_case_tools import compare, record, run_cases

recompute = paddle.distributed.fleet.utils.recompute


reference, ours, test_matches_real_paddle = paddle_ref.case_table(
    "tests.compat.recompute_cases", cases.CASES, lambda: run_cases(cases.CASES, paddle), compare)


@pytest.mark.parametrize("name", ["reentrant", "non_reentrant", "no_preserve", "sequential"])
def test_gradients_equal_plain_call(name, ours):
    compare(ours[name], ours["plain"], name, rtol=1e-6, atol=1e-7)


def test_sequential_in_segments(ours):
    compare(record(cases.c_sequential(paddle, segments=2)), ours["plain"], "segments=2", rtol=1e-6, atol=1e-7)
    compare(record(cases.c_sequential(paddle, segments=3)), ours["plain"], "segments=3", rtol=1e-6, atol=1e-7)


def _dropout_grads(use_reentrant, preserve=True):
    paddle.seed(5)
    net = paddle.nn.Sequential(paddle.nn.Linear(6, 8), paddle.nn.Dropout(0.5), paddle.nn.Linear(8, 2))
    x = paddle.to_tensor(np.ones([4, 6], "float32"), stop_gradient=False)
    paddle.seed(9)
    y0 = net(x)
    y0.sum().backward()
    plain = [p.grad.numpy().copy() for p in net.parameters()] + [x.grad.numpy().copy()]
    net.clear_gradients()
    x.clear_gradient()
    paddle.seed(9)
    y1 = recompute(net, x, use_reentrant=use_reentrant, preserve_rng_state=preserve)
    y1.sum().backward()
    np.testing.assert_array_equal(y1.numpy(), y0.numpy())
    return plain, [p.grad.numpy() for p in net.parameters()] + [x.grad.numpy()]


@pytest.mark.parametrize("use_reentrant", [True, False])
def test_dropout_mask_is_replayed(use_reentrant):
    plain, got = _dropout_grads(use_reentrant)
    for a, b in zip(plain, got):
        np.testing.assert_allclose(b, a, rtol=1e-6)


def test_without_rng_preservation_the_mask_changes():
    plain, got = _dropout_grads(True, preserve=False)
    assert not all(np.allclose(a, b) for a, b in zip(plain, got))


def test_static_mode_runs_the_function():
    paddle.enable_static()
    try:
        main, startup = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, startup):
            x = paddle.static.data("x", [2, 3], "float32")
            y = recompute(paddle.tanh, x)
        exe = paddle.static.Executor()
        value = np.linspace(-1, 1, 6).reshape(2, 3).astype("float32")
        got, = exe.run(main, feed={"x": value}, fetch_list=[y])
    finally:
        paddle.disable_static()
    np.testing.assert_allclose(got, np.tanh(value), rtol=1e-6)


def test_errors():
    with pytest.raises(TypeError, match="callable"):
        recompute(3, paddle.ones([1]))
    with pytest.raises(AssertionError, match="mp_group"):
        paddle.distributed.fleet.recompute.recompute_hybrid({}, paddle.tanh, paddle.ones([1]))
    with pytest.raises(ValueError, match="segments"):
        paddle.distributed.fleet.recompute.recompute_sequential({"segments": 0}, [paddle.tanh], paddle.ones([1]))
