"""Static backward of programs whose variables are read more than once (a residual MLP: a residual branch, one
Linear applied twice, ``diff * diff``), runnable with real PaddlePaddle 3.3.1 (legacy programs,
FLAGS_enable_pir_api=0) or torchpaddle (passed in as ``P``): the backward ops ``append_backward`` appends (each
repeated gradient written to ``@RENAME@`` names and added up by ``sum`` ops), the losses of SGD steps, and training
programs saved on one side that the other trains on.

Reference run: ``python -m tests.static.backward_cases OUT.pkl OURS_DIR PADDLE_DIR`` records the backward ops and
losses, saves the training program into PADDLE_DIR and resumes the one torchpaddle saved into OURS_DIR.
Keep it importable by both: NumPy and the ``P`` module only.
"""
import os
import pickle
import sys
import warnings

import numpy as np

from tests.optimizer.static_optimizer_cases import _outcome, _program_bytes

warnings.filterwarnings("ignore")

STEPS = 4      # before the save
RESUMED = 3    # after it
_RNG = np.random.RandomState(7)
X = _RNG.uniform(-1, 1, (8, 3))
Y = _RNG.uniform(-1, 1, (8, 2))
INIT = {"linear_0.w_0": _RNG.uniform(-0.8, 0.8, (3, 4)), "linear_0.b_0": _RNG.uniform(-0.1, 0.1, (4,)),
        "linear_1.w_0": _RNG.uniform(-0.6, 0.6, (4, 4)), "linear_1.b_0": _RNG.uniform(-0.1, 0.1, (4,)),
        "linear_2.w_0": _RNG.uniform(-0.8, 0.8, (4, 2)), "linear_2.b_0": _RNG.uniform(-0.1, 0.1, (2,))}


def build(P, dtype="float32"):
    """(main, startup, loss) of the residual MLP trained by SGD."""
    main, startup = P.static.Program(), P.static.Program()
    default = P.get_default_dtype()
    P.set_default_dtype(dtype)
    try:
        with P.utils.unique_name.guard(), P.static.program_guard(main, startup):
            x = P.static.data("x", [-1, 3], dtype)
            y = P.static.data("y", [-1, 2], dtype)
            first, block, out = P.nn.Linear(3, 4), P.nn.Linear(4, 4), P.nn.Linear(4, 2)
            relu = P.nn.functional.relu
            h = relu(first(x))
            h = h + relu(block(h))      # h read by two ops
            h = h + relu(block(h))      # block's weight and bias read twice
            diff = out(h) - y
            loss = P.mean(diff * diff)  # diff read twice by one op
            P.optimizer.SGD(learning_rate=0.25).minimize(loss)
    finally:
        P.set_default_dtype(default)
    return main, startup, loss


def backward_ops(P):
    """The backward ops as (type, {slot: names}): output slots, gradient input slots, and every slot of a sum;
    temporaries are renamed t0, t1... in order of appearance (their counters depend on how the forward was
    built), keeping the @GRAD / @RENAME suffixes."""
    main, _, _ = build(P)
    block = main.global_block()
    renames = {}

    def name_of(n):
        base, sep, rest = n.partition("@GRAD")
        var = block._find_var_recursive(base)
        if var is None or not (var.persistable or base in ("x", "y")):
            base = renames.setdefault(base, f"t{len(renames)}")
        return base + sep + rest

    for op in block.ops:
        for n in op.input_arg_names + op.output_arg_names:
            name_of(n)
    found = []
    for op in block.ops:
        if not op.attr("op_role") & 1:
            continue
        slots = {f"out:{s}": [name_of(n) for n in op.output(s)] for s in op.output_names if op.output(s)}
        for s in op.input_names:
            if op.input(s) and (s.endswith("@GRAD") or op.type == "sum"):
                slots[f"in:{s}"] = [name_of(n) for n in op.input(s)]
        found.append((op.type, slots))
    return found


def _run(P, exe, program, loss_name, steps):
    return np.array([np.asarray(exe.run(program, feed={"x": X.astype("float32"), "y": Y.astype("float32")},
                                        fetch_list=[loss_name])[0]).reshape(()) for _ in range(steps)])


def _start(P, startup):
    scope = P.static.Scope()
    exe = P.static.Executor(P.CPUPlace())
    with P.static.scope_guard(scope):
        exe.run(startup)
        for name, value in INIT.items():
            scope.var(name).get_tensor().set(value.astype("float32"), P.CPUPlace())
    return scope, exe


def train(P, steps=STEPS + RESUMED, per_op=False):
    """Losses of ``steps`` SGD steps from INIT and the parameters after them; ``per_op`` (torchpaddle only) runs
    the grad ops one by one."""
    main, startup, loss = build(P)
    if per_op:
        P.static.executor.run_grad_ops_one_by_one(main)
    scope, exe = _start(P, startup)
    with P.static.scope_guard(scope):
        losses = _run(P, exe, main, loss.name, steps)
        params = {name: np.array(scope.find_var(name).get_tensor()) for name in INIT}
    return {"losses": losses, "params": params}


def save(P, folder):
    """Train STEPS, ``static.save`` the training program (and write its startup program); -> the losses of the
    RESUMED steps that follow in this process."""
    main, startup, loss = build(P)
    scope, exe = _start(P, startup)
    prefix = os.path.join(folder, "residual_mlp")
    with P.static.scope_guard(scope):
        _run(P, exe, main, loss.name, STEPS)
        P.static.save(main, prefix)
        with open(prefix + ".startup", "wb") as f:
            f.write(_program_bytes(P, startup))
        with open(prefix + ".loss", "w") as f:
            f.write(loss.name)
        return _run(P, exe, main, loss.name, RESUMED)


def resume(P, folder):
    """Load the saved training program (no code of the model runs) and train RESUMED steps; -> their losses."""
    prefix = os.path.join(folder, "residual_mlp")
    with open(prefix + ".pdmodel", "rb") as f:
        main = P.static.Program.parse_from_string(f.read())
    with open(prefix + ".startup", "rb") as f:
        startup = P.static.Program.parse_from_string(f.read())
    with open(prefix + ".loss") as f:
        loss_name = f.read()
    scope = P.static.Scope()
    exe = P.static.Executor(P.CPUPlace())
    with P.static.scope_guard(scope):
        exe.run(startup)
        P.static.set_program_state(main, P.static.load_program_state(prefix))
        return _run(P, exe, main, loss_name, RESUMED)


def run_reference(P, ours, theirs):
    P.enable_static()
    return {"ops": _outcome(lambda: backward_ops(P)), "train": _outcome(lambda: train(P)),
            "saved": _outcome(lambda: save(P, theirs)), "resumed": _outcome(lambda: resume(P, ours))}


if __name__ == "__main__":
    os.environ.setdefault("FLAGS_enable_pir_api", "0")
    import paddle as _P
    out, ours_dir, theirs_dir = sys.argv[1:]
    found = run_reference(_P, ours_dir, theirs_dir)
    with open(out, "wb") as f:
        pickle.dump({"results": found}, f)
