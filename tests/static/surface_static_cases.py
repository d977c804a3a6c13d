"""paddle.static / paddle.static.nn names Paddle 3.x kept (row_conv, deform_conv2d, sparse_embedding, accuracy,
the IPU/XPU entry points, the LoD-only sequence layers): built and run in a static Program on real Paddle 3.3.1
and on torchpaddle. Run inside the reference virtualenv: ``python -m tests.static.surface_static_cases OUT.pkl``.
"""
import builtins
import pickle
import sys

import numpy as np


def _outcome(fn):
    try:
        return ("ok", [np.asarray(v).tolist() for v in fn()])
    except Exception as exc:  # noqa: BLE001 - the error class is the outcome
        base = next(c.__name__ for c in type(exc).__mro__ if getattr(builtins, c.__name__, None) is c)
        return ("error", base, [c.__name__ for c in type(exc).__mro__], str(exc)[:200])


def _program(paddle, build, feed):
    def run():
        paddle.enable_static()
        try:
            main, startup = paddle.static.Program(), paddle.static.Program()
            with paddle.static.program_guard(main, startup):
                fetch = build()
            exe = paddle.static.Executor(paddle.CPUPlace())
            exe.run(startup)
            return exe.run(main, feed=feed, fetch_list=fetch)
        finally:
            paddle.disable_static()
    return run


def _cases(paddle):
    rng = np.random.default_rng(0)
    seq = rng.standard_normal((2, 5, 3)).astype("float32")
    img = rng.standard_normal((1, 2, 5, 5)).astype("float32")
    off = (rng.standard_normal((1, 18, 3, 3)) * 0.5).astype("float32")
    msk = rng.random((1, 9, 3, 3)).astype("float32")
    ids = np.array([[1], [3], [0]], dtype="int64")
    init = lambda a: paddle.ParamAttr(initializer=paddle.nn.initializer.Assign(a))  # noqa: E731
    w_row = rng.standard_normal((3, 3)).astype("float32")
    w_def = rng.standard_normal((4, 2, 3, 3)).astype("float32")
    b_def = rng.standard_normal(4).astype("float32")
    table = rng.standard_normal((5, 2)).astype("float32")
    data = paddle.static.data

    def row():
        x = data("x", [2, 5, 3], "float32")
        return [paddle.static.nn.row_conv(x, 2, param_attr=init(w_row)),
                paddle.static.nn.row_conv(x, 0, param_attr=init(w_row[:1]), act="relu")]

    def deform(with_mask):
        def build():
            x, o = data("x", [1, 2, 5, 5], "float32"), data("o", [1, 18, 3, 3], "float32")
            m = data("m", [1, 9, 3, 3], "float32") if with_mask else None
            return [paddle.static.nn.deform_conv2d(x, o, m, 4, 3, weight_attr=init(w_def), bias_attr=init(b_def))]
        return build

    def sparse():
        x = data("ids", [3, 1], "int64")
        return [paddle.static.nn.sparse_embedding(x, [5, 2], param_attr=init(table))]

    def accuracy():
        x, y = data("p", [3, 4], "float32"), data("y", [3, 1], "int64")
        return [paddle.static.accuracy(x, y), paddle.static.accuracy(x, y, k=2)]

    probs = rng.random((3, 4)).astype("float32")
    return {
        "row_conv": _program(paddle, row, {"x": seq}),
        "deform_conv2d_v2": _program(paddle, deform(True), {"x": img, "o": off, "m": msk}),
        "deform_conv2d_v1": _program(paddle, deform(False), {"x": img, "o": off}),
        "sparse_embedding": _program(paddle, sparse, {"ids": ids}),
        "accuracy": _program(paddle, accuracy, {"p": probs, "y": np.array([[1], [2], [0]], dtype="int64")}),
        "xpu_places": lambda: paddle.static.xpu_places(),
        "IpuStrategy": lambda: [paddle.static.IpuStrategy()],
    }


def run(paddle):
    return {name: _outcome(fn) for name, fn in _cases(paddle).items()}


if __name__ == "__main__":
    import os
    os.environ["FLAGS_enable_pir_api"] = "0"   # these legacy layers build old-IR programs only
    import warnings
    warnings.filterwarnings("ignore")
    import paddle as _paddle
    with open(sys.argv[1], "wb") as f:
        pickle.dump({"results": run(_paddle)}, f)
    # Paddle 3.3.1 sometimes segfaults tearing down a scope that holds SelectedRows (sparse_embedding's) at
    # exit, after the results are written: leave without its destructors
    sys.stdout.flush()
    os._exit(0)
