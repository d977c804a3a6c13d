"""fluid.clip: Paddle 1.x's gradient clippers (``need_clip``: a function of the parameter saying whether its
gradient is clipped), ``set_gradient_clip`` (a program-wide default that minimize uses when the optimizer has
no ``grad_clip``) and ``ErrorClipByValue``."""
import warnings

from ..framework.program import Program, default_main_program
from ..nn import clip as _clip

__all__ = ["set_gradient_clip", "ErrorClipByValue", "GradientClipByValue", "GradientClipByNorm",
           "GradientClipByGlobalNorm"]


def _need_clip(who, need_clip):
    if need_clip is not None and not callable(need_clip):
        raise TypeError(f"{who}: need_clip must be a function of the parameter (or None), got "
                        f"{type(need_clip).__name__}")
    return need_clip


class GradientClipByValue(_clip.ClipGradByValue):
    def __init__(self, max, min=None, need_clip=None):
        super().__init__(max, min)
        self._need_clip_fn = _need_clip("GradientClipByValue", need_clip)

    def __str__(self):
        return f"Gradient Clip By Value, min = {self.min:f}, max={self.max:f}"


class GradientClipByNorm(_clip.ClipGradByNorm):
    def __init__(self, clip_norm, need_clip=None):
        super().__init__(clip_norm)
        self._need_clip_fn = _need_clip("GradientClipByNorm", need_clip)


class GradientClipByGlobalNorm(_clip.ClipGradByGlobalNorm):
    def __init__(self, clip_norm, group_name="default_group", need_clip=None):
        super().__init__(clip_norm, group_name)
        self._need_clip_fn = _need_clip("GradientClipByGlobalNorm", need_clip)


def mark_need_clip(clip, params):
    """Apply a fluid clipper's ``need_clip`` function to the parameters (as their ``need_clip`` flag)."""
    fn = getattr(clip, "_need_clip_fn", None)
    if fn is not None:
        for p in params:
            p.need_clip = bool(fn(p))


class ErrorClipByValue:
    """Clip the error (the gradient flowing back) of a variable into [min, max]; set as ``var.error_clip``.

    NOTE: recorded only; torchpaddle's backward does not clip intermediate gradients (Paddle 2.0 had already
    deprecated error clipping)."""

    def __init__(self, max, min=None):
        max = float(max)
        if min is None:
            min = -max
        if not float(min) < max:
            raise ValueError(f"ErrorClipByValue: min ({min}) must be < max ({max})")
        self.max, self.min = max, float(min)

    def __str__(self):
        return f"ByValue, min={self.min:f}, max={self.max:f}"


def set_gradient_clip(clip, param_list=None, program=None):
    """Make ``clip`` the gradient clipper of ``program`` (default: the main program), for the parameters named
    in ``param_list`` (all when None); an optimizer created with ``grad_clip`` overrides it, with a warning."""
    warnings.warn("Caution! 'set_gradient_clip' is not recommended and may be deprecated in future; use "
                  "'grad_clip' of the optimizer instead", DeprecationWarning)
    if not isinstance(clip, _clip.ClipGradBase):
        raise TypeError("'clip' should be an instance of ClipGradByValue, ClipGradByNorm or ClipGradByGlobalNorm")
    program = default_main_program() if program is None else program
    if not isinstance(program, Program):
        raise TypeError(f"set_gradient_clip: program must be a Program, got {type(program).__name__}")
    if param_list is None:
        names = None
    else:
        names = [p if isinstance(p, str) else p.name for p in param_list]
    program._fluid_gradient_clip = (clip, names)
