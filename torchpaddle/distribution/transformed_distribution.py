"""Distributions built from others: Independent, TransformedDistribution, and the two Paddle defines as
transformed ones, LogNormal and Gumbel."""
import math
import typing

import numpy as np
import torch

from ..framework.tensor import wrap
from . import _util
from .continuous import Normal, Uniform
from .distribution import Distribution
from .transform import ChainTransform, ExpTransform, Transform

__all__ = ["Independent", "TransformedDistribution", "LogNormal", "Gumbel"]

_EULER_GAMMA = float(np.euler_gamma)


def _sum_rightmost(x, n):
    return wrap(_util.sum_rightmost(x._t, n)) if n > 0 else x


class Independent(Distribution):
    """``base`` with its ``reinterpreted_batch_rank`` rightmost batch dims read as event dims."""

    def __init__(self, base, reinterpreted_batch_rank):
        if not isinstance(base, Distribution):
            raise TypeError(f"Independent: expected 'base' to be a Distribution, got {type(base).__name__}")
        if not 0 < reinterpreted_batch_rank <= len(base.batch_shape):
            raise ValueError(f"Independent: expected 0 < reinterpreted_batch_rank <= {len(base.batch_shape)}, got "
                             f"{reinterpreted_batch_rank}")
        self._base = base
        self._reinterpreted_batch_rank = reinterpreted_batch_rank
        shape = tuple(base.batch_shape) + tuple(base.event_shape)
        split = len(base.batch_shape) - reinterpreted_batch_rank
        super().__init__(batch_shape=shape[:split], event_shape=shape[split:])

    @property
    def mean(self):
        return self._base.mean

    @property
    def variance(self):
        return self._base.variance

    def sample(self, shape=()):
        return self._base.sample(shape)

    def log_prob(self, value):
        return _sum_rightmost(self._base.log_prob(value), self._reinterpreted_batch_rank)

    def prob(self, value):
        return wrap(self.log_prob(value)._t.exp())

    def entropy(self):
        return _sum_rightmost(self._base.entropy(), self._reinterpreted_batch_rank)


class TransformedDistribution(Distribution):
    """The distribution of ``transforms`` applied, in order, to draws of ``base``."""

    def __init__(self, base, transforms):
        if not isinstance(base, Distribution):
            raise TypeError(f"TransformedDistribution: expected 'base' to be a Distribution, got "
                            f"{type(base).__name__}")
        if not isinstance(transforms, typing.Sequence):
            raise TypeError(f"TransformedDistribution: expected 'transforms' to be a Sequence[Transform], got "
                            f"{type(transforms).__name__}")
        if not all(isinstance(t, Transform) for t in transforms):
            raise TypeError("TransformedDistribution: all elements of transforms must be Transform type.")
        self._base = base
        self._transforms = transforms
        if not transforms:
            super().__init__(base.batch_shape, base.event_shape)
            return
        chain = ChainTransform(transforms)
        domain_rank = chain._domain.event_rank
        base_shape = tuple(base.batch_shape) + tuple(base.event_shape)
        if len(base_shape) < domain_rank:
            raise ValueError(f"TransformedDistribution: 'base' needs a shape of at least {domain_rank} dims, got "
                             f"{len(base_shape)}.")
        shape = tuple(chain.forward_shape(base_shape))
        event_rank = chain._codomain.event_rank + max(len(base.event_shape) - domain_rank, 0)
        super().__init__(shape[:len(shape) - event_rank], shape[len(shape) - event_rank:])

    def sample(self, shape=()):
        x = self._base.sample(shape)
        for t in self._transforms:
            x = t.forward(x)
        return x

    def rsample(self, shape=()):
        x = self._base.rsample(shape)
        for t in self._transforms:
            x = t.forward(x)
        return x

    def log_prob(self, value):
        log_prob, y = 0.0, value
        event_rank = len(self.event_shape)
        for t in reversed(self._transforms):
            x = t.inverse(y)
            event_rank += t._domain.event_rank - t._codomain.event_rank
            log_prob = log_prob - _sum_rightmost(t.forward_log_det_jacobian(x), event_rank - t._domain.event_rank)
            y = x
        return log_prob + _sum_rightmost(self._base.log_prob(y), event_rank - len(self._base.event_shape))


class LogNormal(TransformedDistribution):
    """exp of Normal(loc, scale)."""

    def __init__(self, loc, scale):
        self._base = Normal(loc=loc, scale=scale)
        self.loc, self.scale = self._base.loc, self._base.scale
        super().__init__(self._base, [ExpTransform()])

    @property
    def mean(self):
        return wrap(torch.exp(self._base.mean._t + self._base.variance._t / 2))

    @property
    def variance(self):
        mu, var = self._base.mean._t, self._base.variance._t
        return wrap(torch.expm1(var) * torch.exp(2 * mu + var))

    def entropy(self):
        return wrap(self._base.entropy()._t + self._base.mean._t)

    def probs(self, value):
        return wrap(self.log_prob(value)._t.exp())

    def kl_divergence(self, other):
        if not isinstance(other, LogNormal):
            raise TypeError(f"LogNormal.kl_divergence: other must be a LogNormal, got {type(other).__name__}")
        return self._base.kl_divergence(other._base)


class Gumbel(TransformedDistribution):
    """The Gumbel (type-I extreme value) distribution with location ``loc`` and scale ``scale``."""

    def __init__(self, loc, scale):
        loc = _util.real_or_tensor(loc, "Gumbel", "loc")
        scale = _util.real_or_tensor(scale, "Gumbel", "scale")
        if loc.shape != scale.shape:
            loc, scale = (wrap(t) for t in _util.broadcast("Gumbel", loc._t, scale._t, copy=True))
        self.loc, self.scale = loc, scale
        finfo = np.finfo(np.float32)
        low = torch.full_like(loc._t, float(finfo.tiny)).detach()
        self.base_dist = Uniform(wrap(low), wrap(torch.full_like(low, float(1 - finfo.eps))))
        self.transforms = ()
        super().__init__(self.base_dist, self.transforms)

    @property
    def mean(self):
        return wrap(self.loc._t + self.scale._t * _EULER_GAMMA)

    @property
    def variance(self):
        scale = self.scale._t
        return wrap(_util.expand(scale.pow(2) * (math.pi * math.pi / 6), self.loc._t.shape))

    @property
    def stddev(self):
        return wrap(torch.sqrt(self.variance._t))

    def prob(self, value):
        loc, scale = self.loc._t, self.scale._t
        y = (loc - _util.value_of(value, loc.dtype, "Gumbel.prob")) / scale.to(loc.dtype)
        return wrap(torch.exp(y - torch.exp(y)) / scale.to(y.dtype))

    def log_prob(self, value):
        return wrap(torch.log(self.prob(value)._t))

    def cdf(self, value):
        # NOTE: Paddle computes the cdf in the value's dtype
        v = _util.value_of(value, self.loc._t.dtype, "Gumbel.cdf", cast=False)
        return wrap(torch.exp(-torch.exp(-(v - self.loc._t.to(v.dtype)) / self.scale._t.to(v.dtype))))

    def entropy(self):
        return wrap(torch.log(self.scale._t) + 1 + _EULER_GAMMA)

    def sample(self, shape=()):
        with torch.no_grad():
            return self.rsample(shape)

    def rsample(self, shape=()):
        u = self._base.sample(shape)._t
        return wrap(self.loc._t - self.scale._t * torch.log(-torch.log(u)))
