"""Program-pass scenarios run on both real PaddlePaddle 3.3.1 (legacy programs: FLAGS_enable_pir_api=0) and
torchpaddle, then compared: the structure ``append_backward(loss, checkpoints=...)`` gives (recompute), and the
structure and trajectory of gradient merge (Paddle: ``paddle.incubate.optimizer.GradientMergeOptimizer``; here:
the pass on the program ``minimize`` built).

Run inside the reference virtualenv: ``python -m tests.static.pass_scenarios OUT.pkl``; with
``OUT.pkl saved JOB.pkl`` it trains programs saved here (see run_saved_job).
"""
import os
import pickle
import re
import sys
import warnings

import numpy as np

from tests.static.static_nn_scenarios import weight_for
from tests.static.static_scenarios import run_scenarios

warnings.filterwarnings("ignore")

_SUFFIX = re.compile(r"\.subprog_\d+$")
X = np.random.RandomState(5).uniform(-1, 1, (4, 8)).astype("float32")


def _ours(paddle):
    return paddle.__name__.startswith("torchpaddle")


def _mark(name):
    """The part of a variable name that both frameworks share: the recompute suffix (or ``@GRAD``)."""
    found = _SUFFIX.search(name)
    return found.group(0) if found else ("@GRAD" if "@GRAD" in name else "")


def _structure(program):
    """Per op: type, whether it is a backward op, and the recompute marks of its slots' names."""
    out = []
    for op in program.global_block().ops:
        slots = {k: [_mark(n) for n in op.input(k)] for k in op.input_names}
        slots.update({k + "->": [_mark(n) for n in op.output(k)] for k in op.output_names})
        out.append((op.type, bool(int(op.attr("op_role")) & 1), slots))
    return out


def _mlp(paddle, dropout):
    x = paddle.static.data("x", [4, 8], "float32")
    h1 = paddle.static.nn.fc(x, 8, activation="tanh")
    if dropout:
        h1 = paddle.nn.functional.dropout(h1, 0.5)
    h2 = paddle.static.nn.fc(h1, 8, activation="tanh")
    h3 = paddle.static.nn.fc(h2, 8, activation="tanh")
    return h1, h2, paddle.mean(h3)


def _recompute(paddle, dropout):
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.utils.unique_name.guard(), paddle.static.program_guard(main, startup):
        h1, h2, loss = _mlp(paddle, dropout)
        paddle.static.append_backward(loss, checkpoints=[h1, h2])
    return _structure(main)


def s_recompute_checkpoints(paddle):
    return _recompute(paddle, dropout=False)


def s_recompute_dropout_seed(paddle):
    return _recompute(paddle, dropout=True)


def _gradient_merge(paddle, make_opt, k_steps, avg, steps=5):
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.utils.unique_name.guard(), paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [4, 8], "float32")
        h = paddle.static.nn.fc(x, 6, activation="tanh")
        loss = paddle.mean(paddle.static.nn.fc(h, 2) ** 2)
        opt = make_opt(paddle)
        if _ours(paddle):
            from torchpaddle.static.passes import apply_gradient_merge
            opt.minimize(loss)
            apply_gradient_merge(main, startup, {"k_steps": k_steps, "avg": avg})
        else:
            paddle.incubate.optimizer.GradientMergeOptimizer(opt, k_steps=k_steps, avg=avg).minimize(loss)
    scope = paddle.static.Scope()
    exe = paddle.static.Executor(paddle.CPUPlace())
    params = sorted(p.name for p in main.all_parameters())
    trajectory = []
    with paddle.static.scope_guard(scope):
        exe.run(startup)
        for name in params:
            shape = tuple(int(s) for s in main.global_block().var(name).shape)
            scope.var(name).get_tensor().set(weight_for(name, shape), paddle.CPUPlace())
        for i in range(steps):
            values = exe.run(main, feed={"x": X * (i + 1)}, fetch_list=[loss] + params)
            trajectory.append([np.asarray(v) for v in values])
    blocks = [[op.type for op in block.ops] for block in main.blocks]
    merged = sorted(v.name for v in main.list_vars()
                    if "GradientMerge" in v.name or v.name.startswith("gradient_merge"))
    return {"trajectory": trajectory, "blocks": blocks, "vars": merged}


def s_gradient_merge_sgd_avg(paddle):
    return _gradient_merge(paddle, lambda p: p.optimizer.SGD(0.1), 2, True)


def s_gradient_merge_adam_sum(paddle):
    return _gradient_merge(paddle, lambda p: p.optimizer.Adam(0.05), 3, False)


def s_pass_framework(paddle):
    """new_pass / PassManager / PassContext without applying (Paddle's legacy passes need a dist context)."""
    passes = paddle.distributed.passes
    try:
        passes.new_pass("no_such_pass")
        unknown = None
    except Exception as e:  # noqa: BLE001 - the type is the result
        unknown = type(e).__name__
    merge = "auto_parallel_gradient_merge_pass"
    refused = passes.PassManager([passes.new_pass(merge, {"k_steps": 0})])
    kept = passes.PassManager([passes.new_pass(merge, {"k_steps": 2}), passes.new_pass(merge, {"k_steps": 3})])
    context = passes.PassContext()
    context.set_attr("loss", "x")
    return {"unknown": unknown, "refused": refused.names, "kept": kept.names, "attr": context.get_attr("loss"),
            "missing": context.get_attr("nope", 7), "applied": list(context.passes),
            "attrs": passes.new_pass(merge, {"k_steps": 2}).get_attr("avg")}


def run_saved_job(paddle, job):
    """Train the ProgramDescs ``job`` holds (``startup``, ``main`` bytes): run the startup program, set the
    ``params`` values, run the main program on each of ``feeds``; -> the ``fetch`` values per run."""
    paddle.enable_static()
    startup = paddle.static.Program.parse_from_string(job["startup"])
    main = paddle.static.Program.parse_from_string(job["main"])
    exe = paddle.static.Executor(paddle.CPUPlace())
    scope = paddle.static.Scope()
    with paddle.static.scope_guard(scope):
        exe.run(startup)
        for name, value in job["params"].items():
            scope.var(name).get_tensor().set(value, paddle.CPUPlace())
        return [[np.asarray(v) for v in exe.run(main, feed=feed, fetch_list=job["fetch"])] for feed in job["feeds"]]


SCENARIOS = {name[2:]: fn for name, fn in sorted(globals().items()) if name.startswith("s_")}


def run_all(paddle):
    return run_scenarios(paddle, SCENARIOS)


if __name__ == "__main__":
    os.environ["FLAGS_enable_pir_api"] = "0"
    import paddle as _paddle
    if len(sys.argv) > 2 and sys.argv[2] == "saved":   # OUT.pkl saved JOB.pkl
        with open(sys.argv[3], "rb") as f:
            results = run_saved_job(_paddle, pickle.load(f))
    else:
        results = run_all(_paddle)
    with open(sys.argv[1], "wb") as f:
        pickle.dump({"results": results}, f)
