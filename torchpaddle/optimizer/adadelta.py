"""paddle.optimizer.Adadelta.

``E[g2] = rho*E[g2] + (1-rho)*g*g``, ``update = sqrt((E[dx2] + eps) / (E[g2] + eps)) * g``,
``E[dx2] = rho*E[dx2] + (1-rho)*update*update``, ``param -= lr * update``.
"""
import torch

from .optimizer import Optimizer, _one_minus, _sub_scaled_

__all__ = ["Adadelta"]


class Adadelta(Optimizer):
    # NOTE: Paddle's accumulator names start with "_", hence "<param>__avg_squared_grad_0" in state dicts
    _avg_squared_grad_acc_str = "_avg_squared_grad"
    _avg_squared_update_acc_str = "_avg_squared_update"

    def __init__(self, learning_rate=0.001, epsilon=1.0e-6, rho=0.95, parameters=None, weight_decay=None,
                 grad_clip=None, name=None):
        if learning_rate is None:
            raise ValueError("learning_rate is not set.")
        if epsilon is None:
            raise ValueError("epsilon is not set.")
        if rho is None:
            raise ValueError("rho is not set.")
        super().__init__(learning_rate=learning_rate, parameters=parameters, weight_decay=weight_decay,
                         grad_clip=grad_clip, name=name)
        self.type = "adadelta"
        self._epsilon = epsilon
        self._rho = rho
        self._default_dict = {"epsilon": epsilon, "rho": rho}

    def _create_state(self, target, options):
        return (self._add_accumulator(self._avg_squared_grad_acc_str, target),
                self._add_accumulator(self._avg_squared_update_acc_str, target))

    def _update(self, params, grads, options):
        weights, grads, states, low = self._prepare(params, grads, options)
        rho, eps = float(options["rho"]), float(options["epsilon"])
        decay = _one_minus(rho, states[0][0].dtype)
        sq_grads = [s[0] for s in states]
        sq_updates = [s[1] for s in states]
        torch._foreach_mul_(sq_grads, rho)
        torch._foreach_addcmul_(sq_grads, grads, grads, value=decay)
        ratio = torch._foreach_div(torch._foreach_add(sq_updates, eps), torch._foreach_add(sq_grads, eps))
        torch._foreach_sqrt_(ratio)
        updates = torch._foreach_mul(ratio, grads)
        torch._foreach_mul_(sq_updates, rho)
        torch._foreach_addcmul_(sq_updates, updates, updates, value=decay)
        _sub_scaled_(weights, updates, self._param_lrs(params))
        self._write_back(low)
