"""paddle.optimizer.RAdam: Adam with the variance rectification of Liu et al. (2019).

Accumulators are parameter-shaped, as in Paddle; ``rho`` holds ``t*beta2**t/(1-beta2**t)`` (updated
recursively), so ``rho_t = rho_inf - 2*rho`` with ``rho_inf = 2/(1-beta2) - 1``. While ``rho_t <= 5`` the step is
``lr * m1/(1-b1p)``; after it is rectified and scaled by ``sqrt(1-b2p)/(sqrt(m2) + epsilon)``.
"""
import torch

from ..ops.defs.optimizer import radam_update
from .optimizer import Optimizer, _scalar, _snake_case_op

__all__ = ["RAdam"]

_LOW_PRECISION = (torch.float16, torch.bfloat16)


class RAdam(Optimizer):
    _beta1_pow_acc_str = "beta1_pow"
    _beta2_pow_acc_str = "beta2_pow"
    _rho_acc_str = "rho"
    _moment1_acc_str = "moment1"
    _moment2_acc_str = "moment2"

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8, parameters=None,
                 weight_decay=None, grad_clip=None, name=None):
        if isinstance(learning_rate, (float, int)) and not 0.0 <= learning_rate:
            raise ValueError(f"Invalid learning rate: {learning_rate}, expect learning_rate >= 0.")
        if not 0.0 <= epsilon:
            raise ValueError(f"Invalid epsilon value: {epsilon}, expect epsilon >= 0.")
        if not 0.0 <= beta1 < 1.0:
            raise ValueError(f"Invalid beta1: {beta1}, expect 0. <= beta1 < 1.0.")
        if not 0.0 <= beta2 < 1.0:
            raise ValueError(f"Invalid beta2: {beta2}, expect 0. <= beta2 < 1.0.")
        super().__init__(learning_rate=learning_rate, parameters=parameters, weight_decay=weight_decay,
                         grad_clip=grad_clip, name=name)
        self.type = "radam"
        self._beta1, self._beta2, self._epsilon = beta1, beta2, epsilon
        self._default_dict = {"beta1": beta1, "beta2": beta2, "epsilon": epsilon}

    def _create_state(self, target, options):
        dtype = target._t.dtype
        acc = torch.float32 if dtype in _LOW_PRECISION else dtype
        ones = [self._add_accumulator(name, target, dtype=acc, fill_value=1.0)
                for name in (self._beta1_pow_acc_str, self._beta2_pow_acc_str, self._rho_acc_str)]
        return (*ones, self._add_accumulator(self._moment1_acc_str, target, dtype=acc),
                self._add_accumulator(self._moment2_acc_str, target, dtype=acc))

    def _update(self, params, grads, options):
        weights, grads, states, low = self._prepare(params, grads, options)
        b1_pows, b2_pows, rhos, m1, m2 = (list(s) for s in zip(*states))
        radam_update(weights, grads, b1_pows, b2_pows, rhos, m1, m2, self._param_lrs(params),
                     beta1=_scalar(options["beta1"]), beta2=_scalar(options["beta2"]), epsilon=options["epsilon"])
        self._write_back(low)

    def _static_op(self, block, param, grad, lr, accumulators):
        keys = (self._beta1_pow_acc_str, self._beta2_pow_acc_str, self._rho_acc_str, self._moment1_acc_str,
                self._moment2_acc_str)
        attrs = {"beta1": float(self._beta1), "beta2": float(self._beta2), "epsilon": float(self._epsilon)}
        return _snake_case_op("radam", param, grad, lr, accumulators, keys, attrs)
