"""fluid.layers' distributions (Normal, Uniform, Categorical, MultivariateNormalDiag) as Paddle 1.x/2.0 defined
them: built from layer functions, so they work on static Variables as well as dygraph Tensors (unlike
paddle.distribution, which is dygraph-only here)."""
import math

import numpy as np

from ... import tensor as _T
from ...framework.tensor import Tensor

__all__ = ["Normal", "Uniform", "Categorical", "MultivariateNormalDiag"]


def _as_tensor(value, api, what, dtype="float32"):
    if isinstance(value, Tensor):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return _T.assign(np.array([value], dtype))
    if isinstance(value, (list, np.ndarray)):
        return _T.assign(np.asarray(value, dtype))
    raise TypeError(f"{api}: {what} must be a float, list, numpy array or Variable, got {type(value).__name__}")


def _pair(a, b, api, names):
    dtype = a.dtype.name if isinstance(a, Tensor) else (b.dtype.name if isinstance(b, Tensor) else "float32")
    return _as_tensor(a, api, names[0], dtype), _as_tensor(b, api, names[1], dtype)


def _check_shape(shape, seed, api):
    if not isinstance(shape, list):
        raise TypeError(f"{api}.sample: shape must be a list, got {type(shape).__name__}")
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise TypeError(f"{api}.sample: seed must be an int, got {type(seed).__name__}")


class Uniform:
    """Uniform on [low, high)."""

    def __init__(self, low, high):
        self._scalar = isinstance(low, float) and isinstance(high, float)
        self.low, self.high = _pair(low, high, "Uniform", ("low", "high"))

    def sample(self, shape, seed=0):
        _check_shape(shape, seed, "Uniform")
        batch = list((self.low + self.high).shape)
        unit = _T.uniform(shape + batch, self.low.dtype, min=0.0, max=1.0, seed=seed)
        out = unit * (self.high - self.low) + self.low
        return _T.reshape(out, shape) if self._scalar else out

    def log_prob(self, value):
        inside = _T.cast(_T.logical_and(self.low < value, value < self.high), value.dtype)
        return _T.log(inside) - _T.log(self.high - self.low)

    def entropy(self):
        return _T.log(self.high - self.low)


class Normal:
    """Normal with mean ``loc`` and standard deviation ``scale``."""

    def __init__(self, loc, scale):
        self._scalar = isinstance(loc, float) and isinstance(scale, float)
        self.loc, self.scale = _pair(loc, scale, "Normal", ("loc", "scale"))

    def sample(self, shape, seed=0):
        _check_shape(shape, seed, "Normal")
        batch = list((self.loc + self.scale).shape)
        out = _T.normal(0.0, 1.0, shape + batch) * self.scale + self.loc
        return _T.reshape(out, shape) if self._scalar else out

    def entropy(self):
        return _T.log(self.scale + _T.zeros_like(self.loc)) + (0.5 + 0.5 * math.log(2 * math.pi))

    def log_prob(self, value):
        return (value - self.loc) * (value - self.loc) / (self.scale * self.scale * -2.0) - _T.log(self.scale) - \
            0.5 * math.log(2.0 * math.pi)

    def kl_divergence(self, other):
        if not isinstance(other, Normal):
            raise TypeError(f"Normal.kl_divergence: other must be a Normal, got {type(other).__name__}")
        ratio = (self.scale / other.scale) * (self.scale / other.scale)
        gap = (self.loc - other.loc) / other.scale
        return (ratio + gap * gap - 1.0 - _T.log(ratio)) * 0.5


class Categorical:
    """Categorical over the last axis of (unnormalised) ``logits``."""

    def __init__(self, logits):
        if isinstance(logits, float):
            raise TypeError("Categorical: logits must be a list, numpy array or Variable, got float")
        self.logits = _as_tensor(logits, "Categorical", "logits")

    def _normalised(self):
        shifted = self.logits - _T.max(self.logits, axis=-1, keepdim=True)
        total = _T.sum(_T.exp(shifted), axis=-1, keepdim=True)
        return shifted - _T.log(total), _T.exp(shifted) / total

    def entropy(self):
        log_p, p = self._normalised()
        return _T.sum(p * log_p, axis=-1, keepdim=True) * -1.0

    def kl_divergence(self, other):
        if not isinstance(other, Categorical):
            raise TypeError(f"Categorical.kl_divergence: other must be a Categorical, got {type(other).__name__}")
        log_p, p = self._normalised()
        log_q, _ = other._normalised()
        return _T.sum(p * (log_p - log_q), axis=-1, keepdim=True)


class MultivariateNormalDiag:
    """Multivariate normal with mean ``loc`` [k] and a diagonal covariance matrix ``scale`` [k, k]."""

    def __init__(self, loc, scale):
        for what, v in (("loc", loc), ("scale", scale)):
            if isinstance(v, float):
                raise TypeError(f"MultivariateNormalDiag: {what} must be a list, numpy array or Variable")
        self.loc, self.scale = _pair(loc, scale, "MultivariateNormalDiag", ("loc", "scale"))

    def _diagonal(self, matrix):
        return _T.diagonal(matrix)

    def entropy(self):
        k = self.scale.shape[0]
        return _T.reshape((_T.sum(_T.log(self._diagonal(self.scale))) + k * (1.0 + math.log(2 * math.pi))) * 0.5,
                          [1])

    def kl_divergence(self, other):
        if not isinstance(other, MultivariateNormalDiag):
            raise TypeError("MultivariateNormalDiag.kl_divergence: other must be a MultivariateNormalDiag, got "
                            f"{type(other).__name__}")
        mine, theirs = self._diagonal(self.scale), self._diagonal(other.scale)
        gap = other.loc - self.loc
        k = self.scale.shape[0]
        kl = _T.sum(mine / theirs) + _T.sum(gap * gap / theirs) - k + _T.sum(_T.log(theirs)) - \
            _T.sum(_T.log(mine))
        return _T.reshape(kl * 0.5, [1])
