"""paddle.amp.GradScaler (and AmpScaler): dynamic loss scaling for dygraph mixed-precision training.

scale() multiplies the loss by the scale; minimize()/step() unscale the gradients (check_finite_and_unscale),
skip the optimizer update when one of them is inf/nan, and update() grows the scale by ``incr_ratio`` after
``incr_every_n_steps`` finite steps in a row or shrinks it by ``decr_ratio`` after ``decr_every_n_nan_or_inf``
non-finite ones. As in Paddle 3.3.1 a scaler made while the current place is the CPU warns and disables itself
(scale returns the loss, minimize/step just run the optimizer). Static programs get loss scaling from
paddle.static.amp.decorate instead (GradScaler raises NotImplementedError there).
"""
import collections
import enum
import warnings

import numpy as np
import torch

from .. import ops as _ops
from ..framework.mode import in_dynamic_mode
from ..framework.place import current_torch_device
from ..framework.tensor import wrap
from . import _dispatch
from .auto_cast import amp_global_state

__all__ = ["AmpScaler", "GradScaler", "OptimizerState"]


class OptimizerState(enum.Enum):
    INIT = 0
    UNSCALED = 1
    STEPPED = 2


_STATIC = ("paddle.amp.GradScaler scales dygraph losses; for a static program use "
           "paddle.static.amp.decorate(optimizer, init_loss_scaling=..., use_dynamic_loss_scaling=True), "
           "which appends the loss-scaling ops")


def _refresh_optimizer_state():
    return {"state": OptimizerState.INIT}


def _scalar(value):
    return wrap(torch.tensor([value], dtype=torch.float32, device=current_torch_device()))


class AmpScaler:
    """Loss scaling (defaults of Paddle's AmpScaler: init 2**15, increase every 1000 finite steps)."""

    def __init__(self, enable=True, init_loss_scaling=2.0 ** 15, incr_ratio=2.0, decr_ratio=0.5,
                 incr_every_n_steps=1000, decr_every_n_nan_or_inf=1, use_dynamic_loss_scaling=True):
        if not in_dynamic_mode():
            raise NotImplementedError(_STATIC)
        if enable:
            reason = _dispatch.unsupported_reason("AmpScaler")
            if reason is not None:
                warnings.warn(reason)
                enable = False
        self._enable = enable
        self._use_dynamic_loss_scaling = False
        self._init_loss_scaling = 1.0
        self._scale = None
        if self._enable:
            assert incr_ratio > 1.0, "The incr_ratio must be > 1.0."
            assert decr_ratio < 1.0, "The decr_ratio must be < 1.0."
            self._init_loss_scaling = init_loss_scaling
            self._incr_ratio = incr_ratio
            self._decr_ratio = decr_ratio
            self._incr_every_n_steps = incr_every_n_steps
            self._decr_every_n_nan_or_inf = decr_every_n_nan_or_inf
            self._incr_count = 0
            self._decr_count = 0
            self._use_dynamic_loss_scaling = use_dynamic_loss_scaling
            self._found_inf = wrap(torch.zeros([1], dtype=torch.bool))
            self._scale = _scalar(self._init_loss_scaling)
            self._cache_found_inf = None
            self._optimizer_states = collections.defaultdict(_refresh_optimizer_state)

    def scale(self, var):
        """``var`` times the loss scale (``var`` itself when the scaler is disabled)."""
        amp_dtype = amp_global_state().amp_dtype
        if self._enable and amp_dtype != "float16" and self._use_dynamic_loss_scaling:
            self._enable = False
            self._use_dynamic_loss_scaling = False
            self._init_loss_scaling = 1.0
            warnings.warn(f"It is not recommended to use dynamic loss scaling for {amp_dtype}, so GradScaler is "
                          "disable by default.")
        if not self._enable:
            return var
        return var * self._scale

    def minimize(self, optimizer, *args, **kwargs):
        """Unscale (unless unscale_() ran), run ``optimizer.minimize`` unless a gradient is inf/nan, update the
        scale; -> what optimizer.minimize returns ((None, None) for a skipped step)."""
        if not self._enable:
            return optimizer.minimize(*args, **kwargs)
        state = self._optimizer_states[id(optimizer)]
        if state["state"] is OptimizerState.INIT:
            self._unscale(optimizer)
        result = (None, None)
        if hasattr(optimizer, "_set_auxiliary_var"):
            optimizer._set_auxiliary_var("found_inf", self._found_inf)
            result = optimizer.minimize(*args, **kwargs)
            self._cache_found_inf = optimizer._get_auxiliary_var("found_inf")
        elif self._found_inf:
            self._cache_found_inf = True
        else:
            result = optimizer.minimize(*args, **kwargs)
            self._cache_found_inf = False
        if self._use_dynamic_loss_scaling:
            self._update()
        self._optimizer_states = collections.defaultdict(_refresh_optimizer_state)
        return result

    @staticmethod
    def _gradients(optimizer):
        groups = getattr(optimizer, "_param_groups", None)
        if groups and isinstance(groups[0], dict):
            params = [p for group in groups for p in group["params"]]
        else:
            params = optimizer._parameter_list
        return [p._t.grad for p in params if p._t.grad is not None]

    def _unscale(self, optimizer):
        if not self._enable:
            return
        state = self._optimizer_states[id(optimizer)]
        if state["state"] is OptimizerState.UNSCALED:
            raise RuntimeError("unscale_() has already been called on this optimizer since the last update().")
        if state["state"] is OptimizerState.STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        found = torch.zeros([1], dtype=torch.bool, device=self._scale._t.device)
        grads = self._gradients(optimizer)
        # Paddle unscales float16, bfloat16 and the other gradients as three groups; the result is the same
        if grads:
            with torch.no_grad():
                unscaled, found_inf = _ops.check_finite_and_unscale([wrap(g) for g in grads], self._scale)
                for grad, new in zip(grads, unscaled):
                    grad.copy_(new._t)
                found = found | found_inf._t.to(found.device)
        self._found_inf = wrap(found)
        state["state"] = OptimizerState.UNSCALED

    def _update(self):
        if not self._enable:
            return
        if self._cache_found_inf:
            self._incr_count = 0
            self._decr_count += 1
            if self._decr_count == self._decr_every_n_nan_or_inf:
                scale = float(self._scale._t.reshape(-1)[0])
                print(f"Found inf or nan, current scale is: {scale}, decrease to: {scale}*{float(self._decr_ratio)}")
                self._scale = self._scale * self._decr_ratio
                self._decr_count = 0
        else:
            self._decr_count = 0
            self._incr_count += 1
            if self._incr_count == self._incr_every_n_steps:
                self._scale = self._scale * self._incr_ratio
                self._incr_count = 0

    # -- settings ------------------------------------------------------------------------------------------
    def is_enable(self):
        return self._enable

    def is_use_dynamic_loss_scaling(self):
        return self._use_dynamic_loss_scaling

    def get_init_loss_scaling(self):
        return self._init_loss_scaling

    def set_init_loss_scaling(self, new_init_loss_scaling):
        self._init_loss_scaling = new_init_loss_scaling
        self._scale = _scalar(self._init_loss_scaling)

    def get_incr_ratio(self):
        return self._incr_ratio

    def set_incr_ratio(self, new_incr_ratio):
        assert new_incr_ratio > 1.0, "The new_incr_ratio must be > 1.0."
        self._incr_ratio = new_incr_ratio

    def get_decr_ratio(self):
        return self._decr_ratio

    def set_decr_ratio(self, new_decr_ratio):
        assert new_decr_ratio < 1.0, "The new_decr_ratio must be < 1.0."
        self._decr_ratio = new_decr_ratio

    def get_incr_every_n_steps(self):
        return self._incr_every_n_steps

    def set_incr_every_n_steps(self, new_incr_every_n_steps):
        self._incr_every_n_steps = new_incr_every_n_steps

    def get_decr_every_n_nan_or_inf(self):
        return self._decr_every_n_nan_or_inf

    def set_decr_every_n_nan_or_inf(self, new_decr_every_n_nan_or_inf):
        self._decr_every_n_nan_or_inf = new_decr_every_n_nan_or_inf

    def state_dict(self):
        """The scale (a float32 array of shape [1]), ratios, step counts and mode; {} when disabled."""
        if not self._enable:
            return {}
        return {"scale": self._scale.numpy(), "incr_ratio": self._incr_ratio, "decr_ratio": self._decr_ratio,
                "incr_every_n_steps": self._incr_every_n_steps,
                "decr_every_n_nan_or_inf": self._decr_every_n_nan_or_inf, "incr_count": self._incr_count,
                "decr_count": self._decr_count, "use_dynamic_loss_scaling": self._use_dynamic_loss_scaling}

    def load_state_dict(self, state_dict):
        if not self._enable:
            return
        if len(state_dict) == 0:
            raise RuntimeError("The input state dict is empty, possibly because it was saved from a disabled "
                               "instance of GradScaler.")
        self._init_loss_scaling = np.asarray(state_dict["scale"]).reshape(-1)[0]
        self._scale = _scalar(float(self._init_loss_scaling))
        self._incr_ratio = state_dict["incr_ratio"]
        self._decr_ratio = state_dict["decr_ratio"]
        self._incr_every_n_steps = state_dict["incr_every_n_steps"]
        self._decr_every_n_nan_or_inf = state_dict["decr_every_n_nan_or_inf"]
        self._incr_count = state_dict["incr_count"]
        self._decr_count = state_dict["decr_count"]
        self._use_dynamic_loss_scaling = state_dict["use_dynamic_loss_scaling"]


class GradScaler(AmpScaler):
    """Loss scaling for dygraph AMP (init 2**16, increase every 2000 finite steps, decrease on every inf/nan);
    ``minimize`` is ``step`` + ``update``."""

    def __init__(self, enable=True, init_loss_scaling=2.0 ** 16, incr_ratio=2.0, decr_ratio=0.5,
                 incr_every_n_steps=2000, decr_every_n_nan_or_inf=1, use_dynamic_loss_scaling=True):
        super().__init__(enable, init_loss_scaling, incr_ratio, decr_ratio, incr_every_n_steps,
                         decr_every_n_nan_or_inf, use_dynamic_loss_scaling)

    def step(self, optimizer):
        """Unscale (unless unscale_() ran) and run ``optimizer.step`` unless a gradient is inf/nan."""
        if not self._enable:
            return optimizer.step()
        state = self._optimizer_states[id(optimizer)]
        if state["state"] is OptimizerState.STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if state["state"] is OptimizerState.INIT:
            self._unscale(optimizer)
        if hasattr(optimizer, "_set_auxiliary_var"):
            optimizer._set_auxiliary_var("found_inf", self._found_inf)
            optimizer.step()
            self._cache_found_inf = optimizer._get_auxiliary_var("found_inf")
        elif self._found_inf:
            self._cache_found_inf = True
        else:
            optimizer.step()
            self._cache_found_inf = False
        state["state"] = OptimizerState.STEPPED
        if not self._use_dynamic_loss_scaling:
            self._optimizer_states = collections.defaultdict(_refresh_optimizer_state)

    def update(self):
        """Grow or shrink the scale from the last step's gradients."""
        if not self._enable:
            return
        if self._use_dynamic_loss_scaling:
            self._update()
            self._optimizer_states = collections.defaultdict(_refresh_optimizer_state)

    def unscale_(self, optimizer):
        """Divide the optimizer's gradients by the scale now (e.g. before clipping them)."""
        return self._unscale(optimizer)
