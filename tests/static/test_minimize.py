"""optimizer.minimize in static mode: every optimizer's trajectory equals the same training in dygraph (which
the optimizer tests compare with real Paddle), with weight decay and clipping; LR schedulers per run."""
import numpy as np
import pytest

import torchpaddle as paddle

_RNG = np.random.RandomState(3)
X = _RNG.rand(16, 4).astype("float32")
Y = _RNG.rand(16, 2).astype("float32")
W = _RNG.uniform(-1, 1, (4, 2)).astype("float32")
B = _RNG.uniform(-0.1, 0.1, (2,)).astype("float32")

OPTIMIZERS = {
    "sgd": lambda p, **k: paddle.optimizer.SGD(0.1, parameters=p, **k),
    "momentum": lambda p, **k: paddle.optimizer.Momentum(0.05, momentum=0.9, use_nesterov=True, parameters=p, **k),
    "adam": lambda p, **k: paddle.optimizer.Adam(0.02, parameters=p, **k),
    "adamw": lambda p, weight_decay=0.01, **k: paddle.optimizer.AdamW(0.02, parameters=p,
                                                                     weight_decay=float(weight_decay), **k),
    "adamax": lambda p, **k: paddle.optimizer.Adamax(0.02, parameters=p, **k),
    "adagrad": lambda p, **k: paddle.optimizer.Adagrad(0.1, parameters=p, **k),
    "adadelta": lambda p, **k: paddle.optimizer.Adadelta(0.5, parameters=p, **k),
    "rmsprop": lambda p, **k: paddle.optimizer.RMSProp(0.01, centered=True, parameters=p, **k),
    "lamb": lambda p, weight_decay=0.01, **k: paddle.optimizer.Lamb(0.02, lamb_weight_decay=float(weight_decay),
                                                                   parameters=p, **k),
}
VARIANTS = {
    "plain": {},
    "decay_clip": {"weight_decay": 0.01, "grad_clip": "global"},
}


def _kwargs(variant):
    kwargs = dict(VARIANTS[variant])
    if kwargs.get("grad_clip") == "global":
        kwargs["grad_clip"] = paddle.nn.ClipGradByGlobalNorm(0.1)
    return kwargs


def _make(name, params, variant):
    kwargs = _kwargs(variant)
    if "weight_decay" in kwargs and name not in ("adamw", "lamb"):   # those two take a float decoupled decay
        kwargs["weight_decay"] = paddle.regularizer.L2Decay(kwargs["weight_decay"])
    return OPTIMIZERS[name](params, **kwargs)
    return kwargs


def _eager(name, variant, steps):
    layer = paddle.nn.Linear(4, 2)
    layer.weight.set_value(W)
    layer.bias.set_value(B)
    opt = _make(name, layer.parameters(), variant)
    losses = []
    for _ in range(steps):
        loss = paddle.nn.functional.mse_loss(layer(paddle.to_tensor(X)), paddle.to_tensor(Y))
        loss.backward()
        opt.step()
        opt.clear_grad()
        losses.append(float(loss))
    return losses, layer.weight.numpy(), layer.bias.numpy()


def _static(name, variant, steps, main, startup):
    x = paddle.static.data("x", [-1, 4], "float32")
    y = paddle.static.data("y", [-1, 2], "float32")
    layer = paddle.nn.Linear(4, 2)
    loss = paddle.nn.functional.mse_loss(layer(x), y)
    _make(name, None, variant).minimize(loss)
    exe = paddle.static.Executor(paddle.CPUPlace())
    exe.run(startup)
    scope = paddle.static.global_scope()
    scope.var(layer.weight.name).get_tensor().set(W)
    scope.var(layer.bias.name).get_tensor().set(B)
    losses = [float(exe.run(main, feed={"x": X, "y": Y}, fetch_list=[loss])[0]) for _ in range(steps)]
    return losses, np.array(scope.find_var(layer.weight.name).get_tensor()), \
        np.array(scope.find_var(layer.bias.name).get_tensor())


@pytest.mark.parametrize("variant", sorted(VARIANTS))
@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_static_trajectory_equals_eager(name, variant, static_mode):
    main, startup = static_mode
    static = _static(name, variant, 10, main, startup)
    paddle.disable_static()
    try:
        eager = _eager(name, variant, 10)
    finally:
        paddle.enable_static()
    for what, s, e in zip(("losses", "weight", "bias"), static, eager):
        np.testing.assert_allclose(s, e, rtol=1e-5, atol=1e-7, err_msg=f"{name}/{variant}: {what}")
    assert static[0][-1] < static[0][0]


def test_accumulators_are_persistable_program_state(static_mode):
    main, startup = static_mode
    x = paddle.static.data("x", [-1, 4], "float32")
    loss = paddle.mean(paddle.nn.Linear(4, 2)(x))
    paddle.optimizer.Adam(0.01).minimize(loss)
    names = {v.name for v in main.list_vars() if v.persistable}
    assert {"linear_0.w_0_moment1_0", "linear_0.w_0_moment2_0", "linear_0.w_0_beta1_pow_acc_0",
            "linear_0.b_0_beta2_pow_acc_0", "learning_rate_0"} <= names
    exe = paddle.static.Executor(paddle.CPUPlace())
    exe.run(startup)
    exe.run(main, feed={"x": X}, fetch_list=[loss])
    state = main.state_dict("opt")
    np.testing.assert_allclose(state["linear_0.w_0_beta1_pow_acc_0"].numpy(), [0.81], rtol=1e-6)
    assert "linear_0.w_0" in main.state_dict("param") and "linear_0.w_0" not in state


def test_lr_scheduler_value_is_refreshed_every_run(static_mode):
    main, startup = static_mode
    x = paddle.static.data("x", [-1, 4], "float32")
    w = paddle.static.create_parameter([4, 1], "float32", name="w",
                                       default_initializer=paddle.nn.initializer.Constant(0.0))
    loss = paddle.sum(paddle.matmul(x, w))
    scheduler = paddle.optimizer.lr.PiecewiseDecay([1, 2], [1.0, 0.5, 0.1])
    paddle.optimizer.SGD(scheduler).minimize(loss)
    exe = paddle.static.Executor(paddle.CPUPlace())
    exe.run(startup)
    ones = np.ones([1, 4], "float32")
    seen = []
    for _ in range(3):
        before = np.array(paddle.static.global_scope().find_var("w").get_tensor()).copy()
        exe.run(main, feed={"x": ones}, fetch_list=[loss])
        after = np.array(paddle.static.global_scope().find_var("w").get_tensor())
        seen.append(float((before - after)[0, 0]))   # d(loss)/dw = 1, so the step is the learning rate
        scheduler.step()
    np.testing.assert_allclose(seen, [1.0, 0.5, 0.1], rtol=1e-6)


def test_minimize_rejects_eager_loss_in_static_mode(static_mode):
    with pytest.raises(TypeError):
        paddle.optimizer.SGD(0.1).minimize("loss")


# one op per parameter with Paddle's op type (the ops themselves: tests/optimizer/test_static_optimizer_ops.py)
OP_TYPES = {"sgd": "sgd", "momentum": "momentum", "adam": "adam", "adamw": "adamw", "adamax": "adamax",
            "adagrad": "adagrad", "adadelta": "adadelta", "rmsprop": "rmsprop", "lamb": "lamb"}


@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_minimize_appends_one_paddle_op_per_parameter(name, static_mode):
    from torchpaddle.ops.registry import REGISTRY
    main, startup = static_mode
    x = paddle.static.data("x", [-1, 4], "float32")
    layer = paddle.nn.Linear(4, 2)
    ops, params_grads = _make(name, None, "plain").minimize(paddle.mean(layer(x)))
    assert [op.type for op in ops] == [OP_TYPES[name]] * 2
    assert [op.input("Param") or op.input("param") for op in ops] == [[layer.bias.name], [layer.weight.name]]
    assert {p.name for p, _ in params_grads} == {layer.weight.name, layer.bias.name}
    assert "optimizer_step" not in REGISTRY
    # the accumulators and the learning rate are persistable variables the startup program fills
    made = {n for op in startup.global_block().ops for n in op.output_arg_names}
    state = {n for op in ops for slot, names in op.inputs.items() for n in names if slot not in ("Param", "Grad")}
    assert state <= made and all(main.global_block().var(n).persistable for n in state)


def test_backward_then_apply_gradients_trains_as_minimize(static_mode):
    main, startup = static_mode
    x = paddle.static.data("x", [-1, 4], "float32")
    y = paddle.static.data("y", [-1, 2], "float32")
    layer = paddle.nn.Linear(4, 2)
    loss = paddle.nn.functional.mse_loss(layer(x), y)
    opt = _make("adam", None, "decay_clip")
    params_grads = opt.backward(loss)
    assert sorted(g.name for _, g in params_grads) == sorted(p.name + "@GRAD" for p, _ in params_grads)
    assert [op.type for op in opt.apply_gradients(params_grads)] == ["adam", "adam"]
    exe = paddle.static.Executor(paddle.CPUPlace())
    exe.run(startup)
    scope = paddle.static.global_scope()
    scope.var(layer.weight.name).get_tensor().set(W)
    scope.var(layer.bias.name).get_tensor().set(B)
    losses = [float(exe.run(main, feed={"x": X, "y": Y}, fetch_list=[loss])[0]) for _ in range(5)]
    paddle.disable_static()
    try:
        expected = _eager("adam", "decay_clip", 5)[0]
    finally:
        paddle.enable_static()
    np.testing.assert_allclose(losses, expected, rtol=1e-5)


def test_multi_precision_keeps_float32_master_weights_in_the_program(static_mode):
    main, startup = static_mode
    paddle.set_default_dtype("float16")
    try:
        x = paddle.static.data("x", [-1, 4], "float16")
        layer = paddle.nn.Linear(4, 2)
        loss = paddle.mean(paddle.square(layer(x)))
    finally:
        paddle.set_default_dtype("float32")
    ops, _ = paddle.optimizer.Adam(0.1, multi_precision=True).minimize(loss)
    master = layer.weight.name + "_fp32_master_0"
    assert main.global_block().var(master).dtype == paddle.float32
    cast = [op for op in startup.global_block().ops if op.type == "cast"]
    assert [(op.input("X"), op.output("Out")) for op in cast][-1] == ([layer.weight.name], [master])
    adam = ops[-1]
    assert adam.input("MasterParam") == adam.output("MasterParamOut") == [master] and adam.attr("multi_precision")
    assert adam.input("Moment1") == [master + "_moment1_0"]
    exe = paddle.static.Executor(paddle.CPUPlace())
    exe.run(startup)
    scope = paddle.static.global_scope()
    before = np.array(scope.find_var(master).get_tensor())
    exe.run(main, feed={"x": X.astype("float16")}, fetch_list=[loss])
    after = np.array(scope.find_var(master).get_tensor())
    assert after.dtype == np.float32 and not np.array_equal(before, after)
    # the float16 parameter is the master weight rounded
    np.testing.assert_array_equal(np.array(scope.find_var(layer.weight.name).get_tensor()), after.astype("float16"))


def test_found_inf_skips_the_adam_update(static_mode):
    main, startup = static_mode
    x = paddle.static.data("x", [-1, 4], "float32")
    found_inf = paddle.static.data("found_inf", [1], "bool")
    layer = paddle.nn.Linear(4, 2)
    loss = paddle.mean(layer(x))
    opt = paddle.optimizer.Adam(0.1)
    opt._set_auxiliary_var("found_inf", found_inf)
    ops, _ = opt.minimize(loss)
    assert all(op.input("SkipUpdate") == ["found_inf"] for op in ops)
    exe = paddle.static.Executor(paddle.CPUPlace())
    exe.run(startup)
    scope = paddle.static.global_scope()
    before = np.array(scope.find_var(layer.weight.name).get_tensor())
    exe.run(main, feed={"x": X, "found_inf": np.array([True])}, fetch_list=[loss])
    np.testing.assert_array_equal(np.array(scope.find_var(layer.weight.name).get_tensor()), before)
    exe.run(main, feed={"x": X, "found_inf": np.array([False])}, fetch_list=[loss])
    assert not np.array_equal(np.array(scope.find_var(layer.weight.name).get_tensor()), before)


def test_lbfgs_has_no_static_form(static_mode):
    x = paddle.static.data("x", [-1, 4], "float32")
    loss = paddle.mean(paddle.nn.Linear(4, 2)(x))
    with pytest.raises(NotImplementedError, match="LBFGS"):
        paddle.optimizer.LBFGS(0.1).minimize(loss)
