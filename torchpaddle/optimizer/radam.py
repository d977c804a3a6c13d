"""paddle.optimizer.RAdam: Adam with the variance rectification of Liu et al. (2019).

Accumulators are parameter-shaped, as in Paddle; ``rho`` holds ``t*beta2**t/(1-beta2**t)`` (updated
recursively), so ``rho_t = rho_inf - 2*rho`` with ``rho_inf = 2/(1-beta2) - 1``. While ``rho_t <= 5`` the step is
``lr * m1/(1-b1p)``; after it is rectified and scaled by ``sqrt(1-b2p)/(sqrt(m2) + epsilon)``.
"""
import torch

from .optimizer import Optimizer, _one_minus, _scalar

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
        beta1, beta2 = _scalar(options["beta1"]), _scalar(options["beta2"])
        eps = float(options["epsilon"])
        acc = states[0][0].dtype
        b1_pows, b2_pows, rhos, m1, m2 = (list(s) for s in zip(*states))
        torch._foreach_mul_(b1_pows, beta1)
        torch._foreach_mul_(b2_pows, beta2)
        one_minus_b2p = torch._foreach_sub([torch.ones_like(b) for b in b2_pows], b2_pows)
        # rho = (rho * (beta2 - b2p) + b2p) / (1 - b2p)
        torch._foreach_mul_(rhos, torch._foreach_add(torch._foreach_neg(b2_pows), beta2))
        torch._foreach_add_(rhos, b2_pows)
        torch._foreach_div_(rhos, one_minus_b2p)
        torch._foreach_lerp_(m1, grads, _one_minus(beta1, acc))
        torch._foreach_mul_(m2, beta2)
        torch._foreach_addcmul_(m2, grads, grads, value=_one_minus(beta2, acc))
        rho_inf = 2.0 / _one_minus(beta2, acc) - 1.0
        lrs = self._param_lrs(params)
        for w, b1p, rho, mom1, mom2, b2p_rest, lr in zip(weights, b1_pows, rhos, m1, m2, one_minus_b2p, lrs):
            m_hat = mom1 / (1 - b1p)
            rho_t = rho_inf - 2 * rho
            rect = torch.sqrt(torch.clamp((rho_t - 4) * (rho_t - 2) * rho_inf
                                          / ((rho_inf - 4) * (rho_inf - 2) * rho_t), min=0))
            adaptive = torch.sqrt(b2p_rest) / (torch.sqrt(mom2) + eps)
            w.sub_(lr * torch.where(rho_t > 5, m_hat * rect * adaptive, m_hat))
        self._write_back(low)
