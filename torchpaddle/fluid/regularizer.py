"""fluid.regularizer: L1Decay / L2Decay with Paddle 1.x's keyword ``regularization_coeff``."""
from .. import regularizer as _regularizer

__all__ = ["L1Decay", "L2Decay", "L1DecayRegularizer", "L2DecayRegularizer"]


class L1DecayRegularizer(_regularizer.L1Decay):
    """Adds ``regularization_coeff * sign(param)`` to the gradient."""

    def __init__(self, regularization_coeff=0.0):
        super().__init__(regularization_coeff)

    def __str__(self):
        return f"L1Decay, regularization_coeff={self._value():f}"


class L2DecayRegularizer(_regularizer.L2Decay):
    """Adds ``regularization_coeff * param`` to the gradient."""

    def __init__(self, regularization_coeff=0.0):
        super().__init__(regularization_coeff)

    def __str__(self):
        return f"L2Decay, regularization_coeff={self._value():f}"


L1Decay = L1DecayRegularizer
L2Decay = L2DecayRegularizer


def as_base(regularizer):
    """The torchpaddle.regularizer object equal to a fluid regularizer (the static optimizer emits ops for
    exactly those classes); anything else unchanged."""
    if type(regularizer) in (L1DecayRegularizer, L2DecayRegularizer):
        return type(regularizer).__mro__[1](regularizer._coeff)
    return regularizer
