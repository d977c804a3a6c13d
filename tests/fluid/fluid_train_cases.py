"""Paddle 1.x-style training scripts and optimizer trajectories, run on real PaddlePaddle 1.8.5
(``python -m tests.fluid.fluid_train_cases OUT.pkl`` in .fluid_venv) and on torchpaddle by
test_fluid_optimizer.py. Written for Python 3.8 and numpy<1.20; each case gets ``paddle`` and builds in
static mode (the default of Paddle 1.8; test_fluid_optimizer enters it for torchpaddle)."""
import sys

import numpy as np

from tests.nn.layer_case_tools import dump

STEPS = 4


def _rng(seed):
    return np.random.RandomState(seed)


# -- adapters: fluid.layers functions that another part of torchpaddle may not provide yet --------------------
def _fc(paddle, x, size, act=None, w=None, b=0.1, name=None):
    fluid = paddle.fluid
    weight = fluid.ParamAttr(initializer=fluid.initializer.NumpyArrayInitializer(w)) if w is not None else None
    bias = fluid.ParamAttr(initializer=fluid.initializer.Constant(b))
    if hasattr(fluid.layers, "fc"):
        return fluid.layers.fc(x, size, act=act, param_attr=weight, bias_attr=bias, name=name)
    return paddle.static.nn.fc(x, size, weight_attr=weight, bias_attr=bias, activation=act, name=name)


def _mean(paddle, x):
    layers = paddle.fluid.layers
    return layers.mean(x) if hasattr(layers, "mean") else paddle.mean(x)


def _square_error_cost(paddle, x, y):
    layers = paddle.fluid.layers
    if hasattr(layers, "square_error_cost"):
        return layers.square_error_cost(x, y)
    return paddle.nn.functional.square_error_cost(x, y)


def _cross_entropy(paddle, prob, label):
    layers = paddle.fluid.layers
    if hasattr(layers, "cross_entropy"):
        return layers.cross_entropy(prob, label)
    return paddle.nn.functional.cross_entropy(prob, label, use_softmax=False, reduction="none")


def _names(program):
    """Parameter names and the other persistable variables' names (accumulators, learning rate)."""
    block = program.global_block()
    params = sorted(p.name for p in block.all_parameters())
    persistable = sorted(v.name for v in program.list_vars() if v.persistable and v.name not in params
                         and v.name not in ("feed", "fetch"))
    return params, persistable


def _train(paddle, build, feeds, steps=STEPS):
    """Build with ``build(fluid) -> (loss, fetches)`` in fresh programs, run the startup program and ``steps``
    steps; -> losses, fetched params after training, names."""
    fluid = paddle.fluid
    main, startup = fluid.Program(), fluid.Program()
    scope = fluid.Scope()
    with fluid.scope_guard(scope), fluid.unique_name.guard():
        with fluid.program_guard(main, startup):
            loss, watch = build(fluid)
        exe = fluid.Executor(fluid.CPUPlace())
        exe.run(startup)
        losses = []
        for i in range(steps):
            out = exe.run(main, feed=feeds(i), fetch_list=[loss] + list(watch))
            losses.append(np.array(out[0]).reshape(-1))
        final = [np.array(scope.find_var(name).get_tensor()) for name in _names(main)[0]]
    return {"losses": ("A", np.array(losses)), "params": [("A", v) for v in final], "names": _names(main)}


# -- the 1.x scripts -------------------------------------------------------------------------------------
def c_fit_a_line(paddle):
    rng = _rng(1)
    w = rng.uniform(-0.3, 0.3, (13, 1)).astype("float32")
    xs = rng.uniform(-1, 1, (STEPS, 8, 13)).astype("float32")
    ys = (xs.dot(rng.uniform(-1, 1, (13, 1))) + 0.5).astype("float32")

    def build(fluid):
        x = fluid.layers.data(name="x", shape=[13], dtype="float32")
        y = fluid.layers.data(name="y", shape=[1], dtype="float32")
        pred = _fc(paddle, x, 1, w=w)
        avg = _mean(paddle, _square_error_cost(paddle, pred, y))
        fluid.optimizer.SGD(learning_rate=0.05).minimize(avg)
        return avg, []
    return _train(paddle, build, lambda i: {"x": xs[i], "y": ys[i]})


def c_mnist_mlp(paddle):
    rng = _rng(2)
    w1 = rng.uniform(-0.2, 0.2, (64, 32)).astype("float32")
    w2 = rng.uniform(-0.2, 0.2, (32, 10)).astype("float32")
    xs = rng.uniform(0, 1, (STEPS, 16, 1, 8, 8)).astype("float32")
    labels = rng.randint(0, 10, (STEPS, 16, 1)).astype("int64")

    def build(fluid):
        img = fluid.data(name="img", shape=[None, 1, 8, 8], dtype="float32")
        label = fluid.data(name="label", shape=[None, 1], dtype="int64")
        hidden = _fc(paddle, img, 32, act="relu", w=w1)
        prediction = _fc(paddle, hidden, 10, act="softmax", w=w2)
        avg = _mean(paddle, _cross_entropy(paddle, prediction, label))
        # Momentum, not Adam: Adam turns the ~1e-5 gradients of nearly dead ReLU units into full steps, which
        # amplifies float noise beyond any tolerance (Adam itself is checked on the regression below)
        fluid.optimizer.Momentum(learning_rate=0.1, momentum=0.9).minimize(avg)
        return avg, []
    return _train(paddle, build, lambda i: {"img": xs[i], "label": labels[i]})


# -- one optimizer at a time on a small regression --------------------------------------------------------
OPTIMIZERS = {
    "sgd": lambda o: o.SGD(learning_rate=0.1),
    "sgd_l2": lambda o, f: o.SGDOptimizer(learning_rate=0.1, regularization=f.regularizer.L2Decay(0.05)),
    "sgd_l1": lambda o, f: o.SGD(learning_rate=0.1, regularization=f.regularizer.L1DecayRegularizer(0.05)),
    "momentum": lambda o: o.Momentum(learning_rate=0.1, momentum=0.9),
    "momentum_nesterov": lambda o: o.MomentumOptimizer(0.1, 0.8, use_nesterov=True),
    "adagrad": lambda o: o.Adagrad(learning_rate=0.2, initial_accumulator_value=0.1),
    "adam": lambda o: o.Adam(learning_rate=0.05, beta1=0.8),
    "adam_epsilon": lambda o: o.Adam(learning_rate=0.05, epsilon=0.01),
    "adam_clip": lambda o, f: o.Adam(learning_rate=0.05, grad_clip=f.clip.GradientClipByGlobalNorm(0.5)),
    "adamax": lambda o: o.Adamax(learning_rate=0.05),
    "decayed_adagrad": lambda o: o.DecayedAdagrad(learning_rate=0.1, decay=0.9),
    "adadelta": lambda o: o.Adadelta(learning_rate=1.0, rho=0.9),
    "rmsprop": lambda o: o.RMSPropOptimizer(learning_rate=0.05, momentum=0.5),
    "rmsprop_centered": lambda o: o.RMSPropOptimizer(learning_rate=0.05, centered=True),
    "ftrl": lambda o: o.Ftrl(learning_rate=0.1, l1=0.01, l2=0.02),
    "ftrl_power": lambda o: o.FtrlOptimizer(learning_rate=0.1, l1=0.0, l2=0.01, lr_power=-0.6),
    "lamb": lambda o: o.LambOptimizer(learning_rate=0.05),
    "lars": lambda o: o.LarsMomentum(learning_rate=0.5, momentum=0.9, lars_weight_decay=0.001),
    "clip_value": lambda o, f: o.SGD(learning_rate=0.1, grad_clip=f.clip.GradientClipByValue(0.05)),
    "clip_norm": lambda o, f: o.Momentum(0.1, 0.9, grad_clip=f.clip.GradientClipByNorm(0.1)),
    "clip_need_clip": lambda o, f: o.SGD(0.1, grad_clip=f.clip.GradientClipByGlobalNorm(
        0.05, need_clip=lambda param: param.name.endswith(".w_0"))),
}


def _make(fluid, name):
    factory = OPTIMIZERS[name]
    return factory(fluid.optimizer) if factory.__code__.co_argcount == 1 else factory(fluid.optimizer, fluid)


def _optimizer_case(name):
    def case(paddle):
        rng = _rng(3)
        w = rng.uniform(-0.5, 0.5, (5, 3)).astype("float32")
        xs = rng.uniform(-1, 1, (STEPS, 6, 5)).astype("float32")
        ys = rng.uniform(-1, 1, (STEPS, 6, 3)).astype("float32")

        def build(fluid):
            x = fluid.data(name="x", shape=[None, 5], dtype="float32")
            y = fluid.data(name="y", shape=[None, 3], dtype="float32")
            avg = _mean(paddle, _square_error_cost(paddle, _fc(paddle, x, 3, w=w), y))
            _make(fluid, name).minimize(avg)
            return avg, []
        return _train(paddle, build, lambda i: {"x": xs[i], "y": ys[i]})
    return case


for _name in OPTIMIZERS:
    globals()["c_opt_" + _name] = _optimizer_case(_name)


def c_lr_variable(paddle):
    """A learning rate given as a Variable (what fluid.layers' decay functions return)."""
    rng = _rng(4)
    w = rng.uniform(-0.5, 0.5, (5, 3)).astype("float32")
    xs = rng.uniform(-1, 1, (STEPS, 6, 5)).astype("float32")

    def build(fluid):
        x = fluid.data(name="x", shape=[None, 5], dtype="float32")
        lr = fluid.layers.create_global_var(shape=[1], value=0.2, dtype="float32", persistable=True,
                                            name="my_lr")
        avg = _mean(paddle, _fc(paddle, x, 3, w=w))
        fluid.optimizer.Momentum(learning_rate=lr, momentum=0.5).minimize(avg)
        return avg, []
    return _train(paddle, build, lambda i: {"x": xs[i]})


def c_set_gradient_clip(paddle):
    rng = _rng(5)
    w = rng.uniform(-0.5, 0.5, (5, 3)).astype("float32")
    xs = rng.uniform(-1, 1, (STEPS, 6, 5)).astype("float32")

    def build(fluid):
        x = fluid.data(name="x", shape=[None, 5], dtype="float32")
        avg = _mean(paddle, _fc(paddle, x, 3, w=w, b=0.0) * 3.0)
        fluid.clip.set_gradient_clip(fluid.clip.GradientClipByValue(0.1, -0.1))
        fluid.optimizer.SGD(learning_rate=1.0).minimize(avg)
        return avg, []
    return _train(paddle, build, lambda i: {"x": xs[i]})


def _regression(paddle, seed=6):
    rng = _rng(seed)
    w1 = rng.uniform(-0.5, 0.5, (5, 4)).astype("float32")
    w2 = rng.uniform(-0.5, 0.5, (4, 1)).astype("float32")
    xs = rng.uniform(-1, 1, (6, 8, 5)).astype("float32")
    ys = rng.uniform(-1, 1, (6, 8, 1)).astype("float32")

    def net(fluid):
        x = fluid.data(name="x", shape=[None, 5], dtype="float32")
        y = fluid.data(name="y", shape=[None, 1], dtype="float32")
        hidden = _fc(paddle, x, 4, act="tanh", w=w1)
        pred = _fc(paddle, hidden, 1, w=w2)
        return pred, hidden, _mean(paddle, _square_error_cost(paddle, pred, y))
    return net, lambda i: {"x": xs[i % 6], "y": ys[i % 6]}


def c_lookahead(paddle):
    net, feeds = _regression(paddle)

    def build(fluid):
        pred, hidden, avg = net(fluid)
        fluid.optimizer.LookaheadOptimizer(fluid.optimizer.SGD(learning_rate=0.2), alpha=0.4, k=2).minimize(avg)
        return avg, []
    return _train(paddle, build, feeds, steps=5)


def c_recompute(paddle):
    net, feeds = _regression(paddle)

    def build(fluid):
        pred, hidden, avg = net(fluid)
        opt = fluid.optimizer.RecomputeOptimizer(fluid.optimizer.Momentum(learning_rate=0.2, momentum=0.5))
        opt._set_checkpoints([hidden])
        opt.minimize(avg)
        return avg, []
    return _train(paddle, build, feeds, steps=4)


def _averaging(paddle, make_average, steps):
    """Train with an averaging wrapper; -> losses, predictions with the averages applied, then restored."""
    fluid = paddle.fluid
    net, feeds = _regression(paddle)
    main, startup = fluid.Program(), fluid.Program()
    scope = fluid.Scope()
    with fluid.scope_guard(scope), fluid.unique_name.guard():
        with fluid.program_guard(main, startup):
            pred, hidden, avg = net(fluid)
            test_program = main.clone(for_test=True)
            fluid.optimizer.SGD(learning_rate=0.3).minimize(avg)
            average = make_average(fluid)
        exe = fluid.Executor(fluid.CPUPlace())
        exe.run(startup)
        losses = [exe.run(main, feed=feeds(i), fetch_list=[avg])[0] for i in range(steps)]
        plain = exe.run(test_program, feed=feeds(0), fetch_list=[pred])[0]
        with average.apply(exe):
            applied = exe.run(test_program, feed=feeds(0), fetch_list=[pred])[0]
        restored = exe.run(test_program, feed=feeds(0), fetch_list=[pred])[0]
    return {"losses": ("A", np.array(losses)), "params": [("A", plain), ("A", applied), ("A", restored)],
            "names": _names(main)}


def c_exponential_moving_average(paddle):
    def make(fluid):
        ema = fluid.optimizer.ExponentialMovingAverage(0.8)
        ema.update()
        return ema
    return _averaging(paddle, make, 5)


def c_exponential_moving_average_thres_steps(paddle):
    def make(fluid):
        step = fluid.layers.autoincreased_step_counter(counter_name="ema_steps", begin=1)
        ema = fluid.optimizer.ExponentialMovingAverage(0.99, thres_steps=step)
        ema.update()
        return ema
    return _averaging(paddle, make, 4)


def c_exponential_moving_average_float_thres_steps(paddle):
    def make(fluid):
        step = fluid.layers.autoincreased_step_counter(counter_name="ema_steps", begin=1)
        ema = fluid.optimizer.ExponentialMovingAverage(0.99, thres_steps=fluid.layers.cast(step, "float32"))
        ema.update()
        return ema
    return _averaging(paddle, make, 4)


def c_model_average(paddle):
    return _averaging(paddle, lambda fluid: fluid.optimizer.ModelAverage(0.5, min_average_window=2,
                                                                          max_average_window=3), 7)


def c_dygraph_lr_decay(paddle):
    """Dygraph: a fluid step decay advances once per minimize; current_step_lr reports the rate just used."""
    fluid = paddle.fluid
    with fluid.dygraph.guard():
        linear = fluid.dygraph.Linear(2, 1, param_attr=fluid.ParamAttr(initializer=fluid.initializer.Constant(0.5)))
        opt = fluid.optimizer.Momentum(learning_rate=fluid.dygraph.PiecewiseDecay([2, 4], [1.0, 0.1, 0.01], 0),
                                       momentum=0.5, parameter_list=linear.parameters())
        out = [round(float(opt.current_step_lr()), 6)]
        for _ in range(6):
            loss = fluid.layers.reduce_mean(linear(fluid.dygraph.to_variable(np.ones([1, 2], "float32"))))
            loss.backward()
            opt.minimize(loss)
            linear.clear_gradients()
            out.append((round(float(opt.current_step_lr()), 6), round(float(linear.weight.numpy()[0, 0]), 5)))
        return out


def c_errors(paddle):
    """Bad constructor arguments: fluid's error types."""
    fluid = paddle.fluid
    out = []
    for make in [lambda: fluid.optimizer.SGD(learning_rate="0.1"),
                 lambda: fluid.optimizer.Momentum(learning_rate=0.1, momentum=None),
                 lambda: fluid.optimizer.Adam(learning_rate=None)]:
        try:
            make()
            out.append("ok")
        except Exception as e:  # noqa: BLE001 - the type is the result
            out.append(type(e).__name__)
    return out


CASES = {name[2:]: fn for name, fn in sorted(globals().items()) if name.startswith("c_")}


if __name__ == "__main__":
    dump(CASES, sys.argv[1])
