"""fleet.utils.recompute cases, run on real PaddlePaddle 3.3.1 (``python -m tests.compat.recompute_cases OUT.pkl``)
and on torchpaddle by test_recompute.py: outputs and gradients with fixed weights (no dropout: the two
frameworks draw different random streams), argument binding and errors."""
import sys

import numpy as np

from tests.nn.layer_case_tools import dump

_RNG = np.random.default_rng(11)
X = _RNG.uniform(-1, 1, [4, 3]).astype("float32")
W1 = _RNG.uniform(-1, 1, [3, 5]).astype("float32")
W2 = _RNG.uniform(-1, 1, [5, 2]).astype("float32")


def _block(paddle):
    net = paddle.nn.Sequential(paddle.nn.Linear(3, 5), paddle.nn.Tanh(), paddle.nn.Linear(5, 2))
    net[0].weight.set_value(W1)
    net[2].weight.set_value(W2)
    net[0].bias.set_value(np.linspace(-0.5, 0.5, 5).astype("float32"))
    net[2].bias.set_value(np.array([0.1, -0.2], "float32"))
    return net


def _grads(paddle, run, input_grad=True):
    net = _block(paddle)
    x = paddle.to_tensor(X, stop_gradient=not input_grad)
    y = run(net, x)
    (y * y).sum().backward()
    return {"out": y, "x_grad": None if x.grad is None else ("A", x.grad.numpy()),
            "param_grads": [None if p.grad is None else ("A", p.grad.numpy()) for p in net.parameters()]}


def _recompute(paddle):
    return paddle.distributed.fleet.utils.recompute


def c_plain(paddle):
    return _grads(paddle, lambda net, x: net(x))


def c_reentrant(paddle):
    return _grads(paddle, lambda net, x: _recompute(paddle)(net, x))


def c_non_reentrant(paddle):
    return _grads(paddle, lambda net, x: _recompute(paddle)(net, x, use_reentrant=False))


def c_no_preserve(paddle):
    return _grads(paddle, lambda net, x: _recompute(paddle)(net, x, preserve_rng_state=False))


def c_function_kwargs(paddle):
    def f(a, scale=2.0):
        return paddle.tanh(a) * scale
    return _grads(paddle, lambda net, x: _recompute(paddle)(f, net(x), scale=3.0))


def c_input_without_grad(paddle):
    net = _block(paddle)
    x = paddle.to_tensor(X)
    return [_recompute(paddle)(net, x).stop_gradient, _recompute(paddle)(net, x, use_reentrant=False).stop_gradient]


def c_keyword_only_error(paddle):
    def f(a, *, b):
        return a * b
    x = paddle.to_tensor(X, stop_gradient=False)
    return _recompute(paddle)(f, x, b=x)


def c_sequential(paddle, segments=1):
    # NOTE: Paddle 3.3.1 fails for segments > 1 (it unpacks a segment's output Tensor as arguments)
    net = _block(paddle)
    x = paddle.to_tensor(X, stop_gradient=False)
    y = paddle.distributed.fleet.recompute.recompute_sequential({"segments": segments}, net, x)
    (y * y).sum().backward()
    return {"out": y, "x_grad": ("A", x.grad.numpy()),
            "param_grads": [("A", p.grad.numpy()) for p in net.parameters()]}


def c_module_layout(paddle):
    fleet = paddle.distributed.fleet
    module = fleet.recompute
    return [type(module).__name__, fleet.utils.recompute.__name__, module.recompute.__name__,
            sorted(n for n in ("recompute", "recompute_sequential", "recompute_hybrid") if hasattr(module, n))]


CASES = {name[2:]: fn for name, fn in sorted(globals().items()) if name.startswith("c_")}


if __name__ == "__main__":
    dump(CASES, sys.argv[1])
