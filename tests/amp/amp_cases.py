"""paddle.amp cases run on real PaddlePaddle 3.3.1 (``python -m tests.amp.amp_cases OUT.pkl``) and on torchpaddle
by tests/amp/test_amp_conformance.py. On a CPU place Paddle's AMP does nothing (auto_cast computes in float32,
decorate and GradScaler are no-ops), with warnings; these cases pin that, the argument checks, and the
debugging tools (check_numerics, the tensor checker, operator stats), which do run on the CPU.
Only NumPy is imported at module level; every case gets the ``paddle`` module."""
import contextlib
import ctypes
import io
import os
import sys
import tempfile
import warnings

import numpy as np

from tests.nn.layer_case_tools import dump

F32 = np.float32


def _warnings_of(fn):
    """(fn's result, the AMP-related warning texts it raised)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = fn()
    texts = [str(w.message) for w in caught if "amp" in str(w.message).lower() or "Scaler" in str(w.message)
             or "loss scaling" in str(w.message)]
    return result, texts


def _stdout_of(fn):
    """(fn's result, what it printed): Python's prints and the C library's (Paddle's kernels printf)."""
    libc = ctypes.CDLL(None)
    buf = io.StringIO()
    sys.stdout.flush()
    libc.fflush(None)
    saved = os.dup(1)
    with tempfile.TemporaryFile(mode="w+b") as tmp:
        os.dup2(tmp.fileno(), 1)
        try:
            with contextlib.redirect_stdout(buf):
                result = fn()
        finally:
            libc.fflush(None)
            os.dup2(saved, 1)
            os.close(saved)
        tmp.seek(0)
        native = tmp.read().decode()
    return result, buf.getvalue() + native


def _net(paddle):
    paddle.seed(11)
    nn = paddle.nn
    net = nn.Sequential(nn.Conv2D(2, 3, 3), nn.Flatten(), nn.Linear(12, 4), nn.LayerNorm(4))
    rng = np.random.default_rng(3)
    net.set_state_dict({k: rng.uniform(-1, 1, list(v.shape)).astype(F32) for k, v in net.state_dict().items()})
    return net


def _x(paddle):
    return paddle.to_tensor(np.random.default_rng(4).uniform(-1, 1, [2, 2, 4, 4]).astype(F32))


CASES = {}


def _auto_cast_case(level, dtype):
    def case(paddle):
        net, x = _net(paddle), _x(paddle)

        def run():
            with paddle.amp.auto_cast(level=level, dtype=dtype):
                inside = (paddle.amp.is_autocast_enabled(), paddle.amp.get_autocast_dtype())
                out = net(x)
                soft = paddle.nn.functional.softmax(out)
                mm = paddle.matmul(out, out, transpose_y=True)
                return {"inside": inside, "out": out, "softmax": soft, "matmul": mm, "sum": out.sum()}
        result, texts = _warnings_of(run)
        result["warnings"] = texts
        return result
    return case


for _level in ("O0", "O1", "O2", "OD"):
    for _dtype in ("float16", "bfloat16"):
        CASES[f"auto_cast_{_level}_{_dtype}"] = _auto_cast_case(_level, _dtype)


def c_auto_cast_disabled_and_outside(paddle):
    def run():
        with paddle.amp.auto_cast(enable=False, dtype="bfloat16"):
            inside = (paddle.amp.is_autocast_enabled(), paddle.amp.get_autocast_dtype())
        with paddle.amp.autocast(device_type="cpu", dtype="bfloat16"):
            torch_style = paddle.amp.is_autocast_enabled()
        return [inside, torch_style, paddle.amp.is_autocast_enabled(), paddle.amp.get_autocast_dtype(),
                paddle.amp.get_autocast_cpu_dtype(), paddle.amp.get_autocast_gpu_dtype()]
    return _warnings_of(run)


def _enter(paddle, **kwargs):
    def run():
        with paddle.amp.auto_cast(**kwargs):
            pass
        return "entered"
    return run


def c_auto_cast_bad_level(paddle):
    return _enter(paddle, level="O3")()


def c_auto_cast_bad_dtype(paddle):
    return _enter(paddle, dtype="float32")()


def c_auto_cast_bad_dtype_disabled(paddle):
    return _enter(paddle, dtype="float32", enable=False)()


def c_auto_cast_lowercase_level(paddle):
    return _warnings_of(_enter(paddle, level="o1"))


def c_auto_cast_lists_overlap(paddle):
    return _enter(paddle, custom_white_list=["conv2d"], custom_black_list=["conv2d"])()


def c_auto_cast_custom_lists(paddle):
    net, x = _net(paddle), _x(paddle)

    def run():
        with paddle.amp.auto_cast(custom_white_list={"elementwise_add"}, custom_black_list={"conv2d"}):
            return net(x)
    return _warnings_of(run)


# -- GradScaler on the CPU: disabled ------------------------------------------------------------------------
def _train(paddle, scaler_kwargs, steps=3, use_step=False):
    paddle.seed(5)
    net = paddle.nn.Linear(3, 2)
    net.set_state_dict({"weight": np.full([3, 2], 0.5, F32), "bias": np.zeros([2], F32)})
    opt = paddle.optimizer.SGD(learning_rate=0.1, parameters=net.parameters())
    scaler = paddle.amp.GradScaler(**scaler_kwargs)
    x = paddle.to_tensor(np.arange(6, dtype=F32).reshape(2, 3))
    losses = []
    for _ in range(steps):
        with paddle.amp.auto_cast():
            loss = (net(x) ** 2).mean()
        scaled = scaler.scale(loss)
        scaled.backward()
        if use_step:
            scaler.step(opt)
            scaler.update()
        else:
            scaler.minimize(opt, scaled)
        opt.clear_grad()
        losses.append(loss)
    return {"losses": losses, "weight": net.weight, "scaled": scaled, "enabled": scaler.is_enable(),
            "dynamic": scaler.is_use_dynamic_loss_scaling(), "init": scaler.get_init_loss_scaling(),
            "state": scaler.state_dict()}


def c_grad_scaler_cpu_minimize(paddle):
    return _warnings_of(lambda: _train(paddle, {"init_loss_scaling": 1024.0}))


def c_grad_scaler_cpu_step_update(paddle):
    return _warnings_of(lambda: _train(paddle, {}, use_step=True))


def c_grad_scaler_disabled_by_argument(paddle):
    return _warnings_of(lambda: _train(paddle, {"enable": False}))


def c_grad_scaler_disabled_getters(paddle):
    scaler = paddle.amp.GradScaler()
    return scaler.get_incr_ratio()


def c_grad_scaler_disabled_load_state_dict(paddle):
    scaler = paddle.amp.GradScaler()
    scaler.load_state_dict({})
    return scaler.state_dict()


def c_amp_scaler_cpu(paddle):
    def run():
        scaler = paddle.amp.AmpScaler()
        return [scaler.is_enable(), scaler.get_init_loss_scaling(), scaler.state_dict()]
    return _warnings_of(run)


def c_grad_scaler_scale_type_check(paddle):
    return paddle.amp.GradScaler(enable=False).scale(np.ones(2, F32))


# -- decorate on the CPU: unchanged --------------------------------------------------------------------------
def c_decorate_o2_cpu(paddle):
    net = paddle.nn.Sequential(paddle.nn.Linear(2, 2), paddle.nn.BatchNorm1D(2))
    opt = paddle.optimizer.Adam(parameters=net.parameters())
    model, optimizer = paddle.amp.decorate(net, opt, level="O2", save_dtype="float16")
    return [model is net, optimizer is opt, [str(p.dtype) for p in model.parameters()],
            [str(v.dtype) for v in model.state_dict().values()]]


def c_decorate_o1(paddle):
    net = paddle.nn.Linear(2, 2)
    return [paddle.amp.decorate(net) is net, str(net.weight.dtype)]


def c_decorate_o2_cpu_skips_model_checks(paddle):
    return paddle.amp.decorate("not a model", level="O2")


def c_decorate_bad_level(paddle):
    return paddle.amp.decorate(paddle.nn.Linear(2, 2), level="O0")


def c_decorate_bad_dtype(paddle):
    return paddle.amp.decorate(paddle.nn.Linear(2, 2), level="O2", dtype="float64")


def c_supported(paddle):
    return [paddle.amp.is_float16_supported(), paddle.amp.is_bfloat16_supported(),
            paddle.amp.is_float16_supported("cpu"), paddle.amp.is_bfloat16_supported("cpu")]


def c_supported_bad_device(paddle):
    return paddle.amp.is_float16_supported("foo")


def c_supported_int_device(paddle):
    return paddle.amp.is_bfloat16_supported(3)


# -- debugging ------------------------------------------------------------------------------------------------
NAN, INF = float("nan"), float("inf")
_VALUES = {"nan_inf": [1.0, NAN, 0.0, INF, 2.0], "overflow": [1.0, 3.0, 0.0, 70000.0], "clean": [1.0, 2.0],
           "negative": [-3.0, 0.5, 0.0, 0.0]}
_MODES = ("CHECK_NAN_INF_AND_ABORT", "CHECK_NAN_INF", "CHECK_ALL_FOR_OVERFLOW", "CHECK_ALL")


def _check_numerics_case(values, mode, dtype="float32"):
    def case(paddle):
        x = paddle.to_tensor(np.array(values, F32)).astype(dtype)
        debug_mode = getattr(paddle.amp.debugging.DebugMode, mode)
        try:
            (stats, out), printed = _stdout_of(lambda: paddle.amp.debugging.check_numerics(x, "foo", "t", debug_mode))
        except RuntimeError as exc:
            # Paddle appends its C++ source location
            return ["RuntimeError", str(exc).split(" (at ")[0]]
        return [stats, out, printed]
    return case


for _name, _values in _VALUES.items():
    for _mode in _MODES:
        CASES[f"check_numerics_{_name}_{_mode}"] = _check_numerics_case(_values, _mode)
for _dtype in ("float16", "bfloat16", "float64"):
    CASES[f"check_numerics_clean_{_dtype}"] = _check_numerics_case([1.0, -2.0, 0.0], "CHECK_ALL", _dtype)


def c_check_numerics_int(paddle):
    x = paddle.to_tensor(np.array([1, 2], np.int64))
    return paddle.amp.debugging.check_numerics(x, "foo", "t")


def c_operator_stats(paddle):
    net = paddle.nn.Linear(4, 3)
    x = paddle.to_tensor(np.ones([2, 4], F32))

    def run():
        with paddle.amp.debugging.collect_operator_stats():
            y = net(x)
            paddle.exp(paddle.nn.functional.softmax(y)).sum()
            paddle.matmul(x, x, transpose_y=True).mean()
    return _stdout_of(run)[1]


def c_operator_stats_disable_without_enable(paddle):
    return _stdout_of(paddle.amp.debugging.disable_operator_stats_collection)[1]


def _checker_case(mode):
    def case(paddle):
        D = paddle.amp.debugging
        x = paddle.to_tensor(np.array([-1.0, 1.0, 0.0], F32))

        def run():
            level = paddle.get_flags(["FLAGS_check_nan_inf_level"])
            D.enable_tensor_checker(D.TensorCheckerConfig(enable=True, debug_mode=getattr(D.DebugMode, mode)))
            try:
                y = paddle.log(x)
                return ["ran", y]
            except RuntimeError as exc:
                return ["RuntimeError", str(exc).split(" (at ")[0]]
            finally:
                D.disable_tensor_checker()
                paddle.set_flags(level)  # the checker leaves its level set (Paddle's too)
        result, printed = _stdout_of(run)
        # the checker's own lines (not the seed banner), up to the statistics (Paddle's CPU checker prints -nan)
        lines = [line.split(", max=")[0] for line in printed.splitlines() if line.startswith("[PRECISION]")]
        return [result, lines, paddle.get_flags(["FLAGS_check_nan_inf"])]
    return case


CASES["tensor_checker_abort"] = _checker_case("CHECK_NAN_INF_AND_ABORT")
CASES["tensor_checker_continue"] = _checker_case("CHECK_NAN_INF")


def c_tensor_checker_config(paddle):
    D = paddle.amp.debugging
    saved = D.TensorCheckerConfig.current_step_id
    try:
        config = D.TensorCheckerConfig(enable=False, debug_step=[1, 3], checked_op_list=["log"])
        disabled = config.update_and_check_step_id()
        enabled = D.TensorCheckerConfig(enable=True, debug_step=[0, 2])
        steps = [enabled.update_and_check_step_id() for _ in range(3)]
        return [config.start_step, config.end_step, disabled, steps, D.TensorCheckerConfig.current_step_id,
                enabled.seed, [m.name for m in D.DebugMode], [m.value for m in D.DebugMode]]
    finally:
        D.TensorCheckerConfig.current_step_id = saved


def c_tensor_checker_bad_step(paddle):
    return paddle.amp.debugging.TensorCheckerConfig(enable=False, debug_step=5)


def c_tensor_checker_bad_step_order(paddle):
    return paddle.amp.debugging.TensorCheckerConfig(enable=False, debug_step=[3, 1])


def c_tensor_checker_bad_op_list(paddle):
    return paddle.amp.debugging.TensorCheckerConfig(enable=False, skipped_op_list="log")


# -- hapi Model with amp_configs on the CPU: trains exactly as without AMP ------------------------------------
def _hapi_case(amp_configs):
    def case(paddle):
        def run():
            net = paddle.nn.Sequential(paddle.nn.Linear(4, 3))
            net.set_state_dict({"0.weight": np.linspace(-1, 1, 12, dtype=F32).reshape(4, 3),
                                "0.bias": np.zeros([3], F32)})
            model = paddle.Model(net)
            model.prepare(paddle.optimizer.SGD(0.1, parameters=net.parameters()), paddle.nn.CrossEntropyLoss(),
                          amp_configs=amp_configs)
            x = np.linspace(0, 1, 32, dtype=F32).reshape(8, 4)
            y = (np.arange(8) % 3).astype(np.int64).reshape(8, 1)
            losses = [model.train_batch([x], [y]) for _ in range(3)]
            scaler = getattr(model, "_scaler", None)
            return {"losses": losses, "weight": net[0].weight,
                    "scaler": None if scaler is None else [scaler.is_enable(), scaler.state_dict()]}
        return _warnings_of(run)
    return case


CASES["hapi_amp_O1"] = _hapi_case("O1")
CASES["hapi_amp_O2_dict"] = _hapi_case({"level": "O2", "init_loss_scaling": 128.0})
CASES["hapi_amp_O0"] = _hapi_case("O0")
CASES["hapi_amp_custom_lists"] = _hapi_case({"custom_black_list": ["softmax"], "incr_every_n_steps": 2})

for _fn in list(globals().values()):
    if callable(_fn) and getattr(_fn, "__name__", "").startswith("c_"):
        CASES[_fn.__name__[2:]] = _fn


if __name__ == "__main__":
    dump(CASES, sys.argv[1])
