"""clip_grad_norm_ / clip_grad_value_: clip the gradients of parameters in place."""
import math

import torch

from ...framework import mode as _mode
from ...framework.tensor import Tensor, wrap

__all__ = ["clip_grad_norm_", "clip_grad_value_"]

_NORM_TYPES = (float("inf"), 0, 1, 2)


def _params(parameters, api):
    if not _mode.in_dynamic_mode():
        raise RuntimeError(f"{api}: this API can only run in dynamic mode.")
    return [parameters] if isinstance(parameters, Tensor) else list(parameters)


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False):
    """Scale the gradients so that their joint ``norm_type`` norm is at most ``max_norm``; returns that norm
    (before clipping)."""
    parameters = _params(parameters, "clip_grad_norm_")
    if norm_type not in _NORM_TYPES:
        raise ValueError(f"clip_grad_norm_: norm_type only supports {list(_NORM_TYPES)}, got {norm_type}")
    grads = [p._t.grad for p in parameters if p._t.grad is not None]
    max_norm, norm_type = float(max_norm), float(norm_type)
    if not grads:
        return wrap(torch.tensor(0.0))
    with torch.no_grad():
        if math.isinf(norm_type):
            norms = torch.stack([g.detach().abs().max() for g in grads])
            total = norms[0] if len(grads) == 1 else norms.max()
        else:
            norms = torch.stack([torch.linalg.vector_norm(g.detach(), norm_type) for g in grads])
            total = torch.linalg.vector_norm(norms, norm_type)
        if error_if_nonfinite and not bool(torch.isfinite(total)):
            raise RuntimeError(f"clip_grad_norm_: the total norm of order {norm_type} of the gradients is "
                               "non-finite, so it cannot be clipped. To scale the gradients by the non-finite norm "
                               "anyway, set error_if_nonfinite=False")
        coef = torch.clamp(max_norm / (total + 1e-6), max=1.0)
        for g in grads:
            g.mul_(coef.to(g.dtype))
    return wrap(total)


def clip_grad_value_(parameters, clip_value):
    """Clamp every gradient element to [-clip_value, clip_value]."""
    parameters = _params(parameters, "clip_grad_value_")
    clip_value = float(clip_value)
    with torch.no_grad():
        for p in parameters:
            if p._t.grad is not None:
                p._t.grad.clamp_(-clip_value, clip_value)
