"""paddle.static.amp cases, run on real PaddlePaddle 3.3.1 with its 2.x-style Program IR
(``python -m tests.compat.static_amp_cases OUT.pkl``) and on torchpaddle by test_static_amp.py.

On CPU Paddle's float16 kernels are missing, so its AMP programs compute in float32 there: its losses are the
float32 reference that torchpaddle's (really half-precision) ones must stay close to."""
import os
import sys

import numpy as np

from tests.nn.layer_case_tools import dump

_RNG = np.random.default_rng(7)
X = _RNG.standard_normal([16, 8]).astype("float32")
Y = _RNG.integers(0, 4, [16, 1]).astype("int64")
W1 = _RNG.uniform(-0.4, 0.4, [8, 16]).astype("float32")
W2 = _RNG.uniform(-0.4, 0.4, [16, 4]).astype("float32")
STEPS = 6


def train(paddle, mode, optimizer="adam", dtype="float16"):
    """Loss per step of a 2-layer MLP with fixed weights; mode is 'fp32', 'O1' or 'O2'."""
    paddle.enable_static()
    try:
        main, startup = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, startup):
            x = paddle.static.data("x", [-1, 8], "float32")
            y = paddle.static.data("y", [-1, 1], "int64")
            w1 = paddle.ParamAttr(initializer=paddle.nn.initializer.Assign(W1))
            w2 = paddle.ParamAttr(initializer=paddle.nn.initializer.Assign(W2))
            h = paddle.static.nn.fc(x, 16, activation="relu", weight_attr=w1)
            logits = paddle.static.nn.fc(h, 4, weight_attr=w2)
            loss = paddle.mean(paddle.nn.functional.cross_entropy(logits, y))
            opt = paddle.optimizer.Adam(0.01) if optimizer == "adam" else paddle.optimizer.SGD(0.1)
            if mode != "fp32":
                opt = paddle.static.amp.decorate(opt, level=mode, dtype=dtype, init_loss_scaling=1024.0)
            opt.minimize(loss)
        exe = paddle.static.Executor(paddle.CPUPlace())
        scope = paddle.static.Scope()
        with paddle.static.scope_guard(scope):
            exe.run(startup)
            if mode == "O2":
                opt.amp_init(paddle.CPUPlace(), scope=scope)
            return [float(np.asarray(exe.run(main, feed={"x": X, "y": Y}, fetch_list=[loss])[0]))
                    for _ in range(STEPS)]
    finally:
        paddle.disable_static()


def c_lists(paddle):
    amp = paddle.static.amp
    default, bf16 = amp.AutoMixedPrecisionLists(), amp.AutoMixedPrecisionLists(dtype="bfloat16")
    custom = amp.CustomOpLists(custom_white_list={"softmax", "relu"}, custom_black_list={"matmul_v2"},
                               custom_black_varnames={"x"})
    lbf16 = amp.bf16.AutoMixedPrecisionListsBF16(custom_bf16_list={"softmax"}, custom_fp32_list={"matmul"})
    return {"white": sorted(default.white_list), "black": sorted(default.black_list),
            "gray": sorted(default.gray_list), "bf16_white": sorted(bf16.white_list),
            "custom": ["softmax" in custom.white_list, "softmax" in custom.black_list, "relu" in custom.white_list,
                       "relu" in custom.gray_list, "matmul_v2" in custom.black_list, sorted(custom.black_varnames)],
            "bf16_lists": [sorted(lbf16.bf16_list), sorted(lbf16.fp32_list), sorted(lbf16.gray_list)],
            "same_class": amp.CustomOpLists is amp.AutoMixedPrecisionLists, "amp_dtype": default.amp_dtype}


def c_list_overlap(paddle):
    return paddle.static.amp.AutoMixedPrecisionLists(custom_white_list={"relu"}, custom_black_list={"relu"})


def c_decorate_defaults(paddle):
    paddle.enable_static()
    try:
        return _decorate_defaults(paddle)
    finally:
        paddle.disable_static()


def _decorate_defaults(paddle):
    amp = paddle.static.amp
    out = {}
    for key, make in [("common", lambda o: amp.decorate(o)),
                      ("fp16_only", lambda o: amp.decorate(o, None, 128.0)),
                      ("pure_fp16", lambda o: amp.decorate(o, use_pure_fp16=True)),
                      ("bf16", lambda o: amp.decorate(o, dtype="bfloat16"))]:
        d = make(paddle.optimizer.SGD(0.1))
        dynamic = bool(d._use_dynamic_loss_scaling)
        # Paddle keeps the scaling schedule only when the scaling is dynamic
        schedule = [d._incr_every_n_steps, d._decr_every_n_nan_or_inf, float(d._incr_ratio),
                    float(d._decr_ratio)] if dynamic else None
        out[key] = [float(d._init_loss_scaling), schedule, dynamic, d._amp_level, bool(d._use_pure_fp16)]
    return out


def c_bf16_bits(paddle):
    values = np.array([1.0, 3.14159, -2.5e-3, 1e30, -7.0], "float32")
    return ("A", paddle.static.amp.bf16.convert_float_to_uint16(values))


def c_train_fp32(paddle):
    return train(paddle, "fp32")


def c_train_o1(paddle):
    return train(paddle, "O1")


def c_train_o2(paddle):
    return train(paddle, "O2")


def c_train_o1_sgd(paddle):
    return train(paddle, "O1", optimizer="sgd")


CASES = {name[2:]: fn for name, fn in sorted(globals().items()) if name.startswith("c_")}


if __name__ == "__main__":
    # Paddle's static AMP rewrites the 2.x Program IR (as torchpaddle's does); PIR would take another path
    os.environ["FLAGS_enable_pir_api"] = "0"
    dump(CASES, sys.argv[1])
