"""Eager overhead: tiny ops where the time is framework dispatch, not arithmetic.

Written once against the Paddle API; every backend runs this exact code. Inputs stop gradient (Paddle's
default), so no autograd graph is recorded.
"""
import numpy as np

from . import workload

_BASIC = ("to_tensor",)


def _inputs(paddle, *shapes, scale=1.0, seed=0):
    rng = np.random.RandomState(seed)
    return [paddle.to_tensor((rng.standard_normal(s) * scale).astype("float32")) for s in shapes]


@workload("add_16x16", group="eager_overhead", ops=1, requires=_BASIC + ("add",))
def add_small(paddle):
    """paddle.add on two [16, 16] float32 tensors."""
    x, y = _inputs(paddle, [16, 16], [16, 16])

    def run(n):
        for _ in range(n):
            out = paddle.add(x, y)
        return out
    return run


@workload("add_op_16x16", group="eager_overhead", ops=1, requires=_BASIC)
def add_operator(paddle):
    """x + y (Tensor.__add__) on two [16, 16] float32 tensors."""
    x, y = _inputs(paddle, [16, 16], [16, 16])

    def run(n):
        for _ in range(n):
            out = x + y
        return out
    return run


@workload("matmul_64x64", group="eager_overhead", ops=1, requires=_BASIC + ("matmul",))
def matmul_small(paddle):
    """paddle.matmul of two [64, 64] float32 tensors."""
    x, y = _inputs(paddle, [64, 64], [64, 64], scale=0.125)

    def run(n):
        for _ in range(n):
            out = paddle.matmul(x, y)
        return out
    return run


_CHAIN_API = ("add", "multiply", "subtract", "tanh", "exp", "matmul", "transpose", "reshape", "mean")


@workload("chain20_16x16", group="eager_overhead", ops=20, requires=_BASIC + _CHAIN_API)
def chain20(paddle):
    """20 small ops on [16, 16] (add, mul, sub, tanh, exp, matmul, transpose, reshape, mean, operators)."""
    x, y, w = _inputs(paddle, [16, 16], [16, 16], [16, 16], scale=0.5)

    def run(n):
        for _ in range(n):
            h = paddle.add(x, y)                          # 1
            h = paddle.multiply(h, y)                     # 2
            h = paddle.tanh(h)                            # 3
            h = paddle.matmul(h, w)                       # 4
            h = paddle.transpose(h, [1, 0])               # 5
            h = paddle.subtract(h, x)                     # 6
            h = paddle.exp(paddle.tanh(h))                # 7, 8
            h = paddle.reshape(h, [8, 32])                # 9
            h = h * 0.5                                   # 10
            h = paddle.reshape(h, [16, 16])               # 11
            h = h + x                                     # 12
            h = paddle.matmul(h, w)                       # 13
            m = paddle.mean(h, axis=1, keepdim=True)      # 14
            h = paddle.subtract(h, m)                     # 15
            h = h * h                                     # 16
            h = paddle.tanh(h)                            # 17
            h = paddle.transpose(h, [1, 0])               # 18
            h = paddle.add(h, y)                          # 19
            out = paddle.mean(h)                          # 20
        return out
    return run
