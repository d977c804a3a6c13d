"""paddle.optimizer.RMSProp.

``ms = rho*ms + (1-rho)*g*g``; centered: ``mg = rho*mg + (1-rho)*g`` and ``denom = sqrt(ms - mg*mg + eps)``,
else ``denom = sqrt(ms + eps)``; ``mom = momentum*mom + lr*g/denom``; ``param -= mom``.
"""
import torch

from .optimizer import Optimizer, _one_minus

__all__ = ["RMSProp"]


class RMSProp(Optimizer):
    _momentum_acc_str = "momentum"
    _mean_square_acc_str = "mean_square"
    _mean_grad_acc_str = "mean_grad"

    def __init__(self, learning_rate, rho=0.95, epsilon=1.0e-6, momentum=0.0, centered=False, parameters=None,
                 weight_decay=None, grad_clip=None, name=None):
        for what, value in (("learning_rate", learning_rate), ("rho", rho), ("epsilon", epsilon),
                            ("momentum", momentum)):
            if value is None:
                raise ValueError(f"{what} is not set.")
        if not 0.0 <= epsilon:
            raise ValueError("Invalid value of epsilon, expect epsilon >= 0.")
        if not 0.0 <= momentum:
            raise ValueError("Invalid value of momentum, expect momentum >= 0.")
        if not 0.0 <= rho:
            raise ValueError("Invalid value of rho, expect rho >= 0.")
        super().__init__(learning_rate=learning_rate, parameters=parameters, weight_decay=weight_decay,
                         grad_clip=grad_clip, name=name)
        self.type = "rmsprop"
        self._rho, self._epsilon, self._momentum, self._centered = rho, epsilon, momentum, centered
        self._default_dict = {"rho": rho, "epsilon": epsilon, "momentum": momentum, "centered": centered}

    def _create_state(self, target, options):
        return tuple(self._add_accumulator(name, target)
                     for name in (self._momentum_acc_str, self._mean_square_acc_str, self._mean_grad_acc_str))

    def _update(self, params, grads, options):
        weights, grads, states, low = self._prepare(params, grads, options)
        rho, eps = float(options["rho"]), float(options["epsilon"])
        decay = _one_minus(rho, states[0][0].dtype)
        moms = [s[0] for s in states]
        mean_squares = [s[1] for s in states]
        torch._foreach_mul_(mean_squares, rho)
        torch._foreach_addcmul_(mean_squares, grads, grads, value=decay)
        if options["centered"]:
            mean_grads = [s[2] for s in states]
            torch._foreach_mul_(mean_grads, rho)
            torch._foreach_add_(mean_grads, grads, alpha=decay)
            denom = torch._foreach_addcmul(mean_squares, mean_grads, mean_grads, value=-1.0)
            torch._foreach_add_(denom, eps)
        else:
            denom = torch._foreach_add(mean_squares, eps)
        torch._foreach_sqrt_(denom)
        torch._foreach_mul_(moms, float(options["momentum"]))
        torch._foreach_addcdiv_(moms, grads, denom, self._param_lrs(params))
        torch._foreach_sub_(weights, moms)
        self._write_back(low)
