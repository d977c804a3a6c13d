"""Optimizer and LR-scheduler scenarios, runnable with real Paddle or torchpaddle (passed in as ``P``).

tests/fixtures/optimizer/make_fixtures.py runs them on PaddlePaddle 3.3.1 and stores the results; the tests
run them on torchpaddle and compare. Keep this file importable by both (plain NumPy + the ``P`` module).
"""
import math

import numpy as np

STEPS = 10
SCHEDULER_STEPS = 30
SHAPES = {"w": (4, 3), "b": (3,), "u": (3,)}


def _data():
    rng = np.random.RandomState(0)
    init = {name: rng.uniform(-1, 1, shape).astype("float32") for name, shape in SHAPES.items()}
    x = rng.uniform(-1, 1, (5, 4)).astype("float32")
    target = rng.uniform(-1, 1, (5, 3)).astype("float32")
    return init, x, target


def is_torchpaddle(P):
    return P.__name__.startswith("torchpaddle")


def make_param(P, name, value):
    value = np.asarray(value)
    if is_torchpaddle(P):
        return P.Parameter(P.to_tensor(value), name=name)
    return P.create_parameter(list(value.shape), str(value.dtype), name=name,
                              default_initializer=P.nn.initializer.Assign(value))


def make_params(P, init=None):
    init = _data()[0] if init is None else init
    return {name: make_param(P, name, value) for name, value in init.items()}


def loss_of(P, params, x, target):
    y = P.tanh(P.matmul(x, params["w"]) + params["b"]) * params["u"]
    return P.mean((y - target) * (y - target))


# -- optimizer scenarios -----------------------------------------------------------------------------
# (class name, constructor kwargs, the hyper-parameter a parameter group overrides)
OPTIMIZERS = {
    "SGD": ("SGD", {"learning_rate": 0.1}, {}),
    "Momentum": ("Momentum", {"learning_rate": 0.1, "momentum": 0.9}, {"momentum": 0.5}),
    "MomentumNesterov": ("Momentum", {"learning_rate": 0.1, "momentum": 0.8, "use_nesterov": True},
                         {"use_nesterov": False}),
    "Adam": ("Adam", {"learning_rate": 0.05}, {"beta1": 0.8}),
    "AdamAmsgrad": ("Adam", {"learning_rate": 0.05, "beta1": 0.85, "beta2": 0.99, "amsgrad": True},
                    {"epsilon": 1e-3}),
    "AdamW": ("AdamW", {"learning_rate": 0.05, "weight_decay": 0.1}, {"beta2": 0.9}),
    "Adamax": ("Adamax", {"learning_rate": 0.05}, {"beta1": 0.7}),
    "Adagrad": ("Adagrad", {"learning_rate": 0.1, "initial_accumulator_value": 0.1}, {"epsilon": 1e-3}),
    "Adadelta": ("Adadelta", {"learning_rate": 1.0, "rho": 0.9, "epsilon": 1e-4}, {"rho": 0.5}),
    "RMSProp": ("RMSProp", {"learning_rate": 0.01}, {"rho": 0.8}),
    "RMSPropCentered": ("RMSProp", {"learning_rate": 0.01, "momentum": 0.5, "centered": True}, {"momentum": 0.2}),
    "Lamb": ("Lamb", {"learning_rate": 0.05, "lamb_weight_decay": 0.01}, {"beta1": 0.8}),
    "LambNoDecay": ("Lamb", {"learning_rate": 0.05, "lamb_weight_decay": 0.0}, {"beta1": 0.8}),
    "LambAdapt": ("Lamb", {"learning_rate": 0.05, "lamb_weight_decay": 0.0, "always_adapt": True}, {}),
    "NAdam": ("NAdam", {"learning_rate": 0.05}, {"momentum_decay": 0.01}),
    "RAdam": ("RAdam", {"learning_rate": 0.05, "beta2": 0.9}, {"beta1": 0.7}),
    "ASGD": ("ASGD", {"learning_rate": 0.1, "batch_num": 3}, {}),
    "Rprop": ("Rprop", {"learning_rate": 0.05, "etas": (0.4, 1.3)}, {}),
}
# optimizers whose weight_decay is not a regularizer (AdamW: decoupled float; Lamb, Rprop: none)
_OWN_DECAY = {"AdamW", "Lamb", "Rprop"}
_NO_SCHEDULER = {"Rprop"}  # Rprop compares learning_rate with its range, so it takes floats only


def _variants(cls_name):
    """name -> fn(P, params) -> (param list or groups, extra kwargs, scheduler or None)."""
    own_decay = cls_name in _OWN_DECAY
    out = {"plain": lambda P, ps: (list(ps.values()), {}, None)}
    if not own_decay:
        out["wd_float"] = lambda P, ps: (list(ps.values()), {"weight_decay": 0.05}, None)
        out["wd_l1"] = lambda P, ps: (list(ps.values()), {"weight_decay": P.regularizer.L1Decay(0.05)}, None)
        out["wd_l2"] = lambda P, ps: (list(ps.values()), {"weight_decay": P.regularizer.L2Decay(0.05)}, None)

    def param_reg(P, ps):
        ps["b"].regularizer = P.regularizer.L1Decay(0.1)
        ps["w"].regularizer = P.regularizer.L2Decay(0.02)
        extra = {} if own_decay else {"weight_decay": P.regularizer.L2Decay(0.05)}
        return list(ps.values()), extra, None
    out["param_reg"] = param_reg

    def clip(kind):
        def build(P, ps):
            ps["b"].need_clip = False
            clipper = {"value": lambda: P.nn.ClipGradByValue(0.02),
                       "norm": lambda: P.nn.ClipGradByNorm(0.05),
                       "global": lambda: P.nn.ClipGradByGlobalNorm(0.05)}[kind]()
            return list(ps.values()), {"grad_clip": clipper}, None
        return build
    for kind in ("value", "norm", "global"):
        out[f"clip_{kind}"] = clip(kind)

    def sched(P, ps):
        ps["w"].optimize_attr["learning_rate"] = 0.5
        lr = P.optimizer.lr.StepDecay(0.1, step_size=3, gamma=0.5)
        return list(ps.values()), {"learning_rate": lr}, lr
    if cls_name not in _NO_SCHEDULER:
        out["sched"] = sched

    def frozen(P, ps):
        ps["u"].stop_gradient = True
        return list(ps.values()), {}, None
    out["frozen"] = frozen
    return out


def _group_variant(override):
    def build(P, ps):
        first = {"params": [ps["w"]], "learning_rate": 0.5}
        first.update(override)
        if "weight_decay" not in override:
            first["weight_decay"] = 0.02
        return [first, {"params": [ps["b"], ps["u"]]}], {}, None
    return build


def _special(name):
    """Scenarios that exercise one optimizer's own options."""
    out = {}
    if name == "Adam":
        out["beta_tensors"] = lambda P, ps: (list(ps.values()), {
            "beta1": P.to_tensor([0.8], dtype="float32"), "beta2": P.to_tensor([0.95], dtype="float32")}, None)
        out["groups_l1"] = _group_variant({"weight_decay": None})
    if name == "AdamW":
        out["apply_decay"] = lambda P, ps: (list(ps.values()),
                                            {"apply_decay_param_fun": lambda n: n != "b"}, None)
        out["groups_decay"] = _group_variant({"weight_decay": 0.5})
    if name == "Lamb":
        out["exclude"] = lambda P, ps: (list(ps.values()),
                                        {"exclude_from_weight_decay_fn": lambda p: p.name == "b"}, None)
    if name in ("Momentum", "SGD"):
        def l2_groups(P, ps):
            return ([{"params": [ps["w"]], "weight_decay": P.regularizer.L2Decay(0.1)},
                     {"params": [ps["b"]], "weight_decay": P.regularizer.L1Decay(0.1)},
                     {"params": [ps["u"]]}], {"weight_decay": 0.01}, None)
        out["groups_regs"] = l2_groups
    return out


def optimizer_scenarios():
    """scenario name -> (class name, base kwargs, variant builder)."""
    out = {}
    for name, (cls_name, kwargs, override) in OPTIMIZERS.items():
        variants = _variants(cls_name)
        variants["groups"] = _group_variant(override)
        variants.update(_special(name))
        for variant, build in variants.items():
            out[f"{name}/{variant}"] = (cls_name, kwargs, build)
    return out


def build_optimizer(P, scenario, params):
    cls_name, kwargs, build = optimizer_scenarios()[scenario]
    parameters, extra, scheduler = build(P, params)
    kwargs = dict(kwargs, **extra)
    return getattr(P.optimizer, cls_name)(parameters=parameters, **kwargs), scheduler


def train(P, opt, params, steps, x, target, scheduler=None):
    """Run ``steps`` steps; -> {param name: array [steps, *shape]} and the losses."""
    x, target = P.to_tensor(x), P.to_tensor(target)
    history = {name: [] for name in params}
    losses = []
    for _ in range(steps):
        loss = loss_of(P, params, x, target)
        loss.backward()
        opt.step()
        opt.clear_grad()
        if scheduler is not None:
            scheduler.step()
        losses.append(float(loss))
        for name, p in params.items():
            history[name].append(p.numpy().copy())
    return {name: np.stack(values) for name, values in history.items()}, np.array(losses)


def flatten(history):
    """{param: [steps, *shape]} -> one [steps, total] array, parameters in SHAPES order (the fixture layout)."""
    return np.concatenate([history[name].reshape(len(history[name]), -1) for name in SHAPES], axis=1)


def run_scenario(P, scenario, steps=STEPS):
    init, x, target = _data()
    with P.utils.unique_name.guard():
        params = make_params(P, init)
        opt, scheduler = build_optimizer(P, scenario, params)
        history, _ = train(P, opt, params, steps, x, target, scheduler)
    return history


# -- LR schedulers ---------------------------------------------------------------------------------------
def scheduler_cases(lr):
    """name -> fn() building a scheduler from the ``lr`` module (paddle.optimizer.lr or ours)."""
    return {
        "Noam": lambda: lr.NoamDecay(d_model=64, warmup_steps=10, learning_rate=2.0),
        "Piecewise": lambda: lr.PiecewiseDecay(boundaries=[3, 8, 20], values=[1.0, 0.5, 0.2, 0.05]),
        "NaturalExp": lambda: lr.NaturalExpDecay(learning_rate=0.5, gamma=0.1),
        "InverseTime": lambda: lr.InverseTimeDecay(learning_rate=0.5, gamma=0.2),
        "Polynomial": lambda: lr.PolynomialDecay(learning_rate=0.5, decay_steps=12, end_lr=0.01, power=2.0),
        "PolynomialCycle": lambda: lr.PolynomialDecay(learning_rate=0.5, decay_steps=7, end_lr=0.01, cycle=True),
        "LinearWarmup": lambda: lr.LinearWarmup(learning_rate=0.5, warmup_steps=5, start_lr=0.0, end_lr=0.5),
        "LinearWarmupSched": lambda: lr.LinearWarmup(
            learning_rate=lr.CosineAnnealingDecay(learning_rate=0.5, T_max=8), warmup_steps=6, start_lr=0.01,
            end_lr=0.5),
        "Exponential": lambda: lr.ExponentialDecay(learning_rate=0.5, gamma=0.9),
        "MultiStep": lambda: lr.MultiStepDecay(learning_rate=0.5, milestones=[4, 9, 15], gamma=0.5),
        "Step": lambda: lr.StepDecay(learning_rate=0.5, step_size=4, gamma=0.7),
        "Lambda": lambda: lr.LambdaDecay(learning_rate=0.5, lr_lambda=lambda e: 0.95 ** e),
        "CosineAnnealing": lambda: lr.CosineAnnealingDecay(learning_rate=0.5, T_max=7, eta_min=0.01),
        "Multiplicative": lambda: lr.MultiplicativeDecay(learning_rate=0.5, lr_lambda=lambda e: 0.9),
        "OneCycle": lambda: lr.OneCycleLR(max_learning_rate=1.0, total_steps=40, phase_pct=0.25),
        "OneCycleThree": lambda: lr.OneCycleLR(max_learning_rate=1.0, total_steps=35, divide_factor=10.0,
                                               phase_pct=0.2, anneal_strategy="linear", three_phase=True),
        "Cyclic": lambda: lr.CyclicLR(base_learning_rate=0.1, max_learning_rate=1.0, step_size_up=4,
                                      step_size_down=6),
        "CyclicTri2": lambda: lr.CyclicLR(base_learning_rate=0.1, max_learning_rate=1.0, step_size_up=3,
                                          mode="triangular2"),
        "CyclicExp": lambda: lr.CyclicLR(base_learning_rate=0.1, max_learning_rate=1.0, step_size_up=3,
                                         mode="exp_range", exp_gamma=0.9),
        "LinearLR": lambda: lr.LinearLR(learning_rate=0.5, total_steps=10, start_factor=0.2, end_factor=0.9),
        "WarmRestarts": lambda: lr.CosineAnnealingWarmRestarts(learning_rate=0.5, T_0=4, T_mult=2, eta_min=0.01),
        "WarmRestarts1": lambda: lr.CosineAnnealingWarmRestarts(learning_rate=0.5, T_0=5),
    }


# metrics fed to ReduceOnPlateau, one per step
PLATEAU_METRICS = [1.0, 0.9, 0.95, 0.96, 0.97, 0.9, 0.85, 0.86, 0.86, 0.87, 0.88, 0.89, 0.7, 0.71, 0.72, 0.73,
                   0.74, 0.75, 0.76, 0.77, 0.78, 0.79, 0.8, 0.81, 0.82, 0.83, 0.84, 0.85, 0.86, 0.87]


def plateau_cases(lr):
    return {
        "PlateauMin": lambda: lr.ReduceOnPlateau(learning_rate=1.0, factor=0.5, patience=2, cooldown=1,
                                                 min_lr=0.05),
        "PlateauMaxAbs": lambda: lr.ReduceOnPlateau(learning_rate=1.0, mode="max", factor=0.3, patience=1,
                                                    threshold=0.01, threshold_mode="abs"),
    }


def run_schedulers(lr):
    """name -> list of (last_epoch, lr) over SCHEDULER_STEPS steps, plus epoch jumps and state dicts."""
    out = {}
    for name, build in scheduler_cases(lr).items():
        s = build()
        values = [[s.last_epoch, s()]]
        for _ in range(SCHEDULER_STEPS):
            s.step()
            values.append([s.last_epoch, s()])
        out[name] = values
        jumped = build()
        jumps = []
        for epoch in (3, 11, 2, 17):
            jumped.step(epoch)
            jumps.append([jumped.last_epoch, jumped()])
        out[name + "@jump"] = jumps
        out[name + "@state"] = _plain(s.state_dict())
    for name, build in plateau_cases(lr).items():
        s = build()
        values = [[s.last_epoch, s()]]
        for metric in PLATEAU_METRICS:
            s.step(metric)
            values.append([s.last_epoch, s()])
        out[name] = values
        out[name + "@state"] = _plain(s.state_dict())
    return out


def _plain(state):
    return {k: (_plain(v) if isinstance(v, dict) else (None if v is None else float(v))) for k, v in state.items()}


def isclose_tree(a, b, rel=1e-12):
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(isclose_tree(a[k], b[k], rel) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(isclose_tree(x, y, rel) for x, y in zip(a, b))
    if a is None or b is None:
        return a is b
    return math.isclose(a, b, rel_tol=rel, abs_tol=1e-15)


# -- LBFGS (closure-driven) ---------------------------------------------------------------------------------
_LBFGS_A = np.array([[2.0, 0.5, 0.0, 0.3, 0.0], [0.0, 1.5, -0.4, 0.0, 0.2], [0.1, 0.0, 1.0, 0.5, 0.0],
                     [0.0, -0.3, 0.0, 1.2, 0.4]], "float32")
_LBFGS_B = np.array([1.0, -0.5, 0.3, 2.0], "float32")
LBFGS_CASES = {
    "plain": {"learning_rate": 0.5, "max_iter": 4, "history_size": 3},
    "wolfe": {"learning_rate": 1.0, "max_iter": 6, "history_size": 4, "line_search_fn": "strong_wolfe"},
}


def run_lbfgs(P, case, steps=3):
    """A smooth least-squares + quartic loss over two parameters; -> {param: [steps, *shape]} and the losses.

    (A chaotic objective such as Rosenbrock would let float rounding flip line-search branches.)
    """
    init = {"a": np.array([-1.2, 1.0, 0.5], "float32"), "b": np.array([[1.5, -0.5]], "float32")}
    with P.utils.unique_name.guard():
        params = make_params(P, init)
        opt = P.optimizer.LBFGS(parameters=list(params.values()), **LBFGS_CASES[case])

        def closure():
            opt.clear_grad()
            a, b = params["a"], params["b"]
            x = P.concat([a, P.reshape(b, [-1])])
            r = P.matmul(P.to_tensor(_LBFGS_A), x) - P.to_tensor(_LBFGS_B)
            loss = P.sum(r * r) + 0.1 * P.sum(x * x * x * x)
            loss.backward()
            return loss

        history = {name: [] for name in params}
        losses = []
        for _ in range(steps):
            losses.append(float(opt.step(closure)))
            for name, p in params.items():
                history[name].append(p.numpy().copy())
    out = {name: np.stack(values) for name, values in history.items()}
    out["loss"] = np.array(losses, "float32")
    return out
