"""pairwise_distance: the p-norm of x - y + epsilon along the last axis."""
from ... import ops as _ops
from ... import tensor as _pt
from .activation import _tensor

__all__ = ["pairwise_distance"]


def pairwise_distance(x, y, p=2.0, epsilon=1e-6, keepdim=False, name=None):
    _tensor(x, "pairwise_distance")
    sub = _pt.subtract(x, y)
    if epsilon != 0.0:
        sub = sub + _pt.full([1], epsilon, dtype=sub.dtype)
    return _ops.p_norm(sub, porder=float(p), axis=-1, epsilon=0.0, keepdim=bool(keepdim), asvector=False)
