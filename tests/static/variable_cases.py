"""Static Variable members in the static graph Paddle 3.3.1 builds by default (PIR), run on real Paddle and on
torchpaddle, then compared: ``shape`` (a paddle.Size equal to a list and a tuple), ``place`` (None, with a
warning), ``cpu()`` (a memcpy whose value the Executor fetches) and ``cuda(device_id, blocking)`` (both ignored,
with warnings). Run inside the reference virtualenv: ``python -m tests.static.variable_cases OUT.pkl``.
"""
import pickle
import sys
import warnings

import numpy as np

X = np.arange(6, dtype="float32").reshape(2, 3)


def _user_warnings(fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        value = fn()
    return value, sum(issubclass(w.category, UserWarning) for w in caught)


def run(paddle):
    paddle.enable_static()
    try:
        main, startup = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, startup):
            x = paddle.static.data("x", [-1, 3], "float32")
            shape = x.shape
            place, place_warnings = _user_warnings(lambda: x.place)
            y = x.cpu()
        with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):
            on_gpu = paddle.static.data("g", [2], "float32")
            _, cuda_warnings = _user_warnings(lambda: on_gpu.cuda(1, False))
        exe = paddle.static.Executor(paddle.CPUPlace())
        return {"shape_is_list": isinstance(shape, list), "shape_eq_tuple": shape == (-1, 3),
                "tuple_eq_shape": (-1, 3) == shape, "shape_eq_list": shape == [-1, 3],
                "shape_ne_tuple": shape != (-1, 3), "shape_repr": repr(shape), "place_is_none": place is None,
                "place_warnings": place_warnings, "cuda_warnings": cuda_warnings, "cpu_shape": list(y.shape),
                "cpu_value": exe.run(main, feed={"x": X}, fetch_list=[y])[0]}
    finally:
        paddle.disable_static()


if __name__ == "__main__":
    import paddle as _paddle
    with open(sys.argv[1], "wb") as f:
        pickle.dump({"results": run(_paddle)}, f)
