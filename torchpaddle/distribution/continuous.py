"""Location-scale distributions: Normal (real and complex), Uniform, Cauchy, Laplace, StudentT."""
import math
import numbers

import numpy as np
import torch

from ..framework.tensor import Tensor, wrap
from . import _util
from .distribution import Distribution
from .exponential import Gamma

__all__ = ["Normal", "Uniform", "Cauchy", "Laplace", "StudentT"]

_LOG_SQRT_2PI = 0.5 * math.log(2 * math.pi)


def _as_float(x):
    return float(x) if isinstance(x, numbers.Integral) and not isinstance(x, bool) else x


def _float_pair(a, b, api):
    """Normal/Uniform parameters: Tensors as given; otherwise float32, or float64 when the first float ndarray
    among them is float64 (Python floats and lists give float32)."""
    if isinstance(a, Tensor) or isinstance(b, Tensor):
        return _util.tensor_params(api, a, b)
    dtype = torch.float32
    for x in (a, b):
        if isinstance(x, np.ndarray) and x.dtype in (np.float32, np.float64):
            dtype = torch.float64 if x.dtype == np.float64 else torch.float32
            break
    a, b = _util.numpy_params(api, a, b)
    return wrap(a._t.to(dtype)), wrap(b._t.to(dtype))


def _complex_params(loc, scale):
    """Normal with a complex ``loc``: loc keeps its precision (a Python complex is complex64), scale is real."""
    device = _util.current_torch_device()
    if isinstance(loc, complex):
        loc = wrap(torch.tensor(loc, dtype=torch.complex64, device=device))
    elif isinstance(loc, np.ndarray):
        loc = wrap(torch.tensor(loc.astype(np.complex64 if loc.dtype == np.complex64 else np.complex128),
                                device=device))
    else:
        loc = _util.eager(loc, "Normal")
    if isinstance(scale, Tensor):
        scale = _util.eager(scale, "Normal")
    elif isinstance(scale, np.ndarray):
        scale = wrap(torch.tensor(scale, device=device))
    elif isinstance(scale, float):
        scale = wrap(torch.tensor(scale, dtype=torch.float32, device=device))
    elif not isinstance(scale, Tensor):
        raise TypeError(f"Normal: scale must be a float, list, numpy.ndarray or Tensor, got {type(scale).__name__}")
    return loc, scale


def _is_complex(loc):
    if isinstance(loc, complex):
        return True
    if isinstance(loc, np.ndarray):
        return np.iscomplexobj(loc)
    return isinstance(loc, Tensor) and loc._t.is_complex()


class Normal(Distribution):
    """The normal distribution N(loc, scale**2); a complex ``loc`` gives the circular complex normal."""

    def __init__(self, loc, scale, name=None):
        self.name = name if name is not None else "Normal"
        loc, scale = _as_float(loc), _as_float(scale)
        if isinstance(loc, (list, tuple)):
            loc = np.array(loc)
            # NOTE: Paddle stores list parameters in single precision (float32 / complex64)
            loc = loc.astype({np.dtype(np.float64): np.float32, np.dtype(np.complex128): np.complex64}.get(
                loc.dtype, loc.dtype))
        if isinstance(scale, (list, tuple)):
            scale = np.array(scale, dtype=np.float32)
        self._complex_gaussian = _is_complex(loc)
        if self._complex_gaussian:
            self.loc, self.scale = _complex_params(loc, scale)
        else:
            self.loc, self.scale = _float_pair(loc, scale, "Normal")
        self.dtype = _util.dtype_name(self.loc._t.dtype)
        super().__init__(self.loc.shape)

    @property
    def mean(self):
        return self.loc

    @property
    def variance(self):
        return wrap(self.scale._t.pow(2))

    def _batch(self):
        return torch.broadcast_shapes(self.loc._t.shape, self.scale._t.shape)

    def sample(self, shape=(), seed=0):
        # NOTE: Paddle's Normal.sample keeps the graph to loc and scale (it is rsample with an optional seed)
        shape = _util.sample_shape(shape, "Normal.sample")
        loc, scale = self.loc._t, self.scale._t
        eps = torch.randn(shape + tuple(self._batch()), dtype=loc.dtype, device=loc.device,
                          generator=_util.generator(seed, loc.device))
        return wrap(eps * scale + loc)

    def rsample(self, shape=()):
        shape = self._extend_shape(_util.sample_shape(shape, "Normal.rsample"))
        loc, scale = self.loc._t, self.scale._t
        return wrap(loc + torch.randn(shape, dtype=loc.dtype, device=loc.device) * scale)

    def entropy(self):
        scale = self.scale._t
        if self._complex_gaussian:
            value = 1.0 + math.log(math.pi) + 2.0 * torch.log(scale)
        else:
            value = 0.5 + _LOG_SQRT_2PI + torch.log(scale)
        return wrap(_util.expand(value, self._batch()))

    def _sq_dist(self, value):
        v = _util.value_of(value, self.loc._t.dtype, "Normal.log_prob")
        d = v - self.loc._t
        return (d.conj() * d) if self._complex_gaussian else d * d

    def log_prob(self, value):
        var, scale = self.scale._t * self.scale._t, self.scale._t
        if self._complex_gaussian:
            return wrap(-self._sq_dist(value) / var - (2.0 * torch.log(scale) + math.log(math.pi)))
        return wrap(-self._sq_dist(value) / (2.0 * var) - (torch.log(scale) + _LOG_SQRT_2PI))

    def probs(self, value):
        var, scale = self.scale._t * self.scale._t, self.scale._t
        if self._complex_gaussian:
            return wrap(torch.exp(-self._sq_dist(value) / var) / (math.pi * var))
        return wrap(torch.exp(-self._sq_dist(value) / (2.0 * var)) / (math.sqrt(2 * math.pi) * scale))

    def kl_divergence(self, other):
        if not isinstance(other, Normal):
            raise TypeError(f"Normal.kl_divergence: other must be a Normal, got {type(other).__name__}")
        if self._complex_gaussian != other._complex_gaussian:
            raise ValueError("The kl divergence must be computed between two distributions in the same number field.")
        ratio = (self.scale._t / other.scale._t) ** 2
        t1 = (self.loc._t - other.loc._t) / other.scale._t
        if self._complex_gaussian:
            return wrap(ratio + t1.conj() * t1 - 1.0 - torch.log(ratio))
        return wrap(0.5 * ratio + 0.5 * (t1 * t1 - 1.0 - torch.log(ratio)))


class Uniform(Distribution):
    """The continuous uniform distribution on [low, high). (Paddle 3.3.1's has no mean, variance or rsample.)"""

    def __init__(self, low, high, name=None):
        self.name = name if name is not None else "Uniform"
        self.low, self.high = _float_pair(_as_float(low), _as_float(high), "Uniform")
        self.dtype = _util.dtype_name(self.low._t.dtype)
        super().__init__(self.low.shape)

    def sample(self, shape=(), seed=0):
        shape = _util.sample_shape(shape, "Uniform.sample")
        low, high = self.low._t, self.high._t
        batch = torch.broadcast_shapes(low.shape, high.shape)
        u = torch.rand(shape + tuple(batch), dtype=low.dtype, device=low.device,
                       generator=_util.generator(seed, low.device))
        return wrap(u * (high - low) + low)

    def _inside(self, value):
        v = _util.value_of(value, self.low._t.dtype, "Uniform.log_prob")
        return ((self.low._t < v) & (v < self.high._t)).to(v.dtype)

    def log_prob(self, value):
        return wrap(torch.log(self._inside(value)) - torch.log(self.high._t - self.low._t))

    def probs(self, value):
        return wrap(self._inside(value) / (self.high._t - self.low._t))

    def entropy(self):
        return wrap(torch.log(self.high._t - self.low._t))


def _loc_scale(loc, scale, api):
    loc = _util.real_or_tensor(loc, api, "loc")
    scale = _util.real_or_tensor(scale, api, "scale")
    if loc.shape != scale.shape:
        loc, scale = (wrap(t) for t in _util.broadcast(api, loc._t, scale._t, copy=True))
    return loc, scale


class Cauchy(Distribution):
    """The Cauchy distribution; it has no mean or variance (those raise ValueError, as in Paddle)."""

    def __init__(self, loc, scale, name=None):
        self.name = name if name is not None else "Cauchy"
        self.loc, self.scale = _loc_scale(loc, scale, "Cauchy")
        self.dtype = self.loc.dtype
        super().__init__(batch_shape=self.loc.shape, event_shape=())

    @property
    def mean(self):
        raise ValueError("Cauchy distribution has no mean.")

    @property
    def variance(self):
        raise ValueError("Cauchy distribution has no variance.")

    @property
    def stddev(self):
        raise ValueError("Cauchy distribution has no stddev.")

    def sample(self, shape=(), name=None):
        with torch.no_grad():
            return self.rsample(shape, name)

    def rsample(self, shape=(), name=None):
        shape = self._extend_shape(_util.sample_shape(shape, "Cauchy.rsample"))
        loc = self.loc._t
        u = torch.rand(shape, dtype=loc.dtype, device=loc.device)
        return wrap(loc + self.scale._t * torch.tan(math.pi * (u - 0.5)))

    def _values(self, value, api):
        v = _util.value_of(value, self.loc._t.dtype, api)
        return _util.broadcast(api, self.loc._t, self.scale._t, v)

    def log_prob(self, value):
        loc, scale, v = self._values(value, "Cauchy.log_prob")
        return wrap(-torch.log1p(((v - loc) / scale) ** 2) - (math.log(math.pi) + torch.log(scale)))

    def prob(self, value):
        return wrap(self.log_prob(value)._t.exp())

    def cdf(self, value):
        loc, scale, v = self._values(value, "Cauchy.cdf")
        return wrap(torch.atan((v - loc) / scale) / math.pi + 0.5)

    def entropy(self):
        scale = self.scale._t
        return wrap(_util.expand(math.log(4 * math.pi) + torch.log(scale), self.loc._t.shape))

    def kl_divergence(self, other):
        if not isinstance(other, Cauchy):
            raise TypeError(f"Cauchy.kl_divergence: other must be a Cauchy, got {type(other).__name__}")
        a_loc, a_scale, b_loc, b_scale = self.loc._t, self.scale._t, other.loc._t, other.scale._t
        return wrap(torch.log((a_scale + b_scale) ** 2 + (a_loc - b_loc) ** 2) - torch.log(4 * a_scale * b_scale))


class Laplace(Distribution):
    """The Laplace distribution with location ``loc`` and scale ``scale``."""

    def __init__(self, loc, scale):
        loc = _util.real_or_tensor(loc, "Laplace", "loc")
        scale = _util.real_or_tensor(scale, "Laplace", "scale")
        if (scale.ndim > 0 or loc.ndim > 0) and loc._t.dtype == scale._t.dtype:
            loc, scale = (wrap(t) for t in _util.broadcast("Laplace", loc._t, scale._t, copy=True))
        self.loc, self.scale = loc, scale
        super().__init__(self.loc.shape)

    @property
    def mean(self):
        return self.loc

    @property
    def stddev(self):
        return wrap(math.sqrt(2) * self.scale._t)

    @property
    def variance(self):
        return wrap(2.0 * self.scale._t.pow(2))

    def _values(self, value, api):
        v = _util.value_of(value, self.scale._t.dtype, api, numbers_ok=True)
        return _util.broadcast(api, self.loc._t, self.scale._t, v)

    def log_prob(self, value):
        loc, scale, v = self._values(value, "Laplace.log_prob")
        return wrap(-torch.log(2 * scale) - torch.abs(v - loc) / scale)

    def entropy(self):
        return wrap(1 + torch.log(2 * self.scale._t))

    def cdf(self, value):
        loc, scale, v = self._values(value, "Laplace.cdf")
        return wrap(0.5 - 0.5 * (v - loc).sign() * torch.expm1(-(v - loc).abs() / scale))

    def icdf(self, value):
        loc, scale, v = self._values(value, "Laplace.icdf")
        term = v - 0.5
        return wrap(loc - scale * term.sign() * torch.log1p(-2 * term.abs()))

    def sample(self, shape=()):
        with torch.no_grad():
            return self.rsample(shape)

    def rsample(self, shape=()):
        shape = self._extend_shape(_util.sample_shape(shape, "Laplace.rsample"))
        loc = self.loc._t
        # NOTE: Paddle draws u from (-1, 1) shrunk by half an epsilon at each end, so log1p(-|u|) stays finite
        eps = 2.22045e-16 if loc.dtype in (torch.float64, torch.complex128) else 1.19209e-07
        low, high = float(np.nextafter(-1, 1)) + eps / 2, 1.0 - eps / 2
        u = torch.rand(shape, dtype=loc.dtype, device=loc.device) * (high - low) + low
        return wrap(loc - self.scale._t * u.sign() * torch.log1p(-u.abs()))

    def kl_divergence(self, other):
        if not isinstance(other, Laplace):
            raise TypeError(f"Laplace.kl_divergence: other must be a Laplace, got {type(other).__name__}")
        t = torch.abs(self.loc._t - other.loc._t)
        scale = self.scale._t
        return wrap((scale * torch.exp(-t / scale) + t) / other.scale._t + torch.log(other.scale._t / scale) - 1)


class StudentT(Distribution):
    """Student's t distribution with ``df`` degrees of freedom, location ``loc`` and scale ``scale``."""

    def __init__(self, df, loc, scale, name=None):
        self.name = name if name is not None else "StudentT"
        self.df, self.loc, self.scale = self._broadcast_all(df, loc, scale)
        if not bool((self.df._t >= 0).all()):
            raise ValueError("StudentT: every element of input parameter `df` should be nonnegative.")
        if not bool((self.scale._t >= 0).all()):
            raise ValueError("StudentT: every element of input parameter `scale` should be nonnegative.")
        super().__init__(self.df.shape)
        self._chi2 = Gamma(wrap(0.5 * self.df._t), wrap(torch.full_like(self.df._t, 0.5)))

    @property
    def mean(self):
        df, loc = self.df._t, self.loc._t
        return wrap(torch.where(df > 1.0, loc, torch.full_like(loc, math.nan)))

    @property
    def variance(self):
        # NOTE: Paddle's variance does not differentiate through df
        df = self.df._t.detach()
        var = torch.where(df > 2.0, self.scale._t.pow(2) * df / (df - 2), torch.full_like(df, math.nan))
        return wrap(torch.where((df <= 2.0) & (df > 1.0), torch.full_like(var, math.inf), var))

    def sample(self, shape=()):
        shape = _util.sample_shape(shape, "StudentT.sample")
        z = torch.randn(self._extend_shape(shape), dtype=_util.default_torch_dtype(), device=self.df._t.device)
        chi2 = self._chi2.sample(shape)._t
        return wrap(self.loc._t + self.scale._t * (z * torch.rsqrt(chi2 / self.df._t)))

    def entropy(self):
        df, scale = self.df._t, self.scale._t
        lbeta = torch.lgamma(0.5 * df) + math.lgamma(0.5) - torch.lgamma(0.5 * (df + 1))
        return wrap(torch.log(scale) + 0.5 * (df + 1) * (torch.digamma(0.5 * (df + 1)) - torch.digamma(0.5 * df))
                    + 0.5 * torch.log(df) + lbeta)

    def log_prob(self, value):
        df, loc, scale = self.df._t, self.loc._t, self.scale._t
        y = (_util.value_of(value, df.dtype, "StudentT.log_prob") - loc) / scale
        z = (torch.log(scale) + 0.5 * torch.log(df) + 0.5 * math.log(math.pi) + torch.lgamma(0.5 * df)
             - torch.lgamma(0.5 * (df + 1.0)))
        return wrap(-0.5 * (df + 1.0) * torch.log1p(y ** 2 / df) - z)

    def prob(self, value):
        return wrap(self.log_prob(value)._t.exp())
