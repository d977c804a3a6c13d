"""Gradient clipping: ClipGradByValue, ClipGradByNorm, ClipGradByGlobalNorm (``grad_clip=`` of optimizers).

A clipper maps a list of (param, grad) pairs to a new list; parameters with ``need_clip=False`` pass through
unchanged (and stay out of the global norm). Like Paddle in dygraph mode, ClipGradByGlobalNorm scales the
gradients in place (``param.grad`` shows the clipped value afterwards); the other two return new tensors.
"""
import torch

from .. import ops as _ops
from ..framework.tensor import Tensor, wrap

__all__ = ["ClipGradByValue", "ClipGradByNorm", "ClipGradByGlobalNorm"]



class ClipGradBase:
    """Base class of gradient clippers; subclasses implement ``_dygraph_clip(params_grads)``."""

    def __str__(self):
        raise NotImplementedError

    def _dygraph_clip(self, params_grads):
        raise NotImplementedError

    def _static_clip(self, params_grads):
        raise NotImplementedError

    def __call__(self, params_grads):
        with torch.no_grad():
            return self._dygraph_clip(params_grads)


def _split(params_grads):
    """(pairs to clip, their torch grads); pairs with no grad are dropped, as Paddle does."""
    clipped, grads = [], []
    for p, g in params_grads:
        if g is None or getattr(p, "need_clip", True) is False:
            continue
        clipped.append((p, g))
        grads.append(g._t)
    return clipped, grads


def _check_float(what, value):
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        if isinstance(value, Tensor) and value.size == 1:
            return float(value)
        raise TypeError(f"{what} must be a float, got {type(value).__name__}")
    return float(value)


class ClipGradByValue(ClipGradBase):
    """Clamp every gradient element into [min, max]; ``min`` defaults to ``-max`` (then ``max`` must be > 0)."""

    def __init__(self, max, min=None):
        max = _check_float("ClipGradByValue: max", max)
        if min is None:
            if not max > 0.0:
                raise AssertionError(f"ClipGradByValue: max must be > 0 when min is not given, got {max}")
            min = -max
        self.max = max
        self.min = _check_float("ClipGradByValue: min", min)

    def __str__(self):
        return f"Clip Gradient By Value, min = {self.min:f}, max={self.max:f}"

    def _dygraph_clip(self, params_grads):
        out = []
        for p, g in params_grads:
            if g is None:
                continue
            if getattr(p, "need_clip", True) is False:
                out.append((p, g))
            else:
                out.append((p, wrap(torch.clamp(g._t, self.min, self.max))))
        return out


def _norm_scales(grads, max_norm):
    """Per-gradient factor of clip_by_norm: 1 where ||g|| <= max_norm, else max_norm / ||g||."""
    norms = torch.stack(torch._foreach_norm(grads, 2, dtype=torch.float32))
    return torch.where(norms > max_norm, max_norm / norms, torch.ones_like(norms))


def clip_by_norm(x, max_norm, name=None):
    """Scale ``x`` so that its L2 norm is at most ``max_norm``."""
    if not isinstance(x, Tensor):
        raise TypeError(f"clip_by_norm: x must be a Tensor, got {type(x).__name__}")
    max_norm = _check_float("clip_by_norm: max_norm", max_norm)
    return _ops.clip_by_norm(x, max_norm=max_norm)


class ClipGradByNorm(ClipGradBase):
    """Scale each gradient whose own L2 norm exceeds ``clip_norm`` down to that norm."""

    def __init__(self, clip_norm):
        self.clip_norm = _check_float("ClipGradByNorm: clip_norm", clip_norm)

    def __str__(self):
        return f"Gradient Clip By Norm, clip_norm={self.clip_norm:f}"

    def _dygraph_clip(self, params_grads):
        clipped, grads = _split(params_grads)
        scaled = {}
        if grads:
            scales = _norm_scales(grads, self.clip_norm).unbind()
            for (p, g), s in zip(clipped, scales):
                scaled[id(g)] = wrap(g._t * s.to(g._t.dtype))
        out = []
        for p, g in params_grads:
            if g is not None:
                out.append((p, scaled.get(id(g), g)))
        return out


class ClipGradByGlobalNorm(ClipGradBase):
    """Scale all gradients by ``clip_norm / max(global_norm, clip_norm)``, global_norm over all of them.

    With ``auto_skip_clip=True`` the gradients are only touched when global_norm > clip_norm.
    """

    def __init__(self, clip_norm, group_name="default_group", auto_skip_clip=False):
        self.clip_norm = _check_float("ClipGradByGlobalNorm: clip_norm", clip_norm)
        if not isinstance(group_name, str):
            raise TypeError(f"ClipGradByGlobalNorm: group_name must be a str, got {type(group_name).__name__}")
        if not isinstance(auto_skip_clip, bool):
            raise AssertionError(f"ClipGradByGlobalNorm: auto_skip_clip must be a bool, got "
                                 f"{type(auto_skip_clip).__name__}")
        self.group_name = group_name
        self.auto_skip_clip = auto_skip_clip

    def __str__(self):
        return f"Gradient Clip By GlobalNorm, global_norm={self.clip_norm:f}"

    def _global_norm(self, grads):
        # NOTE: as in Paddle, the sum is float64 when any gradient is float64, else float32
        by_dtype = {}
        for g in grads:
            by_dtype.setdefault(g.dtype, []).append(g)
        sum_dtype = torch.float64 if torch.float64 in by_dtype else torch.float32
        total = None
        for dtype, group in by_dtype.items():
            acc = torch.float64 if dtype is torch.float64 else torch.float32
            norms = torch.stack(torch._foreach_norm(group, 2, dtype=acc))
            part = torch.sum(norms * norms).to(sum_dtype)
            total = part if total is None else total + part
        return torch.sqrt(total)

    def _dygraph_clip(self, params_grads):
        clipped, grads = _split(params_grads)
        if not grads:
            return params_grads
        global_norm = self._global_norm(grads)
        max_norm = torch.full_like(global_norm, self.clip_norm)
        if self.auto_skip_clip:
            if not bool(global_norm > max_norm):
                return [(p, g) for p, g in params_grads if g is not None]
            scale = max_norm / global_norm
        else:
            scale = max_norm / torch.maximum(global_norm, max_norm)
        by_dtype = {}
        for g in grads:
            if g.dim() == 0:
                continue
            by_dtype.setdefault(g.dtype, []).append(g)
        for dtype, group in by_dtype.items():
            torch._foreach_mul_(group, scale.to(dtype))
        out = []
        for p, g in params_grads:
            if g is None:
                continue
            if g._t.dim() == 0 and getattr(p, "need_clip", True) is not False:
                g = wrap(g._t * scale.to(g._t.dtype))
            out.append((p, g))
        return out


GradientClipBase = ClipGradBase
GradientClipByValue = ClipGradByValue
GradientClipByNorm = ClipGradByNorm
GradientClipByGlobalNorm = ClipGradByGlobalNorm
