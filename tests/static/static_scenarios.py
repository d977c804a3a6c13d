"""Static-graph scenarios run on both real PaddlePaddle 3.3.1 (legacy programs: FLAGS_enable_pir_api=0) and
torchpaddle, then compared: losses and parameters after Executor steps, fetched ``@GRAD`` values, test clones,
optimizer and scheduler trajectories, feed errors.

Each ``s_*`` function takes the paddle module and returns plain data (NumPy arrays, lists, dicts; exceptions as
``("E", type name)``). Run inside the reference virtualenv: ``python -m tests.static.static_scenarios OUT.pkl``.
"""
import os
import pickle
import sys
import warnings

import numpy as np

warnings.filterwarnings("ignore")

_RNG = np.random.RandomState(7)
X = _RNG.uniform(-1, 1, (8, 4)).astype("float32")
LABEL = _RNG.randint(0, 3, (8, 1)).astype("int64")
Y = _RNG.uniform(-1, 1, (8, 1)).astype("float32")
W1 = _RNG.uniform(-0.5, 0.5, (4, 6)).astype("float32")
B1 = _RNG.uniform(-0.1, 0.1, (6,)).astype("float32")
W2 = _RNG.uniform(-0.5, 0.5, (6, 3)).astype("float32")
B2 = _RNG.uniform(-0.1, 0.1, (3,)).astype("float32")


def _exception(e):
    return ("E", type(e).__name__)


class _Net:
    """A 4-6-3 MLP classifier built in a fresh program pair, weights set from the arrays above."""

    def __init__(self, paddle, optimizer=None, dropout=False):
        self.paddle = paddle
        self.main, self.startup = paddle.static.Program(), paddle.static.Program()
        with paddle.utils.unique_name.guard(), paddle.static.program_guard(self.main, self.startup):
            self.x = paddle.static.data("x", [-1, 4], "float32")
            self.label = paddle.static.data("label", [-1, 1], "int64")
            self.fc1 = paddle.nn.Linear(4, 6)
            self.fc2 = paddle.nn.Linear(6, 3)
            self.hidden = paddle.nn.functional.relu(self.fc1(self.x))
            if dropout:
                self.hidden = paddle.nn.functional.dropout(self.hidden, 0.5)
            self.logits = self.fc2(self.hidden)
            self.loss = paddle.nn.functional.cross_entropy(self.logits, self.label)
            self.test_program = self.main.clone(for_test=True)
            if optimizer is not None:
                self.opt = optimizer(paddle)
                self.opt.minimize(self.loss)
        self.scope = paddle.static.Scope()
        self.exe = paddle.static.Executor(paddle.CPUPlace())
        with paddle.static.scope_guard(self.scope):
            self.exe.run(self.startup)
        for param, value in ((self.fc1.weight, W1), (self.fc1.bias, B1), (self.fc2.weight, W2), (self.fc2.bias, B2)):
            self.scope.var(param.name).get_tensor().set(value, paddle.CPUPlace())

    def run(self, fetch, program=None, feed=None):
        with self.paddle.static.scope_guard(self.scope):
            return self.exe.run(program or self.main, feed=feed or {"x": X, "label": LABEL}, fetch_list=fetch)

    def param(self, p):
        return np.array(self.scope.find_var(p.name).get_tensor())

    def params(self):
        return [self.param(p) for p in (self.fc1.weight, self.fc1.bias, self.fc2.weight, self.fc2.bias)]


def _train(paddle, optimizer, steps=5, scheduler=None):
    net = _Net(paddle, optimizer)
    losses = []
    for _ in range(steps):
        losses.append(float(net.run([net.loss])[0]))
        if scheduler is not None:
            scheduler[0].step()
    return {"losses": losses, "params": net.params()}


def s_forward_and_param_names(paddle):
    net = _Net(paddle)
    loss, logits = net.run([net.loss, net.logits])
    names = sorted(p.name for p in net.main.all_parameters())
    return {"loss": loss, "logits": logits, "names": names, "loss_shape": list(net.loss.shape),
            "logits_shape": list(net.logits.shape), "x_stop_gradient": net.x.stop_gradient,
            "hidden_stop_gradient": net.hidden.stop_gradient}


def s_append_backward_grads(paddle):
    net = _Net(paddle)
    with paddle.static.program_guard(net.main, net.startup):
        pairs = paddle.static.append_backward(net.loss)
    fetch = [net.loss] + [g for _, g in pairs] + [net.logits.name + "@GRAD", net.hidden.name + "@GRAD"]
    values = net.run(fetch)
    return {"pairs": [(p.name, g.name) for p, g in pairs], "values": values}


def s_gradients_with_target_gradients(paddle):
    net = _Net(paddle)
    with paddle.static.program_guard(net.main, net.startup):
        seed = paddle.static.data("seed", [-1, 3], "float32")
        grads = paddle.static.gradients([net.logits], [net.hidden, net.fc1.weight, net.x], target_gradients=[seed])
    if grads[2] is not None:
        return ("x has stop_gradient=True, yet gradients() returned", grads[2])
    grads = grads[:2]
    feed = {"x": X, "label": LABEL, "seed": np.linspace(-1, 1, 24, dtype="float32").reshape(8, 3)}
    return net.run(grads, feed=feed)


def s_sgd_steps(paddle):
    return _train(paddle, lambda p: p.optimizer.SGD(learning_rate=0.1))


def s_momentum_weight_decay(paddle):
    return _train(paddle, lambda p: p.optimizer.Momentum(learning_rate=0.05, momentum=0.9, weight_decay=0.01))


def s_adam_weight_decay(paddle):
    # NOTE: Paddle 3.3.1's legacy static graph fails on grad_clip (its clip code builds PIR ops), so clipping
    # is compared with eager mode only (tests/static/test_minimize.py).
    return _train(paddle, lambda p: p.optimizer.Adam(learning_rate=0.01, weight_decay=0.02))


def s_adamw(paddle):
    return _train(paddle, lambda p: p.optimizer.AdamW(learning_rate=0.01, weight_decay=0.1))


def s_rmsprop(paddle):
    return _train(paddle, lambda p: p.optimizer.RMSProp(learning_rate=0.01))


def s_step_decay_scheduler(paddle):
    holder = []

    def make(p):
        holder.append(p.optimizer.lr.StepDecay(learning_rate=0.5, step_size=2, gamma=0.5))
        return p.optimizer.SGD(learning_rate=holder[0])
    return _train(paddle, make, steps=6, scheduler=holder)


def s_test_clone(paddle):
    net = _Net(paddle, lambda p: p.optimizer.SGD(learning_rate=0.2), dropout=True)
    ops = [op.type for op in net.test_program.global_block().ops]
    first = net.run([net.loss, net.logits], program=net.test_program)
    second = net.run([net.loss, net.logits], program=net.test_program)
    return {"ops": ops, "first": first, "second": second, "train_ops": len(net.main.global_block().ops) > len(ops)}


def s_test_clone_sees_trained_params(paddle):
    net = _Net(paddle, lambda p: p.optimizer.SGD(learning_rate=0.2))
    for _ in range(3):
        net.run([net.loss])
    return {"test": net.run([net.loss, net.logits], program=net.test_program), "params": net.params()}


def s_feed_errors(paddle):
    net = _Net(paddle)
    out = {}
    for key, feed in (("dtype", {"x": X.astype("float64"), "label": LABEL}),
                      ("shape", {"x": np.ones([8, 5], "float32"), "label": LABEL})):
        try:
            net.run([net.loss], feed=feed)
            out[key] = "ran"
        except Exception as e:  # noqa: BLE001 - the type is the result
            out[key] = _exception(e)
    return out


def _outcome(fn):
    try:
        return fn()
    except Exception as e:  # noqa: BLE001 - the type is the result
        return _exception(e)


def s_fetch_list_forms(paddle):
    net = _Net(paddle)
    forms = {"variable": net.loss, "name": net.loss.name, "tuple": (net.loss, net.logits.name),
             "nested": [net.loss, (net.logits, net.hidden.name)], "none": None, "int_item": [1],
             "set": {net.loss}, "nested_int": [[net.loss, 1]], "twice_nested": [[[net.loss]]]}
    return {key: _outcome(lambda f=fetch: net.run(f)) for key, fetch in forms.items()}


def s_feed_forms(paddle):
    net = _Net(paddle)
    feed = {"x": X, "label": LABEL}
    out = {"list": net.run([net.loss], feed=[feed]), "tuple": net.run([net.loss], feed=(feed,))}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out["unknown_name"] = net.run([net.loss], feed=dict(feed, bogus=X))
        out["unknown_name_compiled"] = net.run([net.loss], program=paddle.static.CompiledProgram(net.main),
                                               feed=[dict(feed, bogus=X)])
    out["warned"] = sum(issubclass(w.category, UserWarning) and "bogus" in str(w.message) for w in caught)
    for key, bad in (("two_dicts", [feed, feed]), ("no_dict", []), ("array_in_list", [X]), ("string", "x")):
        with paddle.static.scope_guard(net.scope):
            out[key] = _outcome(lambda b=bad: net.exe.run(net.main, feed=b, fetch_list=[net.loss]))
    return out


def s_variable_cpu_and_value_errors(paddle):
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.utils.unique_name.guard(), paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [-1, 4], "float32")
        y = x.cpu()
        z = paddle.scale(y, 2.0)
    exe = paddle.static.Executor(paddle.CPUPlace())
    out = {"memcpy": [op.attr("dst_place_type") for op in main.global_block().ops if op.type == "memcpy"],
           "values": exe.run(main, feed={"x": X}, fetch_list=[y, z]), "shape_eq_tuple": y.shape == (-1, 4)}
    for key, fn in (("numpy", x.numpy), ("int", lambda: int(x)), ("float", lambda: float(x)), ("len", lambda: len(x))):
        out[key] = _outcome(fn)
    return out


SCENARIOS = {name[2:]: fn for name, fn in sorted(globals().items()) if name.startswith("s_")}


def run_scenarios(paddle, scenarios, names=None):
    """Each scenario's result (or ("E", type, message)) in static mode; dygraph again after."""
    paddle.enable_static()
    try:
        results = {}
        for name, fn in scenarios.items():
            if names is not None and name not in names:
                continue
            try:
                results[name] = fn(paddle)
            except Exception as e:  # noqa: BLE001 - recorded, compared by the test
                results[name] = ("E", type(e).__name__, str(e)[:500])
        return results
    finally:
        paddle.disable_static()


def run_all(paddle):
    return run_scenarios(paddle, SCENARIOS)


if __name__ == "__main__":
    os.environ.setdefault("FLAGS_enable_pir_api", "0")
    import paddle as _paddle
    with open(sys.argv[1], "wb") as f:
        pickle.dump({"results": run_all(_paddle)}, f)
