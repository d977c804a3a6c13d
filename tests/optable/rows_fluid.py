"""Rows for the legacy ops fluid.layers emit (ops/defs/fluid_ops.py): mean, cross_entropy, cross_entropy2, cvm,
soft_relu. Paddle 3.3.1's Python API cannot call them, so they are checked against NumPy here and against
Paddle 1.8.5 in tests/fluid/test_fluid_layers.py."""
import numpy as np

from .core import FLOATS, Err, OpCase, Sample, T


def _probabilities(rng, n, k):
    p = rng.uniform(0.1, 1.0, size=(n, k))
    return T(p / p.sum(-1, keepdims=True))


def _hard(p, label, ignore_index=-100):
    picked = np.take_along_axis(p, np.where(label == ignore_index, 0, label), axis=-1)
    return np.where(label == ignore_index, 0.0, -np.log(picked))


def _soft(p, label, soft_label=True, ignore_index=-100):
    return -(label * np.log(p)).sum(-1, keepdims=True)


def _cvm(x, cvm, use_cvm=True):
    if not use_cvm:
        return x[:, 2:]
    show = np.log1p(x[:, :1])
    return np.concatenate([show, np.log1p(x[:, 1:2]) - show, x[:, 2:]], axis=1)


def _soft_relu(x, threshold=40.0):
    return np.log1p(np.exp(np.clip(x, -threshold, threshold)))


def _unique_first_seen(x, dtype="int32"):
    values, first, inverse = np.unique(x, return_index=True, return_inverse=True)
    order = np.argsort(first)
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    return values[order], rank[inverse].astype(dtype)


_LABELS = T(np.array([[0], [2], [1], [2]]), dtype="int64")

OPS = [
    OpCase("fluid_mean", "fluid.layers.mean", lambda x: np.asarray(x.mean()).reshape(1),
           lambda rng, dtype: [Sample((T(rng.uniform(-2, 2, size=s)),)) for s in ((3, 4), (5,), (2, 1, 3))],
           FLOATS, conformance=False,
           errors=(Err((T(np.ones((2, 2)), dtype="int64"),), exc=TypeError, note="integer input"),
                   Err(([1.0, 2.0],), exc=TypeError, note="a list is not a Variable"),
                   Err((np.ones(3),), exc=TypeError, note="an array is not a Variable"))),
    OpCase("fluid_cross_entropy_hard", "fluid.layers.cross_entropy", _hard,
           lambda rng, dtype: [Sample((_probabilities(rng, 4, 3), _LABELS)),
                               Sample((_probabilities(rng, 4, 3), _LABELS), {"ignore_index": 2})],
           FLOATS, conformance=False,
           errors=(Err((T(np.full((2, 3), 0.3)), T(np.array([[0], [5]]), dtype="int64")), exc=IndexError,
                       note="label out of range"),
                   Err((T(np.full((2, 3), 0.3)), T(np.array([0, 1, 2]), dtype="int64")), exc=ValueError,
                       note="label shape"),
                   Err((T(np.ones((2, 3)), dtype="int64"), T(np.array([[0], [1]]), dtype="int64")), exc=TypeError,
                       note="integer probabilities"))),
    OpCase("fluid_cross_entropy_soft", "fluid.layers.cross_entropy", _soft,
           lambda rng, dtype: [Sample((_probabilities(rng, 4, 3), T(rng.uniform(0, 1, size=(4, 3)), grad=False)),
                                      {"soft_label": True})],
           FLOATS, conformance=False,
           errors=(Err((T(np.full((2, 3), 0.3)), T(np.full((2, 4), 0.3))), {"soft_label": True}, exc=ValueError,
                       note="soft label shape"),
                   Err((T(np.full((2, 3), 0.3)), [0.3, 0.7]), {"soft_label": True}, exc=TypeError),
                   Err(([0.3, 0.7], T(np.full((2, 3), 0.3))), {"soft_label": True}, exc=TypeError))),
    # cvm's gradient of the show/click columns is the CVM input (Paddle 1.x), not the derivative: no
    # finite-difference check; tests/fluid compares it with Paddle 1.8.5
    OpCase("fluid_cvm", "fluid.layers.continuous_value_model", _cvm,
           lambda rng, dtype: [Sample((T(rng.uniform(0, 3, size=(3, 5))), T(rng.uniform(0, 1, size=(3, 2))))),
                               Sample((T(rng.uniform(0, 3, size=(3, 5))), T(rng.uniform(0, 1, size=(3, 2)))),
                                      {"use_cvm": False})],
           FLOATS, grad=False, conformance=False,
           errors=(Err((T(np.ones(3)), T(np.ones((1, 2)))), exc=ValueError, note="1-D input"),
                   Err((np.ones((2, 3)), T(np.ones((2, 2)))), exc=TypeError),
                   Err((T(np.ones((2, 3))), None), exc=TypeError, note="no cvm"))),
    # the legacy unique (is_sorted=False): values in order of first appearance
    OpCase("fluid_unique", "fluid.layers.unique", _unique_first_seen,
           lambda rng, dtype: [Sample((T(np.array([2, 3, 3, 1, 5, 3])),)),
                               Sample((T(rng.integers(-4, 4, size=12)),), {"dtype": "int64"})],
           ("int64", "int32", "float64"), grad=False, conformance=False,
           errors=(Err((T(np.ones((2, 2))),), exc=ValueError, note="2-D input"),
                   Err((T(np.ones(3)),), {"dtype": "float32"}, exc=TypeError),
                   Err(([1, 2],), exc=TypeError, note="a list is not a Variable"))),
    OpCase("fluid_soft_relu", "fluid.layers.soft_relu", _soft_relu,
           lambda rng, dtype: [Sample((T(rng.uniform(-2, 2, size=(3, 4))),)),
                               Sample((T(rng.uniform(-2, 2, size=(5,))),), {"threshold": 10.0})],
           FLOATS, conformance=False,
           errors=(Err((np.ones(3),), exc=TypeError), Err(([1.0],), exc=TypeError),
                   Err((None,), exc=TypeError))),
]
