"""Rows for the losses Paddle composes in Python (poisson/gaussian NLL, margin and embedding losses, triplet
losses) in nn/functional/loss_extra.py."""
import math

import numpy as np

from .core import FLOATS, Err, OpCase, Sample, T

_REDUCTIONS = ("mean", "sum", "none")


def _f(name):
    return "nn.functional." + name


def _u(rng, *shape, low=-2.0, high=2.0, **kw):
    return T(rng.uniform(low, high, size=shape), **kw)


def _ones(*shape):
    return T(np.ones(shape))


def _reduce(loss, reduction):
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss


def _log_sigmoid(x):
    return -np.logaddexp(0, -x)


def _pairwise(x, y, p=2.0, epsilon=1e-6, keepdim=False):
    d = x - y + epsilon
    return (np.abs(d) ** p).sum(-1, keepdims=keepdim) ** (1 / p)


def _poisson(input, label, log_input=True, full=False, epsilon=1e-8, reduction="mean"):
    loss = np.exp(input) - label * input if log_input else input - label * np.log(input + epsilon)
    if full:
        safe = np.where(label > 1, label, 2)
        loss = loss + np.where(label > 1, safe * np.log(safe) - safe + 0.5 * np.log(2 * math.pi * safe), 0)
    return _reduce(loss, reduction)


def _gaussian(input, label, variance, full=False, epsilon=1e-6, reduction="mean"):
    if variance.shape != input.shape and variance.shape == input.shape[:-1]:
        variance = variance[..., None]
    variance = np.maximum(variance, epsilon)
    loss = 0.5 * (np.log(variance) + (input - label) ** 2 / variance)
    return _reduce(loss + (0.5 * math.log(2 * math.pi) if full else 0), reduction)


def _soft_margin(input, label, reduction="mean"):
    return _reduce(np.log1p(np.exp(-label * input)), reduction)


def _hinge(input, label, margin=1.0, reduction="mean"):
    return _reduce(np.where(label == 1, input, 0) + np.where(label == -1, np.maximum(margin - input, 0), 0), reduction)


def _cosine_embedding(input1, input2, label, margin=0, reduction="mean"):
    cos = (input1 * input2).sum(-1) / np.sqrt(((input1 ** 2).sum(-1) + 1e-11) * ((input2 ** 2).sum(-1) + 1e-11))
    out = np.where(label == 1, 1 - cos, 0) + np.where(label == -1, np.maximum(cos - margin, 0), 0)
    return _reduce(out, reduction)


def _multi_label_soft_margin(input, label, weight=None, reduction="mean"):
    loss = -(label * _log_sigmoid(input) + (1 - label) * _log_sigmoid(-input))
    return _reduce((loss if weight is None else loss * weight).mean(-1), reduction)


def _multi_label_margin(input, label, reduction="mean"):
    n, c = input.shape
    out = np.zeros(n)
    for r in range(n):
        targets = []
        for v in label[r]:
            if v == -1:
                break
            targets.append(int(v))
        others = [i for i in range(c) if i not in targets]
        out[r] = sum(max(0.0, 1 - input[r, j] + input[r, i]) for j in targets for i in others) / c
    return _reduce(out, reduction)


def _multi_margin(input, label, p=1, margin=1.0, weight=None, reduction="mean"):
    n, c = input.shape
    target = input[np.arange(n), label][:, None]
    hinge = np.maximum(margin - target + input, 0) ** p
    hinge[np.arange(n), label] = 0
    w = np.ones(n) if weight is None else weight[label]
    return _reduce(w * hinge.sum(1) / c, reduction)


def _triplet(input, positive, negative, margin=1.0, p=2, epsilon=1e-6, swap=False, reduction="mean"):
    dp = _pairwise(input, positive, p, epsilon)
    dn = _pairwise(input, negative, p, epsilon)
    if swap:
        dn = np.minimum(dn, _pairwise(positive, negative, p, epsilon))
    return _reduce(np.maximum(dp - dn + margin, 0), reduction)


def _triplet_distance(input, positive, negative, distance_function=None, margin=1.0, swap=False, reduction="mean"):
    return _triplet(input, positive, negative, margin, 2.0, 1e-6, swap, reduction)


def _pm1(rng, *shape):
    return T(rng.choice([-1.0, 1.0], size=shape), grad=False)


def _pair(rng, shape, **kw):
    return [Sample((_u(rng, *shape), _u(rng, *shape, grad=False)), dict(kw, reduction=r)) for r in _REDUCTIONS]


_TRIPLET_ERRORS = (Err((_ones(2, 3), _ones(2, 3), _ones(2, 4)), exc=ValueError, note="shapes differ"),
                   Err((_ones(2, 3), _ones(2, 3), _ones(2, 3)), {"margin": -1.0}, exc=ValueError),
                   Err((_ones(2, 3), _ones(2, 3), _ones(2, 3)), {"reduction": "avg"}, exc=ValueError))

OPS = [
    OpCase("poisson_nll_loss", _f("poisson_nll_loss"), _poisson,
           lambda rng, dtype: _pair(rng, (3, 4)) +
           [Sample((_u(rng, 3, 4, low=0.1, high=2), _u(rng, 3, 4, low=0, high=3, grad=False)),
                   {"log_input": False, "full": True})],
           FLOATS,
           errors=(Err((_ones(2), _ones(2)), {"epsilon": 0.0}, exc=ValueError),
                   Err((_ones(2), _ones(3)), exc=ValueError, note="shapes differ"),
                   Err((_ones(2), _ones(2)), {"reduction": "avg"}, exc=ValueError))),
    OpCase("gaussian_nll_loss", _f("gaussian_nll_loss"), _gaussian,
           lambda rng, dtype: [Sample((_u(rng, 3, 4), _u(rng, 3, 4, grad=False),
                                       _u(rng, 3, 4, low=0.1, high=2, grad=False)), {"reduction": r})
                               for r in _REDUCTIONS] +
           [Sample((_u(rng, 3, 4), _u(rng, 3, 4, grad=False), _u(rng, 3, low=0.1, high=2, grad=False)),
                   {"full": True}),
            Sample((_u(rng, 3, 4), _u(rng, 3, 4, grad=False), _u(rng, 3, 1, low=0.0, high=2, grad=False)),
                   {"epsilon": 0.5})],
           FLOATS,
           errors=(Err((_ones(3, 4), _ones(3, 4), _ones(2, 4)), exc=ValueError, note="variance shape"),
                   Err((_ones(3, 4), _ones(3, 4), T(-np.ones((3, 4)))), exc=ValueError, note="negative variance"),
                   Err((_ones(3, 4), _ones(3, 4), _ones(3, 4)), {"reduction": "x"}, exc=ValueError))),
    OpCase("soft_margin_loss", _f("soft_margin_loss"), _soft_margin,
           lambda rng, dtype: [Sample((_u(rng, 3, 4), _pm1(rng, 3, 4)), {"reduction": r}) for r in _REDUCTIONS],
           FLOATS,
           errors=(Err((_ones(2), _ones(3)), exc=ValueError), Err((_ones(2), _ones(2)), {"reduction": "x"},
                                                                  exc=ValueError),
                   Err(([1.0, 2.0], _ones(2)), exc=AttributeError, note="a list is not a Tensor"))),
    OpCase("hinge_embedding_loss", _f("hinge_embedding_loss"), _hinge,
           lambda rng, dtype: [Sample((_u(rng, 3, 4), _pm1(rng, 3, 4)), {"reduction": r, "margin": 0.5})
                               for r in _REDUCTIONS],
           FLOATS,
           errors=(Err((_ones(2), _ones(2)), {"reduction": "x"}, exc=ValueError),
                   Err((_ones(2, 3), _ones(2, 4)), exc=ValueError, note="cannot broadcast"),
                   Err(([1.0, 2.0], _ones(2)), exc=AttributeError, note="a list is not a Tensor"))),
    OpCase("cosine_embedding_loss", _f("cosine_embedding_loss"), _cosine_embedding,
           lambda rng, dtype: [Sample((_u(rng, 3, 4), _u(rng, 3, 4), T(np.array([1, -1, 1]), dtype="int64")),
                                      {"reduction": r, "margin": 0.2}) for r in _REDUCTIONS] +
           [Sample((_u(rng, 4), _u(rng, 4), T(np.array([-1.0]), grad=False)))],
           FLOATS,
           errors=(Err((_ones(3, 4), _ones(3, 4), T(np.ones((3, 1)))), exc=ValueError, note="2-D label"),
                   Err((_ones(3, 4), _ones(3, 5), T(np.ones(3))), exc=ValueError, note="shapes differ"),
                   Err((_ones(2, 3, 4), _ones(2, 3, 4), T(np.ones(2))), exc=ValueError, note="3-D inputs"),
                   Err((T(np.ones((3, 4)), dtype="int64"), T(np.ones((3, 4)), dtype="int64"), T(np.ones(3))),
                       exc=ValueError, note="integer inputs"))),
    OpCase("multi_label_soft_margin_loss", _f("multi_label_soft_margin_loss"), _multi_label_soft_margin,
           lambda rng, dtype: [Sample((_u(rng, 3, 4), T(rng.integers(0, 2, (3, 4)).astype(float), grad=False)),
                                      {"reduction": r}) for r in _REDUCTIONS] +
           [Sample((_u(rng, 3, 4), T(rng.integers(0, 2, (3, 4)).astype(float), grad=False)),
                   {"weight": _u(rng, 4, low=0.5, high=2)})],
           FLOATS,
           errors=(Err((_ones(2, 3), _ones(2, 4)), exc=ValueError), Err((_ones(2), _ones(2)), {"reduction": "x"},
                                                                        exc=ValueError),
                   Err(([1.0, 2.0], _ones(2)), exc=AttributeError, note="a list is not a Tensor"))),
    OpCase("multi_label_margin_loss", _f("multi_label_margin_loss"), _multi_label_margin,
           lambda rng, dtype: [Sample((_u(rng, 3, 4), T(np.array([[3, 0, -1, 1], [1, 2, 3, -1], [2, -1, 0, 1]]),
                                                         dtype="int64")), {"reduction": r}) for r in _REDUCTIONS],
           FLOATS,
           errors=(Err((_ones(2, 3), T(np.array([[0, 5, -1], [1, -1, 0]]), dtype="int64")), exc=ValueError,
                       note="label >= classes"),
                   Err((_ones(2, 3), T(np.array([[0, -2, -1], [1, -1, 0]]), dtype="int64")), exc=ValueError),
                   Err((_ones(3), T(np.array([0, 1, -1]), dtype="int64")), exc=ValueError, note="1-D input"),
                   Err((_ones(2, 3), T(np.zeros((2, 3))),), exc=ValueError, note="float label"))),
    OpCase("multi_margin_loss", _f("multi_margin_loss"), _multi_margin,
           lambda rng, dtype: [Sample((_u(rng, 4, 5), T(np.array([0, 3, 4, 1]), dtype="int64")), {"reduction": r})
                               for r in _REDUCTIONS] +
           [Sample((_u(rng, 4, 5), T(np.array([2, 3, 0, 1]), dtype="int64")),
                   {"p": 2, "margin": 0.5, "weight": _u(rng, 5, low=0.5, high=2, grad=False)})],
           FLOATS,
           errors=(Err((_ones(4, 5), T(np.array([0, 1, 2]), dtype="int64")), exc=ValueError, note="batch mismatch"),
                   Err((_ones(4, 5), T(np.array([0, 1, 2, 3]), dtype="int64")), {"weight": _ones(4)}, exc=ValueError),
                   Err((_ones(4, 5), T(np.array([0, 1, 2, 3]), dtype="int64")), {"reduction": "x"}, exc=ValueError))),
    OpCase("triplet_margin_loss", _f("triplet_margin_loss"), _triplet,
           lambda rng, dtype: [Sample((_u(rng, 3, 4), _u(rng, 3, 4), _u(rng, 3, 4)), {"reduction": r})
                               for r in _REDUCTIONS] +
           [Sample((_u(rng, 3, 4), _u(rng, 3, 4), _u(rng, 3, 4)), {"p": 1, "swap": True, "margin": 2.0})],
           FLOATS, errors=_TRIPLET_ERRORS),
    OpCase("triplet_margin_with_distance_loss", _f("triplet_margin_with_distance_loss"), _triplet_distance,
           lambda rng, dtype: [Sample((_u(rng, 3, 4), _u(rng, 3, 4), _u(rng, 3, 4)), {"reduction": r})
                               for r in _REDUCTIONS] +
           [Sample((_u(rng, 3, 4), _u(rng, 3, 4), _u(rng, 3, 4)), {"swap": True, "margin": 2.0})],
           FLOATS, errors=_TRIPLET_ERRORS),
]
