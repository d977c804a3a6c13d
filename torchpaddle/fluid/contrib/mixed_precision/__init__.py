"""fluid.contrib.mixed_precision: fluid's float16 AMP for static programs, on torchpaddle.static.amp."""
from ....static.amp import AutoMixedPrecisionLists  # noqa: F401
from ....static.amp import decorator as _decorator

__all__ = ["decorate", "AutoMixedPrecisionLists"]


def decorate(optimizer, amp_lists=None, init_loss_scaling=2 ** 15, incr_every_n_steps=1000,
             decr_every_n_nan_or_inf=2, incr_ratio=2.0, decr_ratio=0.8, use_dynamic_loss_scaling=True):
    """Wrap ``optimizer`` so that ``minimize`` rewrites the program for float16 (per ``amp_lists``) with loss
    scaling; fluid's signature and defaults."""
    # the float third argument selects static.amp's float16-only signature, which is fluid's
    return _decorator.decorate(optimizer, amp_lists, float(init_loss_scaling), incr_every_n_steps,
                               decr_every_n_nan_or_inf, incr_ratio, decr_ratio, use_dynamic_loss_scaling)
