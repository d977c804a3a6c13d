"""Dygraph/static mode across threads, run on real Paddle 3.3.1 (its default PIR graph) and on torchpaddle, then
compared: the mode is per thread, a new thread starts in the mode last switched to, the grad mode is per thread
and the default programs (program_guard) are shared. Run inside the reference virtualenv:
``python -m tests.framework.mode_thread_cases OUT.pkl``.

Not compared: ``enable_static()`` called in a thread other than the main one, a no-op in Paddle 3.3.1 (its
switch only undoes a dygraph guard the calling thread entered itself) and a switch of that thread here.
"""
import pickle
import sys
import threading


def _in_thread(fn):
    result = []
    thread = threading.Thread(target=lambda: result.append(fn()))
    thread.start()
    thread.join()
    return result[0]


def run(paddle):
    out = {"main_start": paddle.in_dynamic_mode(), "new_thread_start": _in_thread(paddle.in_dynamic_mode)}
    started, switched = threading.Event(), threading.Event()
    seen = {}

    def worker():
        seen["before"] = paddle.in_dynamic_mode()
        started.set()
        switched.wait(10)
        seen["after_main_switch"] = paddle.in_dynamic_mode()

    thread = threading.Thread(target=worker)
    thread.start()
    started.wait(10)
    paddle.enable_static()
    try:
        switched.set()
        thread.join()
        out["running_thread"] = seen
        out["main_static"] = paddle.in_dynamic_mode()
        out["new_thread_after_enable"] = _in_thread(paddle.in_dynamic_mode)
        program = paddle.static.Program()
        with paddle.static.program_guard(program):
            out["thread_sees_program_guard"] = _in_thread(lambda: paddle.static.default_main_program() is program)
    finally:
        paddle.disable_static()
    out["new_thread_after_disable"] = _in_thread(paddle.in_dynamic_mode)
    with paddle.no_grad():
        out["grad"] = {"main": paddle.is_grad_enabled(), "new_thread": _in_thread(paddle.is_grad_enabled)}
    return out


if __name__ == "__main__":
    import paddle as _paddle
    with open(sys.argv[1], "wb") as f:
        pickle.dump({"results": run(_paddle)}, f)
