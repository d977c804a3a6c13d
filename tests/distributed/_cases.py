"""Inputs of the collective checks, shared by the rank processes and the NumPy expectations."""
import numpy as np

SHAPE = (2, 3)
OPS = ["SUM", "MAX", "MIN", "PROD", "AVG"]


def data(rank, salt=0, shape=SHAPE, dtype="float32"):
    n = int(np.prod(shape))
    # Distinct per rank and salt; small so PROD stays exact in float32.
    values = (np.arange(n) % 5 + 1) * (1 + 0.25 * rank) + 0.5 * salt - (rank % 2)
    return values.reshape(shape).astype(dtype)


def rows(rank, count, width=2):
    """``count`` rows of width ``width`` identifying (sender rank, row index)."""
    return np.array([[100 * rank + i, -(100 * rank + i)] for i in range(count)], dtype="float32")[:, :width]


def splits(rank, n):
    """alltoall_single: rows rank ``rank`` sends to each peer j (uneven on purpose)."""
    return [(rank + j) % 3 + 1 for j in range(n)]
