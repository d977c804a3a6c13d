"""paddle.regularizer: L1Decay and L2Decay, the weight-decay terms optimizers add to gradients.

A regularizer set on a parameter (``ParamAttr(regularizer=...)``) takes precedence over the optimizer's
``weight_decay``. ``__call__(param, grad, block)`` returns the term added to the gradient, as in Paddle;
optimizers use ``_term`` (torch in, torch out) on their hot path.
"""
import torch

from .framework.tensor import Tensor, wrap

__all__ = ["L1Decay", "L2Decay"]


class WeightDecayRegularizer:
    """Base class of weight-decay regularizers: ``__call__`` returns the gradient of the penalty."""

    def __call__(self, param, grad, block=None):
        raise NotImplementedError

    def __str__(self):
        raise NotImplementedError


class _CoeffDecay(WeightDecayRegularizer):
    _kind = ""

    def __init__(self, coeff=0.0):
        if coeff is None:
            raise AssertionError(f"{type(self).__name__}: coeff must not be None")
        if isinstance(coeff, bool) or not isinstance(coeff, (int, float)):
            if not (isinstance(coeff, Tensor) and coeff.size == 1):
                raise TypeError(f"{type(self).__name__}: coeff must be a float, got {type(coeff).__name__}")
        super().__init__()
        self._coeff = coeff

    def _value(self):
        return float(self._coeff._t) if isinstance(self._coeff, Tensor) else float(self._coeff)

    def _term(self, p):
        raise NotImplementedError

    def __call__(self, param, grad, block=None):
        if not isinstance(param, Tensor):
            raise TypeError(f"{type(self).__name__}: param must be a Tensor, got {type(param).__name__}")
        with torch.no_grad():
            return wrap(self._term(param._t))

    def __str__(self):
        return f"{self._kind}, coeff={self._value():f}"


class L1Decay(_CoeffDecay):
    """Adds ``coeff * sign(param)`` to the gradient (the gradient of ``coeff * sum(abs(param))``)."""
    _kind = "L1Decay"

    def _term(self, p):
        return torch.sign(p) * self._value()


class L2Decay(_CoeffDecay):
    """Adds ``coeff * param`` to the gradient (the gradient of ``0.5 * coeff * sum(param ** 2)``)."""
    _kind = "L2Decay"

    def _term(self, p):
        return p * self._value()
