"""paddle.static.nn scenarios run on both real PaddlePaddle 3.3.1 (legacy programs: FLAGS_enable_pir_api=0) and
torchpaddle, then compared: parameter names and shapes, outputs with the same weights (set by name through the
scope), control flow results, a training run through a cond, and py_func.

Each ``s_*`` function takes the paddle module and returns plain data. Run inside the reference virtualenv:
``python -m tests.static.static_nn_scenarios OUT.pkl legacy|pir [NAMES...]``; ``OUT.pkl saved JOB.pkl`` runs a
program saved here (see run_saved_program).
"""
import os
import pickle
import sys
import warnings
import zlib

import numpy as np

from tests.static.static_scenarios import run_scenarios

warnings.filterwarnings("ignore")

_RNG = np.random.RandomState(3)
IMG = _RNG.uniform(-1, 1, (2, 3, 6, 6)).astype("float32")
VEC = _RNG.uniform(-1, 1, (4, 6)).astype("float32")
VEC2 = _RNG.uniform(-1, 1, (4, 5)).astype("float32")
IDS = _RNG.randint(0, 10, (4, 3)).astype("int64")


def weight_for(name, shape, positive=False):
    """A deterministic value for the parameter ``name`` (the same in both frameworks); ``positive`` for running
    variances."""
    rng = np.random.RandomState(zlib.crc32(name.encode()) % (2 ** 31))
    return rng.uniform(0.2, 1.2, shape).astype("float32") if positive else \
        rng.uniform(-0.5, 0.5, shape).astype("float32")


def _run_layers(paddle, build, feed):
    """Build ``build(inputs) -> [outputs]`` in fresh programs, set every parameter to weight_for(name), run once;
    returns parameter {name: (shape, stop_gradient, persistable)}, the outputs, and the non-trainable ones
    (moving statistics) after the run."""
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.utils.unique_name.guard(), paddle.static.program_guard(main, startup):
        img = paddle.static.data("img", [-1, 3, 6, 6], "float32")
        vec = paddle.static.data("vec", [-1, 6], "float32")
        vec2 = paddle.static.data("vec2", [-1, 5], "float32")
        ids = paddle.static.data("ids", [-1, 3], "int64")
        outs = build(paddle, {"img": img, "vec": vec, "vec2": vec2, "ids": ids})
    scope = paddle.static.Scope()
    exe = paddle.static.Executor(paddle.CPUPlace())
    params = {}
    with paddle.static.scope_guard(scope):
        exe.run(startup)
        for p in main.all_parameters():
            shape = tuple(int(s) for s in p.shape)
            params[p.name] = (shape, bool(p.stop_gradient), bool(p.persistable))
            scope.var(p.name).get_tensor().set(weight_for(p.name, shape, p.stop_gradient), paddle.CPUPlace())
        values = exe.run(main, feed={k: v for k, v in feed.items() if k in {"img", "vec", "vec2", "ids"}},
                         fetch_list=outs)
        stats = {p.name: np.array(scope.find_var(p.name).get_tensor()) for p in main.all_parameters()
                 if p.stop_gradient}
    return {"params": params, "outs": [np.asarray(v) for v in values], "stats": stats}


FEED = {"img": IMG, "vec": VEC, "vec2": VEC2, "ids": IDS}

LAYERS = {
    "fc": lambda p, v: [p.static.nn.fc(v["vec"], 4, activation="tanh"),
                        p.static.nn.fc([v["vec"], v["vec2"]], 3, name="two")],
    "fc_flatten": lambda p, v: [p.static.nn.fc(v["img"], 5, num_flatten_dims=2)],
    "conv2d": lambda p, v: [p.static.nn.conv2d(v["img"], 4, 3, padding=1, act="relu"),
                            p.static.nn.conv2d(v["img"], 6, [2, 3], stride=2, groups=3, bias_attr=False)],
    "conv2d_transpose": lambda p, v: [p.static.nn.conv2d_transpose(v["img"], 2, filter_size=3, stride=2),
                                      p.static.nn.conv2d_transpose(v["img"], 4, output_size=[8, 8])],
    "conv3d": lambda p, v: [p.static.nn.conv3d(p.unsqueeze(v["img"], 2), 2, [1, 3, 3], padding=[0, 1, 1]),
                            p.static.nn.conv3d_transpose(p.unsqueeze(v["img"], 2), 2, filter_size=[1, 2, 2])],
    "batch_norm": lambda p, v: [p.static.nn.batch_norm(v["img"], act="relu"),
                                p.static.nn.batch_norm(v["img"], is_test=True, momentum=0.5)],
    "layer_norm": lambda p, v: [p.static.nn.layer_norm(v["img"], begin_norm_axis=2),
                                p.static.nn.layer_norm(v["vec"], scale=False, epsilon=1e-4)],
    "embedding": lambda p, v: [p.static.nn.embedding(v["ids"], [10, 4], padding_idx=2)],
    "group_norm": lambda p, v: [p.static.nn.group_norm(v["img"], 3),
                                p.static.nn.group_norm(v["img"], 1, param_attr=p.ParamAttr(),
                                                       bias_attr=p.ParamAttr())],
    "instance_norm": lambda p, v: [p.static.nn.instance_norm(v["img"]),
                                   p.static.nn.instance_norm(v["img"], param_attr=p.ParamAttr(),
                                                             bias_attr=p.ParamAttr())],
    "prelu": lambda p, v: [p.static.nn.prelu(v["img"], "all"), p.static.nn.prelu(v["img"], "channel"),
                           p.static.nn.prelu(v["img"], "element")],
    "bilinear_tensor_product": lambda p, v: [p.static.nn.bilinear_tensor_product(v["vec"], v["vec2"], 3,
                                                                                 act="sigmoid")],
    "spectral_norm": lambda p, v: [p.static.nn.spectral_norm(p.static.create_parameter([4, 6], "float32",
                                                                                       name="sn_weight"),
                                                             dim=1, power_iters=3)],
}


def s_layers(paddle):
    return {name: _run_layers(paddle, build, FEED) for name, build in LAYERS.items()}


# -- control flow ----------------------------------------------------------------------------------------------------
def _fresh(paddle):
    return paddle.static.Program(), paddle.static.Program()


def s_cond_values(paddle):
    main, startup = _fresh(paddle)
    with paddle.utils.unique_name.guard(), paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [-1, 3], "float32")
        s = paddle.static.data("s", [1], "float32")
        out = paddle.static.nn.cond(s > 0, lambda: (x * 2.0, paddle.max(x)), lambda: (x - 1.0, paddle.mean(x)))
        # nested: sign of s as -1, 0, 1
        sign = paddle.static.nn.cond(s > 0, lambda: paddle.full([1], 1.0),
                                     lambda: paddle.static.nn.cond(s < 0, lambda: paddle.full([1], -1.0),
                                                                   lambda: paddle.full([1], 0.0)))
    exe = paddle.static.Executor(paddle.CPUPlace())
    xv = np.arange(6, dtype="float32").reshape(2, 3)
    return [exe.run(main, feed={"x": xv, "s": np.array([v], "float32")}, fetch_list=[out[0], out[1], sign])
            for v in (1.0, -2.0, 0.0)]


def s_while_loop(paddle):
    main, startup = _fresh(paddle)
    with paddle.utils.unique_name.guard(), paddle.static.program_guard(main, startup):
        n = paddle.static.data("n", [1], "int64")
        i = paddle.full([1], 0, "int64")
        acc = paddle.full([1], 1.0, "float32")
        i_out, acc_out = paddle.static.nn.while_loop(lambda i, a: i < n,
                                                     lambda i, a: [i + 1, a * 2.0 + paddle.cast(i, "float32")],
                                                     [i, acc])
    exe = paddle.static.Executor(paddle.CPUPlace())
    return [exe.run(main, feed={"n": np.array([k], "int64")}, fetch_list=[i_out, acc_out]) for k in (0, 1, 5)]


def s_case_switch(paddle):
    main, startup = _fresh(paddle)
    with paddle.utils.unique_name.guard(), paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [1], "float32")
        k = paddle.static.data("k", [1], "int32")
        c = paddle.static.nn.case([(x < 0, lambda: paddle.full([1], 10.0)), (x < 1, lambda: paddle.full([1], 20.0))],
                                  default=lambda: paddle.full([1], 30.0))
        c_nodefault = paddle.static.nn.case([(x < 0, lambda: paddle.full([1], 1.0)),
                                             (x < 1, lambda: paddle.full([1], 2.0))])
        sw = paddle.static.nn.switch_case(k, {1: lambda: paddle.full([1], 100.0), 3: lambda: paddle.full([1], 300.0)},
                                          default=lambda: paddle.full([1], -1.0))
        sw_list = paddle.static.nn.switch_case(k, [lambda: paddle.full([1], 0.5), lambda: paddle.full([1], 1.5)])
    exe = paddle.static.Executor(paddle.CPUPlace())
    res = []
    for xv, kv in ((-1.0, 1), (0.5, 3), (2.0, 0), (0.5, 7)):
        res.append(exe.run(main, feed={"x": np.array([xv], "float32"), "k": np.array([kv], "int32")},
                           fetch_list=[c, c_nodefault, sw, sw_list]))
    return res


def s_train_through_cond(paddle):
    """SGD on a program whose prediction comes from one of two fc layers chosen by a fed flag."""
    main, startup = _fresh(paddle)
    with paddle.utils.unique_name.guard(), paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [-1, 6], "float32")
        y = paddle.static.data("y", [-1, 1], "float32")
        flag = paddle.static.data("flag", [1], "bool")
        # the parameters are created outside the branches (Paddle's PIR optimizer skips ones made inside)
        w = {name: paddle.static.create_parameter(list(shape), "float32", name=name) for name, shape in
             (("left_w", (6, 1)), ("left_b", (1,)), ("right_w", (6, 1)), ("right_b", (1,)))}
        pred = paddle.static.nn.cond(flag, lambda: paddle.matmul(x, w["left_w"]) + w["left_b"],
                                     lambda: paddle.tanh(paddle.matmul(x, w["right_w"]) + w["right_b"]) * 0.5)
        loss = paddle.mean((pred - y) ** 2)
        paddle.optimizer.SGD(0.1).minimize(loss)
    scope = paddle.static.Scope()
    exe = paddle.static.Executor(paddle.CPUPlace())
    yv = (VEC.sum(1, keepdims=True) * 0.3).astype("float32")
    losses = []
    with paddle.static.scope_guard(scope):
        exe.run(startup)
        names = {"left_w": (6, 1), "left_b": (1,), "right_w": (6, 1), "right_b": (1,)}
        for name, shape in names.items():
            scope.var(name).get_tensor().set(weight_for(name, shape), paddle.CPUPlace())
        for step in range(6):
            feed = {"x": VEC, "y": yv, "flag": np.array([step % 3 != 2])}
            losses.append(float(np.asarray(exe.run(main, feed=feed, fetch_list=[loss])[0])))
        params = {name: np.array(scope.find_var(name).get_tensor()) for name in names}
    return {"losses": np.array(losses, "float32"), "params": params}


def s_py_func(paddle):
    main, startup = _fresh(paddle)
    with paddle.utils.unique_name.guard(), paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [-1, 3], "float32")
        x.stop_gradient = False
        block = main.global_block()
        out = block.create_var(name="py_out", shape=[-1, 3], dtype="float32")
        cnt = block.create_var(name="py_count", shape=[1], dtype="int64")

        def forward(t):
            return np.tanh(np.array(t))

        def backward(y, dy):   # x is skipped: the output and its gradient only
            return np.array(dy) * (1 - np.array(y) ** 2)

        paddle.static.py_func(forward, x, out, backward_func=backward, skip_vars_in_backward_input=[x])
        paddle.static.py_func(lambda t: np.array([np.array(t).size], "int64"), x, cnt)
        loss = paddle.mean(out * out)
        grad = paddle.static.gradients([loss], [x])[0]
    exe = paddle.static.Executor(paddle.CPUPlace())
    xv = VEC[:, :3].copy()
    return exe.run(main, feed={"x": xv}, fetch_list=[out, cnt, grad])


def s_static_pylayer(paddle):
    """A custom gradient (the doc example's 2 * exp(dy)), and one reading the forward input (cube: 3 x^2 dy)."""
    main, startup = _fresh(paddle)
    with paddle.utils.unique_name.guard(), paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [-1, 3], "float32")
        x.stop_gradient = False
        y = paddle.static.nn.static_pylayer(lambda t: paddle.exp(t), [x], lambda dy: 2 * paddle.exp(dy))
        cube = paddle.static.nn.static_pylayer(lambda t: t * t * t, [x], lambda dy: dy * 3.0 * x * x)
        # one gradients call: the sum of both custom gradients
        grad = paddle.static.gradients([y, paddle.mean(cube)], [x])[0]
    exe = paddle.static.Executor(paddle.CPUPlace())
    return exe.run(main, feed={"x": VEC[:, :3].copy()}, fetch_list=[y, cube, grad])


SCENARIOS = {name[2:]: fn for name, fn in sorted(globals().items()) if name.startswith("s_")}
# NOTE: Paddle 3.3.1's legacy (ProgramDesc) cond/case/switch_case/static_pylayer fail while building (logical_not and reductions
# only accept PIR values there), so the control-flow scenarios' reference runs in its default PIR mode; they use
# only API-level results (fetched values), which both modes share.
PIR_SCENARIOS = ("cond_values", "while_loop", "case_switch", "train_through_cond", "static_pylayer")


def run_all(paddle, names=None):
    return run_scenarios(paddle, SCENARIOS, names)


def run_saved_program(paddle, job_path):
    """Run a ProgramDesc saved by torchpaddle: the job pickle holds its bytes, a list of feeds and the fetch names."""
    with open(job_path, "rb") as f:
        job = pickle.load(f)
    paddle.enable_static()
    program = paddle.static.Program.parse_from_string(job["program"])
    exe = paddle.static.Executor(paddle.CPUPlace())
    return [exe.run(program, feed=feed, fetch_list=job["fetch"]) for feed in job["feeds"]]


if __name__ == "__main__":
    if sys.argv[2] == "saved":   # OUT.pkl saved JOB.pkl
        os.environ["FLAGS_enable_pir_api"] = "0"
        import paddle as _paddle
        with open(sys.argv[1], "wb") as f:
            pickle.dump({"results": run_saved_program(_paddle, sys.argv[3])}, f)
        sys.exit(0)
    pir = sys.argv[2] == "pir"
    os.environ["FLAGS_enable_pir_api"] = "1" if pir else "0"
    import paddle as _paddle
    chosen = sys.argv[3:] or [n for n in SCENARIOS if (n in PIR_SCENARIOS) == pir]
    with open(sys.argv[1], "wb") as f:
        pickle.dump({"results": run_all(_paddle, chosen)}, f)
