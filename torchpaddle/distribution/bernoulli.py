"""Bernoulli and ContinuousBernoulli."""
import math

import torch
import torch.nn.functional as F

from ..framework.tensor import Tensor, wrap
from . import _util
from .distribution import Distribution, ExponentialFamily

__all__ = ["Bernoulli", "ContinuousBernoulli"]


class Bernoulli(ExponentialFamily):
    """The Bernoulli distribution; ``probs`` is clipped to [eps, 1 - eps] of its dtype, as Paddle does."""

    def __init__(self, probs, name=None):
        self.name = name or "Bernoulli"
        if isinstance(probs, Tensor):
            probs = _util.eager(probs, self.name)._t
        else:
            probs = _util.numpy_params(self.name, probs)[0]._t.to(_util.default_torch_dtype())
        self.dtype = _util.dtype_name(probs.dtype)
        self.probs = wrap(_util.clip_probs(probs))
        p = self.probs._t
        self.logits = wrap(torch.log(p) - torch.log1p(-p))
        super().__init__(batch_shape=self.probs.shape, event_shape=())

    @property
    def mean(self):
        return self.probs

    @property
    def variance(self):
        p = self.probs._t
        return wrap(p * (1 - p))

    def sample(self, shape=()):
        shape = self._extend_shape(_util.sample_shape(shape, f"{self.name}.sample"))
        with torch.no_grad():
            return wrap(torch.bernoulli(self.probs._t.expand(shape)))

    def rsample(self, shape=(), temperature=1.0):
        """The relaxed (logistic) sample: logit noise plus the logits, over ``temperature``; not squashed."""
        shape = self._extend_shape(_util.sample_shape(shape, f"{self.name}.rsample"))
        p = self.probs._t.expand(shape)
        u = torch.rand(shape, dtype=p.dtype, device=p.device)
        return wrap((torch.log(u) - torch.log1p(-u) + (torch.log(p) - torch.log1p(-p))) / temperature)

    def _value(self, value, api):
        return _util.value_of(value, self.probs._t.dtype, f"{self.name}.{api}")

    def cdf(self, value):
        p, v = _util.broadcast(self.name, self.probs._t, self._value(value, "cdf"))
        return wrap(torch.where(v < 0, torch.zeros_like(p), torch.where(v < 1, 1 - p, torch.ones_like(p))))

    def log_prob(self, value):
        logits, v = _util.broadcast(self.name, self.logits._t, self._value(value, "log_prob"))
        return wrap(-F.binary_cross_entropy_with_logits(logits, v, reduction="none"))

    def prob(self, value):
        return wrap(self.log_prob(value)._t.exp())

    def entropy(self):
        return wrap(F.binary_cross_entropy_with_logits(self.logits._t, self.probs._t, reduction="none"))

    def kl_divergence(self, other):
        if not isinstance(other, Bernoulli):
            raise TypeError(f"Bernoulli.kl_divergence: other must be a Bernoulli, got {type(other).__name__}")
        a, b = self.logits._t, other.logits._t
        pa, one_minus_pa = torch.sigmoid(a), torch.sigmoid(-a)
        return wrap((-F.softplus(-a) + F.softplus(-b)) * pa + (-F.softplus(a) + F.softplus(b)) * one_minus_pa)


class ContinuousBernoulli(Distribution):
    """The continuous Bernoulli distribution on [0, 1]. Near probs = 0.5 (inside ``lims``) the normalizer and
    moments use their Taylor expansions, as Paddle does. A Python float ``probs`` gives batch shape [1]."""

    def __init__(self, probs, lims=(0.499, 0.501)):
        if isinstance(probs, Tensor):
            p = _util.eager(probs, "ContinuousBernoulli")._t
        elif isinstance(probs, (int, float)) and not isinstance(probs, bool):
            p = torch.tensor([float(probs)], dtype=_util.default_torch_dtype(), device=_util.current_torch_device())
        else:
            raise _util.ValueTypeError(f"ContinuousBernoulli: probs must be a float or a Tensor, got "
                                       f"{type(probs).__name__}")
        self.dtype = _util.dtype_name(p.dtype)
        self.lims = wrap(torch.tensor(lims, dtype=p.dtype, device=p.device))
        self.probs = wrap(_util.clip_probs(p))
        super().__init__(self.probs.shape)

    def _outside(self):
        p, lims = self.probs._t, self.lims._t
        return (p <= lims[0]) | (p > lims[1])

    def _cut_probs(self):
        p = self.probs._t
        return torch.where(self._outside(), p, self.lims._t[0] * torch.ones_like(p))

    @staticmethod
    def _atanh(x):
        return 0.5 * (torch.log1p(x) - torch.log1p(-x))

    def _log_constant(self):
        cut = self._cut_probs()
        below = torch.where(cut <= 0.5, cut, torch.zeros_like(cut))
        above = torch.where(cut >= 0.5, cut, torch.ones_like(cut))
        exact = (torch.log(2.0 * torch.abs(self._atanh(1.0 - 2.0 * cut)))
                 - torch.where(cut <= 0.5, torch.log1p(-2.0 * below), torch.log(2.0 * above - 1.0)))
        x = (self.probs._t - 0.5) ** 2
        taylor = math.log(2.0) + (4.0 / 3.0 + 104.0 / 45.0 * x) * x
        return torch.where(self._outside(), exact, taylor)

    def _mean(self):
        cut = self._cut_probs()
        exact = cut / (2.0 * cut - 1.0) + 1.0 / (2.0 * self._atanh(1.0 - 2.0 * cut))
        x = self.probs._t - 0.5
        return torch.where(self._outside(), exact, 0.5 + (1.0 / 3.0 + 16.0 / 45.0 * x ** 2) * x)

    @property
    def mean(self):
        return wrap(self._mean())

    @property
    def variance(self):
        cut = self._cut_probs()
        exact = cut * (cut - 1.0) / (1.0 - 2.0 * cut) ** 2 + 1.0 / (torch.log1p(-cut) - torch.log(cut)) ** 2
        x = (self.probs._t - 0.5) ** 2
        return wrap(torch.where(self._outside(), exact, 1.0 / 12.0 - (1.0 / 15.0 - 128.0 / 945.0 * x) * x))

    def sample(self, shape=()):
        with torch.no_grad():
            return self.rsample(shape)

    def rsample(self, shape=()):
        shape = _util.sample_shape(shape, "ContinuousBernoulli.rsample") + tuple(self.batch_shape)
        p = self.probs._t
        return self.icdf(wrap(torch.rand(shape, dtype=p.dtype, device=p.device)))

    def _value(self, value, api):
        return _util.value_of(value, self.probs._t.dtype, f"ContinuousBernoulli.{api}")

    def log_prob(self, value):
        v, p = self._value(value, "log_prob"), self.probs._t
        cross = torch.nan_to_num(v * torch.log(p) + (1.0 - v) * torch.log(1 - p), neginf=-_util.eps(p.dtype))
        return wrap(self._log_constant() + cross)

    def prob(self, value):
        return wrap(self.log_prob(value)._t.exp())

    def entropy(self):
        p = self.probs._t
        log_p, log_1mp = torch.log(p), torch.log1p(-p)
        value = -self._log_constant() + self._mean() * (log_1mp - log_p) - log_1mp
        return wrap(torch.where(p == 0.5, torch.zeros_like(p), value))

    def cdf(self, value):
        v, cut = self._value(value, "cdf"), self._cut_probs()
        cdfs = (cut ** v * (1.0 - cut) ** (1.0 - v) + cut - 1.0) / (2.0 * cut - 1.0)
        inside = torch.where(self._outside(), cdfs, v)
        return wrap(torch.where(v <= 0.0, torch.zeros_like(v), torch.where(v >= 1.0, torch.ones_like(v), inside)))

    def icdf(self, value):
        v, cut = self._value(value, "icdf"), self._cut_probs()
        exact = ((torch.log1p(-cut + v * (2.0 * cut - 1.0)) - torch.log1p(-cut))
                 / (torch.log(cut) - torch.log1p(-cut)))
        return wrap(torch.where(self._outside(), exact, v))

    def kl_divergence(self, other):
        if not isinstance(other, ContinuousBernoulli):
            raise TypeError(f"ContinuousBernoulli.kl_divergence: other must be a ContinuousBernoulli, got "
                            f"{type(other).__name__}")
        if self.batch_shape != other.batch_shape:
            raise ValueError("KL divergence of two Continuous Bernoulli distributions should share the same "
                             "`batch_shape`.")
        q = other.probs._t
        log_q, log_1mq = torch.log(q), torch.log1p(-q)
        cross = -(other._log_constant() + self._mean() * (log_q - log_1mq) + log_1mq)
        return wrap(-self.entropy()._t + cross)
