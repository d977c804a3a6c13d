"""kl_divergence and register_kl: KL(p || q) looked up by the classes of p and q, most specific match first."""
import functools
import warnings

import torch

from ..framework.tensor import wrap
from . import _util
from .bernoulli import Bernoulli, ContinuousBernoulli
from .continuous import Cauchy, Laplace, Normal, Uniform
from .discrete import Binomial, Categorical, Geometric, Poisson
from .distribution import Distribution, ExponentialFamily, _normalizer_grads
from .exponential import Beta, Dirichlet, Exponential, Gamma
from .multivariate import MultivariateNormal
from .transformed_distribution import LogNormal

__all__ = ["register_kl", "kl_divergence"]

_REGISTER_TABLE = {}


def kl_divergence(p, q):
    """KL(p || q) by the function registered for the closest pair of classes; NotImplementedError if none."""
    return _dispatch(type(p), type(q))(p, q)


def register_kl(cls_p, cls_q):
    """Decorator registering ``fn(p, q)`` as KL(p || q) for p of ``cls_p`` and q of ``cls_q`` (and subclasses)."""
    if not (isinstance(cls_p, type) and isinstance(cls_q, type)
            and issubclass(cls_p, Distribution) and issubclass(cls_q, Distribution)):
        raise TypeError(f"register_kl: cls_p and cls_q must be subclasses of Distribution, got {cls_p!r} and "
                        f"{cls_q!r}")

    def decorator(fn):
        _REGISTER_TABLE[cls_p, cls_q] = fn
        return fn

    return decorator


@functools.total_ordering
class _Match:
    """A registered (cls_p, cls_q) pair ordered so that the most specific pair is the smallest."""
    __slots__ = ("types",)

    def __init__(self, *types):
        self.types = types

    def __eq__(self, other):
        return self.types == other.types

    def __le__(self, other):
        for x, y in zip(self.types, other.types):
            if not issubclass(x, y):
                return False
            if x is not y:
                break
        return True


def _dispatch(cls_p, cls_q):
    matches = [(p, q) for p, q in _REGISTER_TABLE if issubclass(cls_p, p) and issubclass(cls_q, q)]
    if not matches:
        raise NotImplementedError(f"kl_divergence: no KL registered for ({cls_p.__name__}, {cls_q.__name__})")
    left_p, left_q = min(_Match(*m) for m in matches).types
    right_q, right_p = min(_Match(*reversed(m)) for m in matches).types
    # NOTE: Paddle 3.3.1 looks the second candidate up with its classes swapped and raises KeyError here
    if _REGISTER_TABLE[left_p, left_q] is not _REGISTER_TABLE[right_p, right_q]:
        warnings.warn(f"Ambiguous kl_divergence({cls_p.__name__}, {cls_q.__name__}). Please "
                      f"register_kl({left_p.__name__}, {right_q.__name__})", RuntimeWarning)
    return _REGISTER_TABLE[left_p, left_q]


def _by_method():
    def kl(p, q):
        return p.kl_divergence(q)
    return kl


# one function per pair, so that an ambiguous lookup between two of them is noticed
for _cls in (Bernoulli, Binomial, Categorical, Cauchy, ContinuousBernoulli, Normal, MultivariateNormal, Uniform,
             Laplace, Geometric, Exponential, Gamma, Poisson):
    register_kl(_cls, _cls)(_by_method())


@register_kl(Beta, Beta)
def _kl_beta_beta(p, q):
    pa, pb, qa, qb = p.alpha._t, p.beta._t, q.alpha._t, q.beta._t
    ps, qs = pa + pb, qa + qb
    return wrap(torch.lgamma(qa) + torch.lgamma(qb) + torch.lgamma(ps)
                - (torch.lgamma(pa) + torch.lgamma(pb) + torch.lgamma(qs))
                + (pa - qa) * torch.digamma(pa) + (pb - qb) * torch.digamma(pb) + (qs - ps) * torch.digamma(ps))


@register_kl(Dirichlet, Dirichlet)
def _kl_dirichlet_dirichlet(p, q):
    pc, qc = p.concentration._t, q.concentration._t
    p0 = pc.sum(-1)
    return wrap(torch.lgamma(p0) - torch.lgamma(qc.sum(-1)) - (torch.lgamma(pc) - torch.lgamma(qc)).sum(-1)
                + ((pc - qc) * (torch.digamma(pc) - torch.digamma(p0).unsqueeze(-1))).sum(-1))


@register_kl(LogNormal, LogNormal)
def _kl_lognormal_lognormal(p, q):
    return p._base.kl_divergence(q._base)


@register_kl(ExponentialFamily, ExponentialFamily)
def _kl_expfamily_expfamily(p, q):
    """The Bregman divergence of the log normalizer, for two members of the same exponential family."""
    if type(p) is not type(q):
        raise NotImplementedError(f"kl_divergence: no KL registered for ({type(p).__name__}, {type(q).__name__})")
    try:
        p_params, p_log_norm, p_grads = _normalizer_grads(p)
    except RuntimeError as e:
        raise TypeError(f"Can't compute kl_divergence({type(p).__name__}, {type(q).__name__}) as a Bregman "
                        f"divergence. Please register_kl({type(p).__name__}, {type(q).__name__}).") from e
    kl = q._log_normalizer(*q._natural_parameters)._t - p_log_norm._t
    for p_param, q_param, grad in zip(p_params, q._natural_parameters, p_grads):
        kl = kl - _util.sum_rightmost((q_param._t - p_param._t) * grad, len(q.event_shape))
    return wrap(kl)
