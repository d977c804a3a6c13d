""".pdopt interop runs, executable with real Paddle or torchpaddle (``P``).

A run trains HALF steps, captures the optimizer's state_dict, then trains HALF more. ``resume`` runs start
from given parameter values and a loaded state_dict instead. Names are created under a fresh unique-name
guard, so accumulators are ``w_moment1_0`` etc. on both sides.
"""
import io
import sys

import numpy as np

import optim_scenarios as S

INTEROP = ["adam", "momentum", "sgd_bf16", "adamw", "adamax", "adagrad", "adadelta", "rmsprop", "lamb"]
# The other optimizers of the issue, each with the options that add state (class name, kwargs).
_MORE = {"adamw": ("AdamW", {"learning_rate": 0.05, "weight_decay": 0.1, "amsgrad": True}),
         "adamax": ("Adamax", {"learning_rate": 0.05, "weight_decay": 0.01}),
         "adagrad": ("Adagrad", {"learning_rate": 0.1, "initial_accumulator_value": 0.1}),
         "adadelta": ("Adadelta", {"learning_rate": 1.0, "rho": 0.9}),
         "rmsprop": ("RMSProp", {"learning_rate": 0.01, "momentum": 0.5, "centered": True}),
         "lamb": ("Lamb", {"learning_rate": 0.05, "lamb_weight_decay": 0.02})}
HALF = 5
_COEF = np.array([0.5, -1.0, 2.0], dtype="float32")


def _params(P, case, start=None):
    init = S._data()[0] if start is None else start
    if case == "sgd_bf16":
        base = init["b"]
        if S.is_torchpaddle(P):
            p = P.Parameter(P.to_tensor(np.asarray(base, dtype="float32")).astype("bfloat16"), name="b")
        else:
            p = P.create_parameter([3], "bfloat16", name="b",
                                   default_initializer=P.nn.initializer.Assign(np.asarray(base, "float32")))
        return {"b": p}
    return S.make_params(P, init)


def _optimizer(P, case, params):
    plist = list(params.values())
    if case == "adam":
        sched = P.optimizer.lr.StepDecay(0.05, step_size=2, gamma=0.5)
        return P.optimizer.Adam(sched, beta1=0.85, parameters=plist, weight_decay=0.01), sched
    if case in _MORE:
        cls_name, kwargs = _MORE[case]
        return getattr(P.optimizer, cls_name)(parameters=plist, **kwargs), None
    if case == "momentum":
        return P.optimizer.Momentum(0.1, momentum=0.9, use_nesterov=True, parameters=plist,
                                    weight_decay=P.regularizer.L1Decay(0.01)), None
    return P.optimizer.SGD(0.1, parameters=plist, multi_precision=True), None


def _step(P, case, params, opt, sched, x, target):
    if case == "sgd_bf16":
        loss = P.sum(params["b"].astype("float32") * P.to_tensor(_COEF))
    else:
        loss = S.loss_of(P, params, x, target)
    loss.backward()
    opt.step()
    opt.clear_grad()
    if sched is not None:
        sched.step()


def _values(params):
    return {name: p.astype("float32").numpy().copy() for name, p in params.items()}


def _train(P, case, params, opt, sched, steps):
    _, x, target = S._data()
    x, target = P.to_tensor(x), P.to_tensor(target)
    history = {name: [] for name in params}
    for _ in range(steps):
        _step(P, case, params, opt, sched, x, target)
        for name, value in _values(params).items():
            history[name].append(value)
    return {name: np.stack(v) for name, v in history.items()}


def run_interop(P, case):
    """-> (state_dict after HALF steps, saved as bytes-safe copy; first-half and second-half trajectories)."""
    with P.utils.unique_name.guard():
        params = _params(P, case)
        opt, sched = _optimizer(P, case, params)
        first = _train(P, case, params, opt, sched, HALF)
        buffer = io.BytesIO()
        P.save(opt.state_dict(), buffer)
        buffer.seek(0)
        state = P.load(buffer)
        second = _train(P, case, params, opt, sched, HALF)
    return state, first, second


def resume(P, case, start, state):
    """Parameters from ``start`` (name -> array), optimizer state from ``state``; -> HALF-step trajectory."""
    with P.utils.unique_name.guard():
        params = _params(P, case, start)
        opt, sched = _optimizer(P, case, params)
        opt.set_state_dict(state)
        return _train(P, case, params, opt, sched, HALF)


def main():
    """Reference side of "torchpaddle writes, Paddle reads": for each case, <dir>/<case>.pdopt and
    <dir>/<case>_start.npz in, <dir>/<case>_out.npz (the HALF-step trajectory) out."""
    import paddle
    folder = sys.argv[1]
    for case in INTEROP:
        start = dict(np.load(f"{folder}/{case}_start.npz"))
        trajectory = resume(paddle, case, start, paddle.load(f"{folder}/{case}.pdopt"))
        np.savez(f"{folder}/{case}_out.npz", **trajectory)


if __name__ == "__main__":
    main()
