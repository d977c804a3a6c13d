"""paddle.optimizer.Lamb: layer-wise adaptive Adam (LAMB).

``r = (m1/(1-b1p)) / (sqrt(m2/(1-b2p)) + epsilon) + lamb_weight_decay * param`` with Adam's moments, then
``param -= lr * trust * r`` where ``trust = ||param|| / ||r||`` (1 when either norm is 0, and 1 for parameters
without decay unless ``always_adapt``). Parameters for which ``exclude_from_weight_decay_fn(param)`` is true
get no decay. The beta powers advance after the update.
"""
import numpy as np
import torch

from .adam import _AdamBase
from .optimizer import _advance_pows, _one_minus, _read_pows, _scalar

__all__ = ["Lamb"]


class Lamb(_AdamBase):
    def __init__(self, learning_rate=0.001, lamb_weight_decay=0.01, beta1=0.9, beta2=0.999, epsilon=1e-6,
                 parameters=None, grad_clip=None, exclude_from_weight_decay_fn=None, multi_precision=False,
                 always_adapt=False, name=None):
        for value in (learning_rate, beta1, beta2, epsilon):
            if value is None:
                raise AssertionError("Lamb: learning_rate, beta1, beta2 and epsilon must not be None")
        if exclude_from_weight_decay_fn is not None and not callable(exclude_from_weight_decay_fn):
            raise TypeError("Lamb: exclude_from_weight_decay_fn must be callable, got "
                            f"{type(exclude_from_weight_decay_fn).__name__}")
        super().__init__(learning_rate=learning_rate, parameters=parameters, weight_decay=None,
                         grad_clip=grad_clip, name=name)
        self.type = "lamb"
        self._beta1, self._beta2, self._epsilon = beta1, beta2, epsilon
        self._lamb_weight_decay = lamb_weight_decay
        self._exclude_from_weight_decay_fn = exclude_from_weight_decay_fn
        self._default_dict = {"beta1": beta1, "beta2": beta2, "epsilon": epsilon,
                              "lamb_weight_decay": lamb_weight_decay,
                              "exclude_from_weight_decay_fn": exclude_from_weight_decay_fn}
        self._multi_precision = multi_precision
        self.always_adapt = always_adapt

    def _update(self, params, grads, options):
        weights, grads, states, low = self._prepare(params, grads, options)
        beta1, beta2 = _scalar(options["beta1"]), _scalar(options["beta2"])
        epsilon = _scalar(options["epsilon"])
        acc = states[0][0].dtype
        real = np.float64 if acc is torch.float64 else np.float32
        b1_pows = [s[3] for s in states]
        b2_pows = [s[4] for s in states]
        b1p, b2p = _read_pows(b1_pows), _read_pows(b2_pows)
        m1 = [s[0] for s in states]
        m2 = [s[1] for s in states]
        torch._foreach_mul_(m1, beta1)
        torch._foreach_add_(m1, grads, alpha=_one_minus(beta1, acc))
        torch._foreach_mul_(m2, beta2)
        torch._foreach_addcmul_(m2, grads, grads, value=_one_minus(beta2, acc))
        m1_hat = torch._foreach_div(m1, (real(1) - b1p).tolist())
        denom = torch._foreach_div(m2, (real(1) - b2p).tolist())
        torch._foreach_sqrt_(denom)
        torch._foreach_add_(denom, epsilon)
        ratios = list(torch._foreach_div(m1_hat, denom))
        exclude = options["exclude_from_weight_decay_fn"]
        decay = float(options["lamb_weight_decay"])
        index = [i for i, p in enumerate(params) if decay != 0.0 and not (exclude is not None and exclude(p))]
        if index:
            decayed = torch._foreach_add([ratios[i] for i in index], [weights[i] for i in index], alpha=decay)
            for i, r in zip(index, decayed):
                ratios[i] = r
        p_norms = torch.stack(torch._foreach_norm(weights)).float()
        r_norms = torch.stack(torch._foreach_norm(ratios)).float()
        adapt = (p_norms > 0) & (r_norms > 0)
        if not self.always_adapt:
            # the trust ratio only applies to decayed parameters unless always_adapt is set
            decayed = torch.zeros_like(adapt)
            decayed[index] = True
            adapt &= decayed
        trust = torch.where(adapt, p_norms / r_norms, torch.ones_like(p_norms))
        lrs = torch.tensor(self._param_lrs(params), dtype=trust.dtype, device=trust.device)
        scales = (-(lrs * trust)).unbind()
        torch._foreach_add_(weights, torch._foreach_mul(ratios, [s.to(r.dtype) for s, r in zip(scales, ratios)]))
        _advance_pows(b1_pows, b1p, beta1)
        _advance_pows(b2_pows, b2p, beta2)
        self._write_back(low)
