"""identity_loss: marks a tensor as the loss (IPU-era API); on CPU/GPU it is just the chosen reduction."""
from ...framework.tensor import Tensor

_REDUCTIONS = {"sum": "sum", 0: "sum", "mean": "mean", 1: "mean", "none": "none", 2: "none"}


def identity_loss(x, reduction="none"):
    """``x`` reduced by ``reduction`` ('sum'/0, 'mean'/1, 'none'/2)."""
    if not isinstance(x, Tensor):
        raise TypeError(f"identity_loss: x should be a Tensor, got {type(x).__name__}")
    mode = _REDUCTIONS.get(reduction.lower() if isinstance(reduction, str) else reduction)
    if mode is None:
        raise ValueError(f"identity_loss: reduction should be 'sum', 'mean', 'none' or 0, 1, 2, got {reduction!r}")
    return x.sum() if mode == "sum" else x.mean() if mode == "mean" else x
