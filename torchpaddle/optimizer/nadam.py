"""paddle.optimizer.NAdam: Adam with Nesterov momentum (Dozat 2016), momentum schedule ``momentum_decay``.

Per step (the accumulators are parameter-shaped, as in Paddle): ``mdp *= 0.96``,
``mu = beta1*(1 - 0.5*mdp**momentum_decay)``, ``mu_next = beta1*(1 - 0.5*(0.96*mdp)**momentum_decay)``,
``mu_product *= mu``, ``b2p *= beta2``, Adam's moments, ``denom = sqrt(m2/(1-b2p)) + epsilon`` and
``param -= lr*(1-mu)/(1-mu_product) * g/denom + lr*mu_next/(1-mu_product*mu_next) * m1/denom``.
"""
import torch

from ..ops.defs.optimizer import nadam_update
from .optimizer import Optimizer, _scalar, _snake_case_op

__all__ = ["NAdam"]

_LOW_PRECISION = (torch.float16, torch.bfloat16)


class NAdam(Optimizer):
    _momentum_decay_pow_acc_str = "momentum_decay_pow"
    _beta2_pow_acc_str = "beta2_pow"
    _mu_product_acc_str = "mu_product"
    _moment1_acc_str = "moment1"
    _moment2_acc_str = "moment2"

    def __init__(self, learning_rate=0.002, beta1=0.9, beta2=0.999, epsilon=1e-8, momentum_decay=0.004,
                 parameters=None, weight_decay=None, grad_clip=None, name=None):
        if isinstance(learning_rate, (float, int)) and not 0.0 <= learning_rate:
            raise ValueError(f"Invalid learning rate: {learning_rate}, expect learning_rate >= 0.")
        if not 0.0 <= epsilon:
            raise ValueError(f"Invalid epsilon value: {epsilon}, expect epsilon >= 0.")
        if not 0.0 <= beta1 < 1.0:
            raise ValueError(f"Invalid beta1: {beta1}, expect 0. <= beta1 < 1.0.")
        if not 0.0 <= beta2 < 1.0:
            raise ValueError(f"Invalid beta2: {beta2}, expect 0. <= beta2 < 1.0.")
        if not 0.0 <= momentum_decay:
            raise ValueError(f"Invalid momentum_decay value: {momentum_decay}, expect momentum_decay >= 0.")
        super().__init__(learning_rate=learning_rate, parameters=parameters, weight_decay=weight_decay,
                         grad_clip=grad_clip, name=name)
        self.type = "nadam"
        self._beta1, self._beta2, self._epsilon = beta1, beta2, epsilon
        self._momentum_decay = momentum_decay
        self._default_dict = {"beta1": beta1, "beta2": beta2, "epsilon": epsilon, "momentum_decay": momentum_decay}

    def _create_state(self, target, options):
        dtype = target._t.dtype
        acc = torch.float32 if dtype in _LOW_PRECISION else dtype
        ones = [self._add_accumulator(name, target, dtype=acc, fill_value=1.0)
                for name in (self._momentum_decay_pow_acc_str, self._beta2_pow_acc_str, self._mu_product_acc_str)]
        return (*ones, self._add_accumulator(self._moment1_acc_str, target, dtype=acc),
                self._add_accumulator(self._moment2_acc_str, target, dtype=acc))

    def _update(self, params, grads, options):
        weights, grads, states, low = self._prepare(params, grads, options)
        decay_pows, b2_pows, mu_products, m1, m2 = (list(s) for s in zip(*states))
        nadam_update(weights, grads, decay_pows, b2_pows, mu_products, m1, m2, self._param_lrs(params),
                     beta1=_scalar(options["beta1"]), beta2=_scalar(options["beta2"]), epsilon=options["epsilon"],
                     momentum_decay=options["momentum_decay"])
        self._write_back(low)

    def _static_op(self, block, param, grad, lr, accumulators):
        keys = (self._momentum_decay_pow_acc_str, self._beta2_pow_acc_str, self._mu_product_acc_str,
                self._moment1_acc_str, self._moment2_acc_str)
        attrs = {"beta1": float(self._beta1), "beta2": float(self._beta2), "epsilon": float(self._epsilon),
                 "momentum_decay": float(self._momentum_decay)}
        return _snake_case_op("nadam", param, grad, lr, accumulators, keys, attrs)
