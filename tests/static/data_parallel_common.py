"""Programs and NumPy references shared by the CompiledProgram and ParallelExecutor tests."""
import numpy as np

import torchpaddle as paddle

RNG = np.random.RandomState(7)
X = RNG.rand(8, 4).astype("float32")
Y = RNG.rand(8, 2).astype("float32")
W = RNG.uniform(-1, 1, (4, 2)).astype("float32")
B = RNG.uniform(-0.1, 0.1, (2,)).astype("float32")
LR = 0.1


def linear_program(optimizer=None, test_clone=False):
    """``loss = mean((x @ W + b - y) ** 2)`` in fresh programs; returns (main, startup, loss, [w, b], test)."""
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [-1, 4], "float32")
        y = paddle.static.data("y", [-1, 2], "float32")
        pred = paddle.static.nn.fc(x, 2)
        loss = paddle.mean((pred - y) ** 2)
        test = main.clone(for_test=True) if test_clone else None
        if optimizer is not False:
            (optimizer or paddle.optimizer.SGD(LR)).minimize(loss)
    params = [p.name for p in main.all_parameters()]
    return main, startup, loss, params, test


def mlp_program(optimizer):
    """A 4-16-2 ReLU MLP with a mean squared error loss; returns (main, startup, loss)."""
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [-1, 4], "float32")
        y = paddle.static.data("y", [-1, 2], "float32")
        hidden = paddle.static.nn.fc(x, 16, activation="relu")
        loss = paddle.mean((paddle.static.nn.fc(hidden, 2) - y) ** 2)
        optimizer.minimize(loss)
    return main, startup, loss


def start(startup, scope, values=None):
    """Run ``startup`` in ``scope`` and overwrite parameters with ``values`` ({name: array})."""
    exe = paddle.static.Executor(paddle.CPUPlace())
    exe.run(startup, scope=scope)
    for name, value in (values or {}).items():
        scope.var(name).get_tensor().set(value, paddle.CPUPlace())
    return exe


def values_of(scope, names):
    return {n: np.array(scope.find_var(n).get_tensor()) for n in names}


def linear_grads(x, y, w, b):
    """Loss and gradients of mean((x @ w + b - y) ** 2) in float64."""
    x, y, w, b = (np.asarray(a, np.float64) for a in (x, y, w, b))
    r = x @ w + b - y
    scale = 2.0 / r.size
    return float((r ** 2).mean()), scale * x.T @ r, scale * r.sum(0)
