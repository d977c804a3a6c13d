"""Static-graph training with every optimizer, runnable with real PaddlePaddle 3.3.1 (legacy programs,
FLAGS_enable_pir_api=0) or torchpaddle (passed in as ``P``): the ops ``minimize`` appends, the losses of a few
Executor steps, and training programs saved with ``static.save`` (plus the startup program's bytes) that the
other side loads in a fresh process and trains on.

Reference run: ``python -m tests.optimizer.static_optimizer_cases OUT.pkl OURS_DIR PADDLE_DIR`` records every
case, saves each case into PADDLE_DIR and resumes the programs torchpaddle saved into OURS_DIR. With
``--torchpaddle`` first, the same module resumes OURS_DIR with torchpaddle (a fresh process).
Keep it importable by both: NumPy and the ``P`` module only.
"""
import json
import os
import pickle
import sys
import warnings

import numpy as np

warnings.filterwarnings("ignore")

STEPS = 4      # before the save
RESUMED = 3    # after it
_RNG = np.random.RandomState(11)
X = _RNG.uniform(-1, 1, (8, 3))
Y = _RNG.uniform(-1, 1, (8, 2))
INIT = {"linear_0.w_0": _RNG.uniform(-0.8, 0.8, (3, 4)), "linear_0.b_0": _RNG.uniform(-0.1, 0.1, (4,)),
        "linear_1.w_0": _RNG.uniform(-0.8, 0.8, (4, 2)), "linear_1.b_0": _RNG.uniform(-0.1, 0.1, (2,))}


# case -> (optimizer class, P -> its keyword arguments). Every hyper-parameter is a float32 number (a program
# keeps float attributes as float32), so float64 runs of eager and static mode can agree to the last bits.
_B2, _EPS = 1 - 2 ** -10, 2 ** -20
OPTIMIZERS = {
    "sgd_l1": ("SGD", lambda P: dict(learning_rate=0.125, weight_decay=P.regularizer.L1Decay(2 ** -7))),
    "sgd_clip_value": ("SGD", lambda P: dict(learning_rate=0.25, grad_clip=P.nn.ClipGradByValue(0.0625))),
    "momentum_nesterov_l2": ("Momentum", lambda P: dict(learning_rate=0.0625, momentum=0.875, use_nesterov=True,
                                                        weight_decay=2 ** -6)),
    "momentum_param_reg": ("Momentum", lambda P: dict(learning_rate=0.0625, momentum=0.75,
                                                      weight_decay=P.regularizer.L2Decay(2 ** -5))),
    "adam_l2_clip_norm": ("Adam", lambda P: dict(learning_rate=0.0625, beta1=0.875, beta2=_B2, epsilon=_EPS,
                                                 weight_decay=2 ** -7, grad_clip=P.nn.ClipGradByNorm(0.25))),
    "adam_amsgrad_param_lr": ("Adam", lambda P: dict(learning_rate=0.0625, beta1=0.75, beta2=_B2, epsilon=_EPS,
                                                     amsgrad=True)),
    "adamw_decay_fun": ("AdamW", lambda P: dict(learning_rate=0.0625, beta1=0.875, beta2=_B2, epsilon=_EPS,
                                                weight_decay=0.125, apply_decay_param_fun=lambda n: "w_" in n)),
    "adamax": ("Adamax", lambda P: dict(learning_rate=0.0625, beta1=0.875, beta2=_B2, epsilon=_EPS)),
    "adagrad": ("Adagrad", lambda P: dict(learning_rate=0.125, epsilon=_EPS, initial_accumulator_value=0.125)),
    "adadelta": ("Adadelta", lambda P: dict(learning_rate=1.0, rho=0.875, epsilon=2 ** -13)),
    "rmsprop_centered": ("RMSProp", lambda P: dict(learning_rate=2 ** -7, rho=0.9375, epsilon=_EPS, momentum=0.5,
                                                   centered=True)),
    "lamb_exclude": ("Lamb", lambda P: dict(learning_rate=0.0625, lamb_weight_decay=2 ** -6, beta1=0.875, beta2=_B2,
                                            epsilon=_EPS, exclude_from_weight_decay_fn=lambda p: "b_" in p.name)),
    "nadam": ("NAdam", lambda P: dict(learning_rate=2 ** -5, beta1=0.875, beta2=_B2, epsilon=_EPS,
                                      momentum_decay=2 ** -8)),
    "radam": ("RAdam", lambda P: dict(learning_rate=2 ** -5, beta1=0.875, beta2=_B2, epsilon=_EPS)),
    "rprop": ("Rprop", lambda P: dict(learning_rate=2 ** -7, learning_rate_range=(2 ** -16, 32.0),
                                      etas=(0.5, 1.25))),
    "sgd_step_decay": ("SGD", lambda P: dict(learning_rate=P.optimizer.lr.StepDecay(0.25, step_size=2,
                                                                                    gamma=0.5))),
    # Paddle 3.3.1 cannot build these (its legacy clip calls a PIR-only sqrt; its ASGD reads the window index
    # while it builds): saved here, run there
    "asgd": ("ASGD", lambda P: dict(learning_rate=0.0625, batch_num=3)),
    "adam_global_norm_l2": ("Adam", lambda P: dict(learning_rate=0.0625, beta1=0.875, beta2=_B2, epsilon=_EPS,
                                                   weight_decay=2 ** -7, grad_clip=P.nn.ClipGradByGlobalNorm(0.25))),
}


def make_optimizer(P, case, **extra):
    name, kwargs = OPTIMIZERS[case]
    return getattr(P.optimizer, name)(**kwargs(P), **extra)


CASES = sorted(OPTIMIZERS)
PADDLE_BUILDS = [c for c in CASES if c not in ("adam_global_norm_l2", "asgd")]
SAVED = [c for c in CASES if c != "sgd_step_decay"]   # a scheduler lives in the process, not in the file
# NOTE: Paddle has no float64 clip_by_norm kernel (and torchpaddle's eager ClipGradByNorm takes no float64 either)
FLOAT64 = [c for c in CASES if c != "adam_l2_clip_norm"]


def _param_attrs(P, case):
    """Per-case parameter attributes: a rate multiplier, a regularizer of its own, no clipping."""
    if case == "adam_amsgrad_param_lr":
        return P.ParamAttr(learning_rate=0.5), None
    if case == "momentum_param_reg":
        return P.ParamAttr(regularizer=P.regularizer.L1Decay(2 ** -5)), None
    if case in ("sgd_clip_value", "adam_global_norm_l2"):
        return None, P.ParamAttr(need_clip=False)
    return None, None


def build(P, case, dtype="float32"):
    """(main, startup, loss, scheduler) of a 3-4-2 MLP with an MSE loss, minimized by the case's optimizer."""
    main, startup = P.static.Program(), P.static.Program()
    default = P.get_default_dtype()
    P.set_default_dtype(dtype)   # the layers' parameters
    try:
        return _build(P, case, dtype, main, startup)
    finally:
        P.set_default_dtype(default)


def _build(P, case, dtype, main, startup):
    with P.utils.unique_name.guard(), P.static.program_guard(main, startup):
        x = P.static.data("x", [-1, 3], dtype)
        y = P.static.data("y", [-1, 2], dtype)
        first_w, first_b = _param_attrs(P, case)
        hidden = P.nn.Linear(3, 4, weight_attr=first_w, bias_attr=first_b)
        out = P.nn.Linear(4, 2)
        # (variables read twice, whose gradients Paddle adds up with @RENAME + sum: tests/static/backward_cases.py)
        loss = P.mean(P.square(out(P.nn.functional.relu(hidden(x))) - y))
        opt = make_optimizer(P, case)
        opt.minimize(loss)
    scheduler = opt._learning_rate if case == "sgd_step_decay" else None
    return main, startup, loss, scheduler


def train_eager(P, case, dtype="float64", steps=STEPS + RESUMED):
    """``train`` in dygraph: the same model, values and optimizer, with ``step()``."""
    default = P.get_default_dtype()
    P.set_default_dtype(dtype)
    try:
        with P.utils.unique_name.guard():
            first_w, first_b = _param_attrs(P, case)
            hidden = P.nn.Linear(3, 4, weight_attr=first_w, bias_attr=first_b)
            out = P.nn.Linear(4, 2)
            params = [hidden.weight, hidden.bias, out.weight, out.bias]
            for p in params:
                p.set_value(INIT[p.name].astype(dtype))
            opt = make_optimizer(P, case, parameters=params)
    finally:
        P.set_default_dtype(default)
    x, y = P.to_tensor(X.astype(dtype)), P.to_tensor(Y.astype(dtype))
    losses = []
    for _ in range(steps):
        loss = P.mean(P.square(out(P.nn.functional.relu(hidden(x))) - y))
        loss.backward()
        opt.step()
        opt.clear_grad()
        losses.append(np.asarray(loss.numpy()).reshape(()))
        if case == "sgd_step_decay":
            opt._learning_rate.step()
    return {"losses": np.array(losses), "params": {p.name: p.numpy() for p in params}}


def _feed(dtype):
    return {"x": X.astype(dtype), "y": Y.astype(dtype)}


def _run(P, exe, program, loss_name, dtype, steps, scheduler=None):
    losses = []
    for _ in range(steps):
        losses.append(np.asarray(exe.run(program, feed=_feed(dtype), fetch_list=[loss_name])[0]).reshape(()))
        if scheduler is not None:
            scheduler.step()
    return np.array(losses)


def train(P, case, dtype="float32", steps=STEPS + RESUMED):
    """Losses over ``steps`` Executor runs and the parameters after them, from INIT."""
    main, startup, loss, scheduler = build(P, case, dtype)
    scope = P.static.Scope()
    exe = P.static.Executor(P.CPUPlace())
    with P.static.scope_guard(scope):
        exe.run(startup)
        for name, value in INIT.items():
            scope.var(name).get_tensor().set(value.astype(dtype), P.CPUPlace())
        losses = _run(P, exe, main, loss.name, dtype, steps, scheduler)
        params = {name: np.array(scope.find_var(name).get_tensor()) for name in INIT}
    return {"losses": losses, "params": params}


def _program_bytes(P, program):
    desc = getattr(program, "desc", None)
    return desc.serialize_to_string() if desc is not None else program.desc_bytes()


def save(P, case, folder, dtype="float32"):
    """Train STEPS, then ``static.save`` the training program (and write its startup program); -> the losses
    of the RESUMED steps that follow in this process."""
    main, startup, loss, _ = build(P, case, dtype)
    scope = P.static.Scope()
    exe = P.static.Executor(P.CPUPlace())
    prefix = os.path.join(folder, case)
    with P.static.scope_guard(scope):
        exe.run(startup)
        for name, value in INIT.items():
            scope.var(name).get_tensor().set(value.astype(dtype), P.CPUPlace())
        _run(P, exe, main, loss.name, dtype, STEPS)
        P.static.save(main, prefix)
        with open(prefix + ".startup", "wb") as f:
            f.write(_program_bytes(P, startup))
        with open(prefix + ".json", "w") as f:
            json.dump({"loss": loss.name, "dtype": dtype}, f)
        return _run(P, exe, main, loss.name, dtype, RESUMED)


def resume(P, folder, case):
    """Load a saved training program (no code of the case runs) and train RESUMED steps; -> their losses."""
    prefix = os.path.join(folder, case)
    with open(prefix + ".json") as f:
        meta = json.load(f)
    with open(prefix + ".pdmodel", "rb") as f:
        main = P.static.Program.parse_from_string(f.read())
    with open(prefix + ".startup", "rb") as f:
        startup = P.static.Program.parse_from_string(f.read())
    scope = P.static.Scope()
    exe = P.static.Executor(P.CPUPlace())
    with P.static.scope_guard(scope):
        exe.run(startup)
        P.static.set_program_state(main, P.static.load_program_state(prefix))
        return _run(P, exe, main, meta["loss"], meta["dtype"], RESUMED)


_COMMON = {"op_role_var", "op_namescope", "op_callstack", "op_device", "with_quant_attr"}


def _plain(value):
    if type(value).__name__ == "Scalar":   # Paddle's assign_value values
        value = value.value()
    if isinstance(value, float):
        return float(np.float32(value))   # attributes are float32 in a program file
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def optimize_ops(P, case, dtype="float32"):
    """What minimize appended: the main program's optimize-role ops and the startup ops that create the
    optimizer's variables, as (type, {slot: names}, {attr: value}); temporaries are renamed t0, t1... in
    order of appearance, since their counters depend on how the forward was built."""
    main, startup, _, _ = build(P, case, dtype)
    block = main.global_block()
    params = {p.name for p in main.all_parameters()}
    renames = {}

    def name_of(n):
        var = block._find_var_recursive(n)
        if var is not None and (var.persistable or "@GRAD" in n):
            return n
        return renames.setdefault(n, f"t{len(renames)}")

    def describe(op):
        slots = {}
        for kind, names in (("in", op.input_names), ("out", op.output_names)):
            for slot in names:
                args = op.input(slot) if kind == "in" else op.output(slot)
                if args:
                    slots[f"{kind}:{slot}"] = [name_of(n) for n in args]
        attrs = {k: _plain(op.attr(k)) for k in op.attr_names if k not in _COMMON}
        return op.type, slots, attrs

    read = {n for op in block.ops for n in op.input_arg_names}

    def dead(op):
        # NOTE: Paddle's Rprop reads param[0].dtype, which appends a slice of the parameter nothing reads
        return all(n not in read and not block._find_var_recursive(n).persistable for n in op.output_arg_names)

    ops = [describe(op) for op in block.ops if op.attr("op_role") & 2 and not dead(op)]
    made = [describe(op) for op in startup.global_block().ops if op.output_arg_names[0] not in params]
    variables = {v.name: (list(v.shape), str(v.dtype).replace("paddle.", "")) for v in block.vars.values()
                 if v.persistable and v.name not in params and v.name not in ("feed", "fetch")}
    return {"ops": ops, "startup": made, "vars": variables}


# -- single ops on given values (what minimize does not emit, or not with these inputs) --------------------
_V = np.random.RandomState(5)
_P1, _G1, _M1 = (_V.uniform(-1, 1, (3, 2)).astype("float32") for _ in range(3))
_P2, _G2, _M2 = (_V.uniform(-1, 1, (4,)).astype("float32") for _ in range(3))
_LR = np.array([0.0625], "float32")


def _adam_inputs(**extra):
    inputs = {"Param": [("p", _P1)], "Grad": [("g", _G1)], "LearningRate": [("lr", _LR)], "Moment1": [("m1", _M1)],
              "Moment2": [("m2", _M1 * _M1)], "Beta1Pow": [("b1", np.array([0.75], "float32"))],
              "Beta2Pow": [("b2", np.array([0.875], "float32"))]}
    inputs.update(extra)
    return inputs


_ADAM_OUT = {"ParamOut": ["p"], "Moment1Out": ["m1"], "Moment2Out": ["m2"], "Beta1PowOut": ["b1"],
             "Beta2PowOut": ["b2"]}
# name -> (op type, {slot: [(variable, value)]}, {slot: [variable]}, attrs)
OP_CASES = {
    "lars_momentum": ("lars_momentum",
                      {"Param": [("p", _P1), ("q", _P2)], "Grad": [("g", _G1), ("h", _G2)],
                       "Velocity": [("v", _M1), ("u", _M2)], "LearningRate": [("lr", _LR), ("lr2", _LR * 2)]},
                      {"ParamOut": ["p", "q"], "VelocityOut": ["v", "u"]},
                      {"mu": 0.875, "lars_coeff": 0.5, "lars_weight_decay": [0.25, 0.0625], "epsilon": 2 ** -10,
                       "rescale_grad": 1.0}),
    "adam_global_beta_pow_tensors": ("adam", _adam_inputs(Beta1Tensor=[("bt", np.array([0.5], "float32"))],
                                                          EpsilonTensor=[("et", np.array([0.25], "float32"))]),
                                     _ADAM_OUT, {"use_global_beta_pow": True}),
    "adam_skip_update": ("adam", _adam_inputs(SkipUpdate=[("skip", np.array([True]))]), _ADAM_OUT, {}),
    "adamw_with_decay": ("adamw", _adam_inputs(), _ADAM_OUT, {"coeff": 0.25, "with_decay": True}),
    "clip_by_norm": ("clip_by_norm", {"X": [("x", _P1 * 4)]}, {"Out": ["o"]}, {"max_norm": 0.5}),
    "squared_l2_norm": ("squared_l2_norm", {"X": [("x", _P1)]}, {"Out": ["o"]}, {}),
}


def run_op(P, case):
    """One op of OP_CASES in a program of its own; -> the values of its output variables."""
    op_type, inputs, outputs, attrs = OP_CASES[case]
    main, scope = P.static.Program(), P.static.Scope()
    block = main.global_block()
    values = {name: value for items in inputs.values() for name, value in items}
    for name, value in values.items():
        block.create_var(name=name, shape=list(value.shape), dtype=str(value.dtype), persistable=True)
    for names in outputs.values():
        for name in names:
            if name not in values:
                block.create_var(name=name, dtype="float32", persistable=True)
    block.append_op(type=op_type, inputs={k: [block.var(n) for n, _ in v] for k, v in inputs.items()},
                    outputs={k: [block.var(n) for n in v] for k, v in outputs.items()}, attrs=attrs)
    with P.static.scope_guard(scope):
        for name, value in values.items():
            scope.var(name).get_tensor().set(value, P.CPUPlace())
        P.static.Executor(P.CPUPlace()).run(main)
        return {n: np.array(scope.find_var(n).get_tensor()) for names in outputs.values() for n in names}


def run_reference(P, ours, theirs):
    P.enable_static()
    results = {f"op:{case}": _outcome(lambda c=case: run_op(P, c)) for case in OP_CASES}
    for case in PADDLE_BUILDS:
        results[f"build:{case}"] = _outcome(lambda c=case: optimize_ops(P, c))
        results[f"train:{case}"] = _outcome(lambda c=case: train(P, c))
    for case in [c for c in FLOAT64 if c in PADDLE_BUILDS]:
        results[f"train64:{case}"] = _outcome(lambda c=case: train(P, c, "float64"))
    for case in PADDLE_BUILDS:
        if case in SAVED:
            results[f"saved:{case}"] = _outcome(lambda c=case: save(P, c, theirs))
    for case in SAVED:
        results[f"resumed:{case}"] = _outcome(lambda c=case: resume(P, ours, c))
    return results


def _outcome(fn):
    try:
        return fn()
    except Exception as e:  # noqa: BLE001 - recorded, the test names it
        return ("E", type(e).__name__, str(e)[:800])


if __name__ == "__main__":
    args = sys.argv[1:]
    if args[0] == "--torchpaddle":
        import torchpaddle as _P
        _P.enable_static()
        out, folder = args[1:]
        found = {case: _outcome(lambda c=case: resume(_P, folder, c)) for case in SAVED}
    else:
        os.environ.setdefault("FLAGS_enable_pir_api", "0")
        import paddle as _P
        out, ours, theirs = args
        found = run_reference(_P, ours, theirs)
    with open(out, "wb") as f:
        pickle.dump({"results": found}, f)
