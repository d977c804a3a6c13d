"""Rows for paddle.metric.accuracy (the ``accuracy`` op over top_k_v2's outputs). Scores are distinct within
a row, so the top-k set has no ties."""
import numpy as np

from .core import FLOATS, Err, OpCase, Sample, T


def _distinct(rng, n, c):
    return np.stack([rng.permutation(c) for _ in range(n)]).astype(np.float64) / c - 0.5


def _labels(rng, n, c, dtype="int64"):
    return T(rng.integers(0, c, size=(n, 1)), dtype=dtype)


def _accuracy(x, label, k=1):
    top = np.argsort(-x, axis=1, kind="stable")[:, :k]
    hits = (top == label.reshape(-1, 1)).any(axis=1)
    return np.asarray(hits.mean() if hits.size else 0.0, dtype=np.float32)


def _samples(rng, dtype):
    return [Sample((T(_distinct(rng, 8, 5)), _labels(rng, 8, 5)), {"k": k}) for k in (1, 2, 5)] + [
        Sample((T(_distinct(rng, 6, 4)), _labels(rng, 6, 4, "int32"))),
        Sample((T(_distinct(rng, 1, 3)), _labels(rng, 1, 3)), {"k": 2}),
        Sample((T(np.zeros((0, 3))), T(np.zeros((0, 1)), dtype="int64"))),
    ]


_X = T(np.array([[0.1, 0.5, 0.2], [0.9, 0.3, 0.0]]))
_L = T(np.array([[1], [0]]), dtype="int64")

OPS = [
    OpCase("metric_accuracy", "metric.accuracy", _accuracy, _samples, FLOATS, grad=False,
           errors=(Err((_X, T(np.array([1, 0]), dtype="int64"))),                    # label must be [N, 1]
                   Err((_X, T(np.array([[1, 0], [0, 1]]), dtype="int64"))),          # label width 2
                   Err((_X, T(np.array([[1.0], [0.0]]), dtype="float32"))),          # float label
                   Err((_X, T(np.array([[1]]), dtype="int64"))),                     # row count differs
                   Err((_X, _L), {"k": 4}),                                           # k > classes
                   Err((_X, _L), {"k": 0}),
                   Err((T(np.array([0.1, 0.5, 0.2])), _L)),                           # 1-D input
                   Err((T(np.array([[1, 2], [3, 4]]), dtype="int64"), _L), exc=RuntimeError),  # no int kernel
                   Err((_X, np.array([[1], [0]])), exc=ValueError))),                 # label not a Tensor
]
