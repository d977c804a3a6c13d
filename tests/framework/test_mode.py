import threading

import numpy as np
import pytest

import torchpaddle as paddle
import paddle_ref
from tests.framework import mode_thread_cases
from torchpaddle.framework import mode as _mode


def test_dynamic_mode_is_default_and_toggles():
    assert paddle.in_dynamic_mode()
    paddle.enable_static()
    try:
        assert not paddle.in_dynamic_mode()
    finally:
        paddle.disable_static()
    assert paddle.in_dynamic_mode()


# -- per thread ------------------------------------------------------------------------------------------------
# what Paddle 3.3.1 gives for mode_thread_cases.run (checked against it by the conformance test below)
THREAD_CASES = {"main_start": True, "new_thread_start": True,
                "running_thread": {"before": True, "after_main_switch": True}, "main_static": False,
                "new_thread_after_enable": False, "thread_sees_program_guard": True, "new_thread_after_disable": True,
                "grad": {"main": False, "new_thread": True}}


_in_thread = mode_thread_cases._in_thread


def test_mode_is_per_thread_and_new_threads_take_the_last_switch():
    assert mode_thread_cases.run(paddle) == THREAD_CASES
    assert paddle.in_dynamic_mode() and not _mode.ANY_STATIC.on


@pytest.mark.conformance
def test_threads_match_real_paddle():
    assert paddle_ref.results("tests.framework.mode_thread_cases") == mode_thread_cases.run(paddle) == THREAD_CASES


def test_a_thread_building_a_program_leaves_eager_threads_computing():
    built, go_on = threading.Event(), threading.Event()
    seen = {}

    def builder():
        paddle.enable_static()
        try:
            seen["x"] = paddle.static.data("x", [2], "float32") + 1
            built.set()
            go_on.wait(10)
            seen["y"] = seen["x"] * 2   # still building after the main thread computed
        finally:
            paddle.disable_static()

    thread = threading.Thread(target=builder)
    thread.start()
    built.wait(10)
    try:
        out = paddle.to_tensor([1.0, 2.0]) + 1
        assert paddle.in_dynamic_mode() and not isinstance(out, paddle.static.Variable)
        np.testing.assert_allclose(out.numpy(), [2.0, 3.0])
    finally:
        go_on.set()
        thread.join()
    assert all(isinstance(seen[k], paddle.static.Variable) for k in ("x", "y"))


def test_a_running_eager_thread_keeps_computing_after_the_main_thread_switches():
    # the worker only runs ops (which skip the thread-local mode while no thread is static) before the switch
    started, switched = threading.Event(), threading.Event()
    seen = {}

    def worker():
        seen["before"] = (paddle.to_tensor([1.0]) * 3).numpy()
        started.set()
        switched.wait(10)
        seen["after"] = (paddle.to_tensor([1.0]) * 3).numpy()

    thread = threading.Thread(target=worker)
    thread.start()
    started.wait(10)
    paddle.enable_static()
    try:
        switched.set()
        thread.join()
    finally:
        paddle.disable_static()
    np.testing.assert_allclose(seen["after"], [3.0])


def test_fast_path_flag_clears_when_the_last_static_thread_ends():
    def leave_static_on():
        paddle.enable_static()
        return paddle.in_dynamic_mode()

    assert _in_thread(leave_static_on) is False
    assert paddle.in_dynamic_mode()   # the thread's switch stayed in it
    paddle.enable_static()
    paddle.disable_static()   # the thread that ended in static mode no longer counts
    assert not _mode.ANY_STATIC.on and _in_thread(paddle.in_dynamic_mode)
