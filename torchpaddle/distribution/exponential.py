"""Exponential families over positive reals and the simplex: Exponential, Gamma, Chi2, Beta, Dirichlet."""
import numpy as np
import torch

from ..framework.tensor import Tensor, wrap
from . import _util
from .distribution import ExponentialFamily

__all__ = ["Exponential", "Gamma", "Chi2", "Beta", "Dirichlet"]

_TINY32 = float(np.finfo(np.float32).tiny)


def _dtype_attr(param, given_tensor):
    # Paddle's dtype attribute: the parameter's dtype when a Tensor was given, else the default dtype's name
    return _util.dtype_name(param._t.dtype) if given_tensor else _util.dtype_name(_util.default_torch_dtype())


class Exponential(ExponentialFamily):
    """The exponential distribution with rate ``rate``."""

    def __init__(self, rate):
        (self.rate,) = _util.tensor_params("Exponential", rate)
        self.dtype = _dtype_attr(self.rate, isinstance(rate, Tensor))
        super().__init__(self.rate.shape)

    @property
    def mean(self):
        return wrap(self.rate._t.reciprocal())

    @property
    def variance(self):
        return wrap(self.rate._t.pow(-2))

    def sample(self, shape=()):
        with torch.no_grad():
            return self.rsample(shape)

    def rsample(self, shape=()):
        shape = self._extend_shape(_util.sample_shape(shape, "Exponential.rsample"))
        rate = self.rate._t
        u = torch.rand(shape, dtype=rate.dtype, device=rate.device) * (1.0 - _TINY32) + _TINY32
        return wrap(-torch.log(u) / rate)

    def _value(self, value, api):
        return _util.value_of(value, self.rate._t.dtype, api, numbers_ok=True, cast=False)

    def prob(self, value):
        rate = self.rate._t
        return wrap(rate * torch.exp(-rate * self._value(value, "Exponential.prob")))

    def log_prob(self, value):
        rate = self.rate._t
        return wrap(torch.log(rate) - rate * self._value(value, "Exponential.log_prob"))

    def entropy(self):
        return wrap(1.0 - torch.log(self.rate._t))

    def cdf(self, value):
        return wrap(1.0 - torch.exp(-self.rate._t * self._value(value, "Exponential.cdf")))

    def icdf(self, value):
        return wrap(-torch.log1p(-self._value(value, "Exponential.icdf")) / self.rate._t)

    def kl_divergence(self, other):
        if not isinstance(other, Exponential):
            raise TypeError(f"Exponential.kl_divergence: other must be an Exponential, got {type(other).__name__}")
        ratio = other.rate._t / self.rate._t
        return wrap(-torch.log(ratio) + ratio - 1)

    @property
    def _natural_parameters(self):
        return (wrap(-self.rate._t),)

    def _log_normalizer(self, x):
        return wrap(-torch.log(-x._t))


class Gamma(ExponentialFamily):
    """The gamma distribution with shape ``concentration`` and rate ``rate``."""

    def __init__(self, concentration, rate):
        self.concentration, self.rate = _util.tensor_params("Gamma", concentration, rate)
        self.dtype = _dtype_attr(self.concentration, isinstance(concentration, Tensor))
        super().__init__(self.concentration.shape)

    @property
    def mean(self):
        return wrap(self.concentration._t / self.rate._t)

    @property
    def variance(self):
        return wrap(self.concentration._t / self.rate._t.pow(2))

    def prob(self, value):
        return wrap(self.log_prob(value)._t.exp())

    def log_prob(self, value):
        c, r = self.concentration._t, self.rate._t
        v = _util.value_of(value, c.dtype, "Gamma.log_prob", cast=False)
        return wrap(c * torch.log(r) + (c - 1) * torch.log(v) - r * v - torch.lgamma(c))

    def entropy(self):
        c = self.concentration._t
        return wrap(c - torch.log(self.rate._t) + torch.lgamma(c) + (1.0 - c) * torch.digamma(c))

    def sample(self, shape=()):
        with torch.no_grad():
            return self.rsample(shape)

    def rsample(self, shape=()):
        # torch's standard gamma is reparameterized in concentration too (Paddle's differentiates only the rate)
        shape = self._extend_shape(_util.sample_shape(shape, "Gamma.rsample"))
        c = self.concentration._t.expand(shape).contiguous()
        return wrap(torch._standard_gamma(c) / self.rate._t.expand(shape))

    def kl_divergence(self, other):
        if not isinstance(other, Gamma):
            raise TypeError(f"Gamma.kl_divergence: other must be a Gamma, got {type(other).__name__}")
        c1, r1, c2, r2 = self.concentration._t, self.rate._t, other.concentration._t, other.rate._t
        return wrap(c2 * torch.log(r1 / r2) + torch.lgamma(c2) - torch.lgamma(c1)
                    + (c1 - c2) * torch.digamma(c1) + (r2 - r1) * (c1 / r1))

    @property
    def _natural_parameters(self):
        return (wrap(self.concentration._t - 1), wrap(-self.rate._t))

    def _log_normalizer(self, x, y):
        return wrap(torch.lgamma(x._t + 1) + (x._t + 1) * torch.log(-y._t.reciprocal()))


class Chi2(Gamma):
    """The chi-squared distribution with ``df`` degrees of freedom: Gamma(df / 2, 1 / 2)."""

    def __init__(self, df):
        (self.df,) = _util.tensor_params("Chi2", df)
        given = isinstance(df, Tensor)
        self.rate = wrap(torch.full_like(self.df._t, 0.5).detach())
        if not bool((self.df._t > 0).all()):
            raise ValueError("Chi2: the arg of `df` must be positive.")
        super().__init__(wrap(self.df._t * 0.5), self.rate)
        self.dtype = _dtype_attr(self.df, given)


class Dirichlet(ExponentialFamily):
    """The Dirichlet distribution over the simplex of the last axis of ``concentration``."""

    def __init__(self, concentration):
        if not isinstance(concentration, Tensor):
            raise _util.ValueTypeError(f"Dirichlet: concentration must be a Tensor, got {type(concentration).__name__}")
        c = _util.eager(concentration, "Dirichlet")._t
        if c.dim() < 1 or c.numel() == 0:
            raise ValueError("Dirichlet: `concentration` parameter must be at least one dimensional")
        self.concentration = concentration
        super().__init__(tuple(c.shape[:-1]), tuple(c.shape[-1:]))

    @property
    def mean(self):
        c = self.concentration._t
        return wrap(c / c.sum(-1, keepdim=True))

    @property
    def variance(self):
        c = self.concentration._t
        c0 = c.sum(-1, keepdim=True)
        return wrap(c * (c0 - c) / (c0.pow(2) * (c0 + 1)))

    def sample(self, shape=()):
        shape = self._extend_shape(_util.sample_shape(shape, "Dirichlet.sample"))
        with torch.no_grad():
            return wrap(torch._sample_dirichlet(self.concentration._t.expand(shape).contiguous()))

    def log_prob(self, value):
        c = self.concentration._t
        v = _util.value_of(value, c.dtype, "Dirichlet.log_prob", cast=False)
        return wrap((torch.log(v) * (c - 1.0)).sum(-1) + torch.lgamma(c.sum(-1)) - torch.lgamma(c).sum(-1))

    def prob(self, value):
        return wrap(self.log_prob(value)._t.exp())

    def entropy(self):
        c = self.concentration._t
        c0, k = c.sum(-1), c.shape[-1]
        return wrap(torch.lgamma(c).sum(-1) - torch.lgamma(c0) - (k - c0) * torch.digamma(c0)
                    - ((c - 1.0) * torch.digamma(c)).sum(-1))

    @property
    def _natural_parameters(self):
        return (self.concentration,)

    def _log_normalizer(self, x):
        return wrap(torch.lgamma(x._t).sum(-1) - torch.lgamma(x._t.sum(-1)))


class Beta(ExponentialFamily):
    """The beta distribution with concentrations ``alpha`` and ``beta`` (a two-class Dirichlet)."""

    def __init__(self, alpha, beta):
        alpha = _util.real_or_tensor(alpha, "Beta", "alpha")
        beta = _util.real_or_tensor(beta, "Beta", "beta")
        if alpha._t.dtype != beta._t.dtype:
            raise ValueError(f"Beta: alpha ({alpha.dtype}) and beta ({beta.dtype}) must have the same dtype")
        a, b = _util.broadcast("Beta", alpha._t, beta._t, copy=True)
        self.alpha, self.beta = wrap(a), wrap(b)
        self._dirichlet = Dirichlet(wrap(torch.stack([a, b], -1)))
        super().__init__(self._dirichlet._batch_shape)

    @property
    def mean(self):
        a, b = self.alpha._t, self.beta._t
        return wrap(a / (a + b))

    @property
    def variance(self):
        a, b = self.alpha._t, self.beta._t
        total = a + b
        return wrap(a * b / (total.pow(2) * (total + 1)))

    def prob(self, value):
        return wrap(self.log_prob(value)._t.exp())

    def log_prob(self, value):
        v = _util.value_of(value, self.alpha._t.dtype, "Beta.log_prob", cast=False)
        return self._dirichlet.log_prob(wrap(torch.stack([v, 1.0 - v], -1)))

    def sample(self, shape=()):
        x = self._dirichlet.sample(shape)._t[..., 0]
        # NOTE: Paddle squeezes the last axis of the draw when it has size 1 (so [4, 1] from a scalar Beta is [4])
        return wrap(x.squeeze(-1) if x.dim() and x.shape[-1] == 1 else x)

    def entropy(self):
        return self._dirichlet.entropy()

    @property
    def _natural_parameters(self):
        return (self.alpha, self.beta)

    def _log_normalizer(self, x, y):
        return wrap(torch.lgamma(x._t) + torch.lgamma(y._t) - torch.lgamma(x._t + y._t))
