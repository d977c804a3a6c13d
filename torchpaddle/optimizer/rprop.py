"""paddle.optimizer.Rprop: resilient backpropagation (sign-based steps with per-element step sizes).

Per element, with ``p = g * prev``: ``p > 0`` grows the step size by ``etas[1]``, ``p < 0`` shrinks it by
``etas[0]`` and skips the update (the gradient counts as 0 for the next step); sizes stay within
``learning_rate_range``; ``param -= sign(g) * step``. ``learning_rate`` only sets the initial step size.
"""
import torch

from .optimizer import Optimizer

__all__ = ["Rprop"]


class Rprop(Optimizer):
    _prevs_acc_str = "prevs"
    _learning_rates_acc_str = "learning_rates"

    def __init__(self, learning_rate=0.001, learning_rate_range=(1e-5, 50), parameters=None, etas=(0.5, 1.2),
                 grad_clip=None, multi_precision=False, name=None):
        if learning_rate is None:
            raise ValueError("learning_rate is not set")
        if not 0.0 < learning_rate_range[0] <= learning_rate <= learning_rate_range[1]:
            raise ValueError("'0.0 < learning_rate_range[0] <= learning_rate <= learning_rate_range[1]' must be true")
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError("'0.0 < etas[0] < 1.0 < etas[1]' must be true")
        super().__init__(learning_rate=learning_rate, parameters=parameters, weight_decay=0.0, grad_clip=grad_clip,
                         name=name)
        self.type = "rprop"
        self._initial_learning_rate = learning_rate
        self._multi_precision = multi_precision
        self._learning_rate_range = [tuple(learning_rate_range)]
        self._etas = [tuple(etas)]
        self._default_dict = {}

    def _create_state(self, target, options):
        return (self._add_accumulator(self._prevs_acc_str, target),
                self._add_accumulator(self._learning_rates_acc_str, target,
                                      fill_value=float(self._initial_learning_rate)))

    def _update(self, params, grads, options):
        weights, grads, states, low = self._prepare(params, grads, options)
        (low_lr, high_lr), (shrink, grow) = self._learning_rate_range[0], self._etas[0]
        for w, g, (prev, rates) in zip(weights, grads, states):
            product = g * prev
            factor = torch.where(product > 0, grow, torch.where(product < 0, shrink, 1.0)).to(rates.dtype)
            rates.mul_(factor).clamp_(low_lr, high_lr)
            g = torch.where(product < 0, torch.zeros_like(g), g)
            w.sub_(torch.sign(g) * rates)
            prev.copy_(g)
        self._write_back(low)
