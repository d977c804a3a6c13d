"""paddle.distribution.Distribution and ExponentialFamily: the base classes, with the helpers Paddle gives
subclasses (``_extend_shape``, ``_to_tensor``, ``_broadcast_all``, ...)."""
import numpy as np
import torch

from ..framework import dtype as _dtype
from ..framework.place import current_torch_device
from ..framework.tensor import Tensor, wrap
from . import _util

__all__ = ["Distribution", "ExponentialFamily"]


class Distribution:
    """The abstract distribution: a batch of independent distributions over events of ``event_shape``."""

    def __init__(self, batch_shape=(), event_shape=()):
        self._batch_shape = tuple(batch_shape)
        self._event_shape = tuple(event_shape)
        super().__init__()

    @property
    def batch_shape(self):
        return self._batch_shape

    @property
    def event_shape(self):
        return self._event_shape

    @property
    def mean(self):
        raise NotImplementedError

    @property
    def variance(self):
        raise NotImplementedError

    def sample(self, shape=()):
        raise NotImplementedError

    def rsample(self, shape=()):
        raise NotImplementedError

    def entropy(self):
        raise NotImplementedError

    def kl_divergence(self, other):
        raise NotImplementedError

    def prob(self, value):
        return self.log_prob(value).exp()

    def log_prob(self, value):
        raise NotImplementedError

    def probs(self, value):
        raise NotImplementedError

    # -- helpers for subclasses, as Paddle's ------------------------------------------------------------------
    def _extend_shape(self, sample_shape):
        return tuple(sample_shape) + tuple(self._batch_shape) + tuple(self._event_shape)

    def _validate_args(self, *args):
        """True when every argument is a Tensor, False when none is; a mix is a ValueError."""
        tensors = [isinstance(a, Tensor) for a in args]
        if any(tensors) and not all(tensors):
            raise ValueError("if one argument is Tensor, all arguments should be Tensor")
        return bool(tensors) and all(tensors)

    def _to_tensor(self, *args):
        return _util.numpy_params(type(self).__name__, *args)

    def _broadcast_all(self, *args):
        """Parameters as Tensors of one shape: non-Tensors take the first Tensor's dtype (else the default)."""
        api = type(self).__name__
        for arg in args:
            if isinstance(arg, bool) or not isinstance(arg, (float, list, tuple, np.ndarray, Tensor)):
                raise TypeError(f"{api}: parameters must be float, list, tuple, numpy.ndarray or Tensor, got "
                                f"{type(arg).__name__}")
        dtype = next((a._t.dtype for a in args if isinstance(a, Tensor)), _util.default_torch_dtype())
        device = next((a._t.device for a in args if isinstance(a, Tensor)), None)
        ts = [_util.eager(a, api)._t if isinstance(a, Tensor)
              else torch.as_tensor(a, dtype=dtype, device=device or current_torch_device()) for a in args]
        return tuple(wrap(t) for t in _util.broadcast(api, *ts, copy=True))

    def _check_values_dtype_in_probs(self, param, value):
        return wrap(_util.value_of(value, param._t.dtype, type(self).__name__))

    def _probs_to_logits(self, probs, is_binary=False):
        p = probs._t
        return wrap(torch.log(p) - torch.log1p(-p) if is_binary else torch.log(p))

    def _logits_to_probs(self, logits, is_binary=False):
        x = logits._t
        return wrap(torch.sigmoid(x) if is_binary else torch.softmax(x, -1))


class ExponentialFamily(Distribution):
    """Distributions of the exponential family. A subclass gives ``_natural_parameters``, ``_log_normalizer``
    and ``_mean_carrier_measure``; entropy (and KL between two of the same class) then follow from the
    gradient of the log normalizer (the Bregman divergence)."""

    @property
    def _natural_parameters(self):
        raise NotImplementedError

    def _log_normalizer(self, *natural_parameters):
        raise NotImplementedError

    @property
    def _mean_carrier_measure(self):
        raise NotImplementedError

    def entropy(self):
        params, log_norm, grads = _normalizer_grads(self)
        result = log_norm._t - _unwrap(self._mean_carrier_measure)
        for p, g in zip(params, grads):
            result = result - p._t * g
        return wrap(result)


def _unwrap(x):
    return x._t if isinstance(x, Tensor) else x


def _normalizer_grads(dist):
    """(natural parameters detached to fresh leaves, the log normalizer at them, its gradients at them)."""
    params = []
    for p in dist._natural_parameters:
        p = p._t if isinstance(p, Tensor) else torch.as_tensor(p, dtype=_dtype.default_float().torch)
        params.append(wrap(p.detach().requires_grad_()))
    with torch.enable_grad():
        log_norm = dist._log_normalizer(*params)
        grads = torch.autograd.grad(log_norm._t.sum(), [p._t for p in params], create_graph=True)
    return params, log_norm, grads
