"""The auto-parallel Strategy's program passes, under Paddle's names, on serial programs: each is a thin
PassBase around the entry point in torchpaddle/static/passes/ (``apply_<pass>(main, startup, config)``), with
the pass's attributes as its config. ``dist_context`` is accepted and not needed."""
from ...static.passes import apply_amp, apply_gradient_merge, apply_recompute
from .pass_base import PassBase, PassType, register_pass

__all__ = ["AMPPass", "FP16Pass", "RecomputePass", "GradientMergePass"]


class _AMPBase(PassBase):
    _levels = ()

    def __init__(self):
        super().__init__()
        self._loss = None

    def _check_self(self):
        if self.get_attr("dtype", "float16") not in ("float16", "bfloat16"):
            return False
        numbers = ("init_loss_scaling", "incr_every_n_steps", "decr_every_n_nan_or_inf", "incr_ratio",
                   "decr_ratio")
        if any(self.get_attr(k, 0) < 0 for k in numbers):
            return False
        return str(self.get_attr("level", self._levels[0])).lower() in self._levels and \
            self.get_attr("loss") is not None

    def _apply_single_impl(self, main_program, startup_program, context):
        config = dict(self._attrs)
        config.setdefault("level", self._levels[0])
        result = apply_amp(main_program, startup_program, config)
        self._loss = result["loss"]
        given = self.get_attr("params_grads")
        # the caller appends the optimizer for the same list (Paddle's parallelizer does), so it is updated
        if isinstance(given, list):
            given[:] = result["params_grads"]
        context.set_attr("params_grads", result["params_grads"])
        context.set_attr("loss", result["loss"])

    def get_loss(self):
        """The loss after the pass (scaled by the loss scaling when float16 scales it)."""
        return self._loss if self._loss is not None else self.get_attr("loss")


@register_pass("auto_parallel_amp")
class AMPPass(_AMPBase):
    """AMP O1: casts around the white-list ops (``level`` o1)."""
    _levels = ("o1",)


@register_pass("auto_parallel_fp16")
class FP16Pass(_AMPBase):
    """AMP O2 (float32 master weights) and o3 (none): the model in half precision."""
    _levels = ("o2", "o3")


@register_pass("auto_parallel_recompute")
class RecomputePass(PassBase):
    """Recompute the segments that ``checkpoints`` (or ``/auto_parallel/rc_<k>`` name scopes) mark."""

    def _check_self(self):
        return True

    def _apply_single_impl(self, main_program, startup_program, context):
        apply_recompute(main_program, startup_program, dict(self._attrs))


@register_pass("auto_parallel_gradient_merge_pass")
class GradientMergePass(PassBase):
    """Accumulate the gradients over ``k_steps`` runs; the optimizer runs on every k-th (``avg``: the mean)."""

    def __init__(self):
        super().__init__()
        self.set_attr("k_steps", -1)
        self.set_attr("avg", True)

    def _check_self(self):
        return self.get_attr("k_steps") >= 1

    def _type(self):
        return PassType.COMM_OPT

    def _apply_single_impl(self, main_program, startup_program, context):
        apply_gradient_merge(main_program, startup_program, dict(self._attrs))
