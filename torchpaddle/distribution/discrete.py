"""Count distributions: Geometric, Poisson, Binomial, Categorical, Multinomial."""
import math
import numbers

import numpy as np
import torch
import torch.nn.functional as F

from ..framework.tensor import Tensor, wrap
from . import _util
from .distribution import Distribution

__all__ = ["Geometric", "Poisson", "Binomial", "Categorical", "Multinomial"]

_TINY32 = float(np.finfo(np.float32).tiny)


def _enumerate(values, batch_rank):
    """Support points as a column, shaped to broadcast against a batch of ``batch_rank`` dims."""
    return values.reshape((-1,) + (1,) * batch_rank)


def _expectation_entropy(log_prob):
    return -(torch.exp(log_prob) * log_prob).sum(0)


class Geometric(Distribution):
    """The number of failures before the first success, with success probability ``probs``.
    (Paddle 3.3.1's has pmf/log_pmf, not log_prob/prob.)"""

    def __init__(self, probs):
        if isinstance(probs, Tensor):
            probs = _util.eager(probs, "Geometric")
        elif isinstance(probs, numbers.Real) and not isinstance(probs, bool):
            probs = _util.full(probs, torch.float32)
        else:
            raise TypeError(f"Geometric: probs must be a Real or a Tensor, got {type(probs).__name__}")
        self.probs = probs
        super().__init__(tuple(probs.shape))

    @property
    def mean(self):
        return wrap(1.0 / self.probs._t - 1.0)

    @property
    def variance(self):
        # NOTE: Paddle builds the variance with to_tensor, so it carries no gradient
        p = self.probs._t.detach()
        return wrap((1.0 / p - 1.0) / p)

    @property
    def stddev(self):
        return wrap(torch.sqrt(self.variance._t))

    def _k(self, k, api):
        if isinstance(k, Tensor):
            return _util.eager(k, api)._t
        if isinstance(k, numbers.Integral) and not isinstance(k, bool):
            return k
        raise TypeError(f"{api}: k must be an int or a Tensor, got {type(k).__name__}")

    def pmf(self, k):
        p = self.probs._t
        return wrap(torch.pow(1.0 - p, self._k(k, "Geometric.pmf")) * p)

    def log_pmf(self, k):
        return wrap(torch.log(self.pmf(k)._t))

    def cdf(self, k):
        return wrap(1.0 - torch.pow(1.0 - self.probs._t, self._k(k, "Geometric.cdf") + 1))

    def sample(self, shape=()):
        with torch.no_grad():
            return self.rsample(shape)

    def rsample(self, shape=()):
        shape = self._extend_shape(_util.sample_shape(shape, "Geometric.rsample"))
        p = self.probs._t
        u = torch.rand(shape, dtype=p.dtype, device=p.device) * (1.0 - _TINY32) + _TINY32
        return wrap(torch.floor(torch.log(u) / torch.log1p(-p)))

    def entropy(self):
        p = self.probs._t
        return wrap(-((1.0 - p) * torch.log(1.0 - p) + p * torch.log(p)) / p)

    def kl_divergence(self, other):
        if not isinstance(other, Geometric):
            raise TypeError(f"Geometric.kl_divergence: other must be a Geometric, got {type(other).__name__}")
        p, q = self.probs._t, other.probs._t
        return wrap(p * torch.log(p / q) + (1.0 - p) * torch.log((1.0 - p) / (1.0 - q)))


class Poisson(Distribution):
    """The Poisson distribution with rate ``rate``; a Python number gives batch shape [1], as in Paddle.
    Entropy and KL sum over the support up to rate + 30 * sqrt(rate)."""

    def __init__(self, rate):
        if isinstance(rate, Tensor):
            rate = _util.eager(rate, "Poisson")
        elif isinstance(rate, (int, float)) and not isinstance(rate, bool):
            rate = wrap(torch.tensor([float(rate)], dtype=_util.default_torch_dtype(),
                                     device=_util.current_torch_device()))
        else:
            raise _util.ValueTypeError(f"Poisson: rate must be a float or a Tensor, got {type(rate).__name__}")
        self.rate = rate
        self.dtype = _util.dtype_name(rate._t.dtype)
        super().__init__(rate.shape)

    @property
    def mean(self):
        return self.rate

    @property
    def variance(self):
        return self.rate

    def sample(self, shape=()):
        shape = _util.sample_shape(shape, "Poisson.sample") + tuple(self.batch_shape)
        with torch.no_grad():
            return wrap(torch.poisson(self.rate._t.expand(shape).contiguous()))

    def _support(self, rate):
        top = rate.max()
        s_max = torch.sqrt(top) if bool(top >= 1.0) else torch.ones_like(rate)
        upper = int((rate + 30 * s_max).to(torch.int32).max())
        return torch.arange(0, upper, dtype=rate.dtype, device=rate.device)

    def entropy(self):
        rate = self.rate._t
        values = _enumerate(self._support(rate), len(self.batch_shape))
        proposed = _expectation_entropy(self._log_prob(values))
        return wrap(proposed * (rate != 0).to(rate.dtype))

    def _log_prob(self, v):
        rate = self.rate._t
        return torch.nan_to_num(-rate + v * torch.log(rate) - torch.lgamma(v + 1), neginf=-_util.eps(rate.dtype))

    def log_prob(self, value):
        return wrap(self._log_prob(_util.value_of(value, self.rate._t.dtype, "Poisson.log_prob")))

    def prob(self, value):
        return wrap(self.log_prob(value)._t.exp())

    def kl_divergence(self, other):
        if not isinstance(other, Poisson):
            raise TypeError(f"Poisson.kl_divergence: other must be a Poisson, got {type(other).__name__}")
        if self.batch_shape != other.batch_shape:
            raise ValueError("KL divergence of two poisson distributions should share the same `batch_shape`.")
        rate = self.rate._t
        top = torch.maximum(rate, other.rate._t).max()
        # NOTE: Paddle's common support stops one short of its own bound (arange to the largest support point)
        last = self._support(top).max()
        support = _enumerate(torch.arange(0, int(last), dtype=rate.dtype, device=rate.device), len(self.batch_shape))
        lp1, lp2 = self._log_prob(support), other._log_prob(support)
        return wrap((torch.exp(lp1) * (lp1 - lp2)).sum(0))


class Binomial(Distribution):
    """The binomial distribution: successes in ``total_count`` trials of probability ``probs``."""

    def __init__(self, total_count, probs):
        if isinstance(probs, float):
            p = torch.tensor(probs, dtype=_util.default_torch_dtype(), device=_util.current_torch_device())
        elif isinstance(probs, Tensor):
            p = _util.eager(probs, "Binomial")._t
        else:
            raise _util.ValueTypeError(f"Binomial: probs must be a float or a Tensor, got {type(probs).__name__}")
        self.dtype = _util.dtype_name(p.dtype)
        if isinstance(total_count, int) and not isinstance(total_count, bool):
            n = torch.tensor(total_count, dtype=p.dtype, device=p.device)
        elif isinstance(total_count, Tensor):
            n = _util.eager(total_count, "Binomial")._t.to(p.dtype)
        else:
            raise _util.ValueTypeError(f"Binomial: total_count must be an int or a Tensor, got "
                                       f"{type(total_count).__name__}")
        n, p = _util.broadcast("Binomial", n, p, copy=True)
        self.total_count, self.probs = wrap(n), wrap(p)
        super().__init__(self.total_count.shape)

    @property
    def mean(self):
        return wrap(self.total_count._t * self.probs._t)

    @property
    def variance(self):
        p = self.probs._t
        return wrap(self.total_count._t * p * (1 - p))

    def sample(self, shape=()):
        shape = _util.sample_shape(shape, "Binomial.sample") + tuple(self.batch_shape)
        with torch.no_grad():
            n = self.total_count._t.to(torch.int32).to(self.probs._t.dtype).expand(shape).contiguous()
            return wrap(torch.binomial(n, self.probs._t.expand(shape).contiguous()))

    def _support(self):
        n = self.total_count._t
        values = torch.arange(1 + int(n.max()), dtype=n.dtype, device=n.device)
        return _enumerate(values, len(self.batch_shape))

    def _log_prob(self, v):
        n, p = self.total_count._t, _util.clip_probs(self.probs._t)
        log_comb = torch.lgamma(n + 1.0) - torch.lgamma(n - v + 1.0) - torch.lgamma(v + 1.0)
        return torch.nan_to_num(log_comb + v * torch.log(p) + (n - v) * torch.log(1 - p),
                                neginf=-_util.eps(p.dtype))

    def log_prob(self, value):
        return wrap(self._log_prob(_util.value_of(value, self.probs._t.dtype, "Binomial.log_prob")))

    def prob(self, value):
        return wrap(self.log_prob(value)._t.exp())

    def entropy(self):
        return wrap(_expectation_entropy(self._log_prob(self._support())))

    def kl_divergence(self, other):
        if not isinstance(other, Binomial):
            raise TypeError(f"Binomial.kl_divergence: other must be a Binomial, got {type(other).__name__}")
        support = self._support()
        lp1, lp2 = self._log_prob(support), other._log_prob(support)
        return wrap((torch.exp(lp1) * (lp1 - lp2)).sum(0))


class Categorical(Distribution):
    """The categorical distribution over the last axis of ``logits``. As in Paddle 3.3.1, ``sample``, ``entropy``
    and ``kl_divergence`` read ``logits`` as log-odds (softmax), while ``probs``/``log_prob`` read them as
    unnormalized probabilities (logits / sum)."""

    def __init__(self, logits, name=None):
        self.name = name if name is not None else "Categorical"
        if isinstance(logits, Tensor):
            logits = _util.eager(logits, self.name)
        else:
            dtype = torch.float32
            if isinstance(logits, np.ndarray) and logits.dtype == np.float64:
                dtype = torch.float64
            logits = wrap(_util.numpy_params(self.name, logits)[0]._t.to(dtype))
        self.logits = logits
        self.dtype = _util.dtype_name(logits._t.dtype)
        x = logits._t
        self._prob = wrap(x / x.sum(-1, keepdim=True))
        super().__init__(tuple(x.shape[:-1]), ())

    def sample(self, shape=()):
        shape = _util.sample_shape(shape, f"{self.name}.sample")
        x = self.logits._t
        count = math.prod(shape)
        with torch.no_grad():
            probs = torch.softmax(x.reshape(-1, x.shape[-1]) if x.dim() > 1 else x, -1)
            draws = torch.multinomial(probs, count, replacement=True)
            return wrap(draws.movedim(-1, 0).reshape(shape + tuple(x.shape[:-1])))

    def _log_softmax_parts(self, logits):
        shifted = logits - logits.max(-1, keepdim=True).values
        z = torch.exp(shifted).sum(-1, keepdim=True)
        return shifted - torch.log(z)

    def kl_divergence(self, other):
        if not isinstance(other, Categorical):
            raise TypeError(f"Categorical.kl_divergence: other must be a Categorical, got {type(other).__name__}")
        log_p, log_q = self._log_softmax_parts(self.logits._t), self._log_softmax_parts(other.logits._t)
        return wrap((torch.exp(log_p) * (log_p - log_q)).sum(-1, keepdim=True))

    def entropy(self):
        log_p = self._log_softmax_parts(self.logits._t)
        return wrap(-(torch.exp(log_p) * log_p).sum(-1))

    def probs(self, value):
        if not isinstance(value, Tensor) or value._t.is_floating_point() or value._t.is_complex():
            raise _util.ValueTypeError(f"{self.name}.probs: value must be an integer Tensor, got "
                                       f"{value.dtype if isinstance(value, Tensor) else type(value).__name__}")
        prob, idx = self._prob._t, _util.eager(value, self.name)._t.long()
        if prob.dim() == 1:
            return wrap(prob[idx.reshape(-1)].reshape(idx.shape))
        if idx.dim() == 1:
            idx = idx.reshape((1,) * (prob.dim() - 1) + (-1,))
        # Paddle's take_along_axis broadcasts the index against the probabilities outside the last axis
        batch = torch.broadcast_shapes(prob.shape[:-1], idx.shape[:-1])
        return wrap(torch.gather(prob.expand(batch + prob.shape[-1:]), -1, idx.expand(batch + idx.shape[-1:])))

    def log_prob(self, value):
        return wrap(torch.log(self.probs(value)._t))


class Multinomial(Distribution):
    """Counts of ``total_count`` draws from a categorical distribution with probabilities ``probs``."""

    def __init__(self, total_count, probs):
        if not isinstance(total_count, int) or isinstance(total_count, bool) or total_count < 1:
            raise ValueError(f"Multinomial: total_count must be an int greater than zero, got {total_count!r}")
        if not isinstance(probs, Tensor):
            raise _util.ValueTypeError(f"Multinomial: probs must be a Tensor, got {type(probs).__name__}")
        p = _util.eager(probs, "Multinomial")._t
        if p.dim() < 1:
            raise ValueError("Multinomial: probs must have at least one dimension")
        self.probs = wrap(p / p.sum(-1, keepdim=True))
        self.total_count = total_count
        self._categorical = Categorical(logits=wrap(torch.log(p)))
        super().__init__(tuple(p.shape[:-1]), tuple(p.shape[-1:]))

    @property
    def mean(self):
        return wrap(self.probs._t * self.total_count)

    @property
    def variance(self):
        p = self.probs._t
        return wrap(self.total_count * p * (1 - p))

    def prob(self, value):
        return wrap(self.log_prob(value)._t.exp())

    def log_prob(self, value):
        p = self.probs._t
        v = _util.value_of(value, p.dtype, "Multinomial.log_prob")
        logits, v = _util.broadcast("Multinomial", torch.log(p), v)
        # 0 * log(0) counts as 0: a zero-probability class that was never drawn costs nothing
        logits = logits.masked_fill((v == 0) & torch.isinf(logits), 0)
        return wrap(torch.lgamma(v.sum(-1) + 1) - torch.lgamma(v + 1).sum(-1) + (v * logits).sum(-1))

    def sample(self, shape=()):
        shape = _util.sample_shape(shape, "Multinomial.sample")
        draws = self._categorical.sample((self.total_count,) + shape)._t
        return wrap(F.one_hot(draws, self.probs._t.shape[-1]).to(self.probs._t.dtype).sum(0))

    def entropy(self):
        p = self.probs._t
        n = torch.tensor(float(self.total_count), dtype=p.dtype, device=p.device)
        support = _enumerate(torch.arange(self.total_count + 1, dtype=p.dtype, device=p.device), p.dim())[1:]
        binomial_pmf = torch.exp(self._binomial_log_pmf(n, support))
        return wrap(n * self._categorical.entropy()._t - torch.lgamma(n + 1)
                    + (binomial_pmf * torch.lgamma(support + 1)).sum([0, -1]))

    def _binomial_log_pmf(self, n, k):
        logits = torch.log(self.probs._t) - torch.log1p(-self.probs._t)
        norm = n * F.softplus(logits) - torch.lgamma(n + 1)
        return k * logits - torch.lgamma(k + 1) - torch.lgamma(n - k + 1) - norm
