"""The paddle.distributed.split cases: full weights and inputs shared by the rank processes and the NumPy
expectations."""
import numpy as np

_rng = np.random.RandomState(3)
W_EMB = _rng.standard_normal((8, 3)).astype("float32")
IDS = np.array([[0, 3, 5, 7], [6, 1, 4, 2], [7, 7, 0, 4]], dtype="int64")
W_LIN = _rng.standard_normal((6, 4)).astype("float32")
B_LIN = _rng.standard_normal(4).astype("float32")
X = _rng.standard_normal((3, 6)).astype("float32")
G = _rng.standard_normal((3, 4)).astype("float32")   # the upstream gradient of a linear output

CASES = {
    "embedding": dict(operation="embedding", axis=0, gather_out=True, x_part=False),
    "row/split_x": dict(operation="linear", axis=0, gather_out=True, x_part=False),
    "row/x_part": dict(operation="linear", axis=0, gather_out=True, x_part=True),
    "row/no_gather": dict(operation="linear", axis=0, gather_out=False, x_part=True),
    "column": dict(operation="linear", axis=1, gather_out=True, x_part=False),
    "column/no_gather": dict(operation="linear", axis=1, gather_out=False, x_part=False),
    "static/row": dict(operation="linear", axis=0, gather_out=True, x_part=False, static=True),
    "static/column": dict(operation="linear", axis=1, gather_out=True, x_part=False, static=True),
}


def part_of(array, axis, rank, n):
    """Rank ``rank``'s part of ``array`` split evenly along ``axis`` into ``n``."""
    return np.ascontiguousarray(np.split(array, n, axis=axis)[rank])
