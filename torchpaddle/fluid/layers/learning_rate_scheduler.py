"""fluid.layers: learning_rate_scheduler. In static mode each function appends ops that compute the learning
rate from the global step counter ``@LR_DECAY_COUNTER@`` (incremented at the start of every run, as fluid did)
and returns that float32 [1] Variable; in dygraph mode it returns an LRScheduler following the same formula."""
import math

from ... import tensor as _T
from ...framework.mode import STATE as _MODE
from ...framework.tensor import Tensor
from .nn import autoincreased_step_counter

__all__ = ["exponential_decay", "natural_exp_decay", "inverse_time_decay", "polynomial_decay", "piecewise_decay",
           "noam_decay", "cosine_decay", "linear_lr_warmup"]


def _decay_step_counter(begin=0):
    step = autoincreased_step_counter(counter_name="@LR_DECAY_COUNTER@", begin=begin, step=1)
    return _T.cast(step, "float32")


def _schedule(formula, begin=0):
    """``formula(step)`` over a float32 step Variable (static) or a Python float (dygraph)."""
    if _MODE.static:
        return formula(_decay_step_counter(begin))
    from ...optimizer.lr import LRScheduler

    class _FluidDecay(LRScheduler):
        def get_lr(self):
            return float(self.fluid_formula(float(self.last_epoch)))

        @staticmethod
        def fluid_formula(step):
            return formula(step + begin)
    return _FluidDecay(1.0)


def _floor(v):
    return float(math.floor(v)) if isinstance(v, float) else _T.floor(v)


def _staircase(step, decay_steps, staircase):
    div = step / float(decay_steps)
    return _floor(div) if staircase else div


def _check_steps(value, api, what):
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
        raise ValueError(f"{api}: {what} must be a positive number, got {value!r}")


def exponential_decay(learning_rate, decay_steps, decay_rate, staircase=False):
    """learning_rate * decay_rate ^ (step / decay_steps)."""
    _check_steps(decay_steps, "exponential_decay", "decay_steps")
    return _schedule(lambda s: learning_rate * (float(decay_rate) ** _staircase(s, decay_steps, staircase)))


def natural_exp_decay(learning_rate, decay_steps, decay_rate, staircase=False):
    """learning_rate * exp(-decay_rate * step / decay_steps)."""
    _check_steps(decay_steps, "natural_exp_decay", "decay_steps")

    def formula(s):
        x = _staircase(s, decay_steps, staircase) * (-float(decay_rate))
        return learning_rate * (math.exp(x) if isinstance(x, float) else _T.exp(x))
    return _schedule(formula)


def inverse_time_decay(learning_rate, decay_steps, decay_rate, staircase=False):
    """learning_rate / (1 + decay_rate * step / decay_steps)."""
    _check_steps(decay_steps, "inverse_time_decay", "decay_steps")
    return _schedule(lambda s: learning_rate / (_staircase(s, decay_steps, staircase) * float(decay_rate) + 1.0))


def polynomial_decay(learning_rate, decay_steps, end_learning_rate=0.0001, power=1.0, cycle=False):
    """(learning_rate - end) * (1 - step / decay_steps) ^ power + end; with ``cycle`` decay_steps grows to the
    next multiple of itself past step."""
    _check_steps(decay_steps, "polynomial_decay", "decay_steps")

    def formula(s):
        if isinstance(s, float):
            if cycle:
                steps = decay_steps * max(math.ceil(s / decay_steps), 1)
            else:
                steps, s = decay_steps, min(s, decay_steps)
            return (learning_rate - end_learning_rate) * (1 - s / steps) ** power + end_learning_rate
        if cycle:
            div = _T.ceil(s / float(decay_steps))
            div = _T.maximum(div, _T.full([1], 1.0, "float32"))
            steps = div * float(decay_steps)
        else:
            steps = _T.full([1], float(decay_steps), "float32")
            s = _T.minimum(s, steps)
        return _T.pow(1.0 - s / steps, float(power)) * (learning_rate - end_learning_rate) + end_learning_rate
    return _schedule(formula)


def piecewise_decay(boundaries, values):
    """values[i] while step < boundaries[i] (values[-1] after the last boundary)."""
    if len(values) - len(boundaries) != 1:
        raise ValueError(f"piecewise_decay: values must have one more entry than boundaries, got {len(values)} "
                         f"values for {len(boundaries)} boundaries")

    def formula(s):
        if isinstance(s, float):
            return next((v for b, v in zip(boundaries, values) if s < b), values[-1])
        lr = _T.full([1], float(values[-1]), "float32")
        for b, v in reversed(list(zip(boundaries, values))):
            lr = _T.where(s < float(b), _T.full([1], float(v), "float32"), lr)
        return lr
    return _schedule(formula)


def noam_decay(d_model, warmup_steps, learning_rate=1.0):
    """learning_rate * d_model^-0.5 * min(step^-0.5, step * warmup_steps^-1.5), the step starting at 1."""
    def formula(s):
        if isinstance(s, float):
            return learning_rate * d_model ** -0.5 * min(s ** -0.5, s * warmup_steps ** -1.5)
        a = _T.pow(s, -0.5)
        b = s * float(warmup_steps ** -1.5)
        return _T.minimum(a, b) * float(learning_rate * d_model ** -0.5)
    return _schedule(formula, begin=1)


def cosine_decay(learning_rate, step_each_epoch, epochs):
    """learning_rate * 0.5 * (cos(floor(step / step_each_epoch) * pi / epochs) + 1)."""
    _check_steps(step_each_epoch, "cosine_decay", "step_each_epoch")

    def formula(s):
        epoch = _floor(s / float(step_each_epoch))
        c = math.cos(epoch * math.pi / epochs) if isinstance(epoch, float) else _T.cos(epoch * (math.pi / epochs))
        return (c + 1.0) * (learning_rate * 0.5)
    return _schedule(formula)


def linear_lr_warmup(learning_rate, warmup_steps, start_lr, end_lr):
    """start_lr + (end_lr - start_lr) * step / warmup_steps during the warmup, then ``learning_rate`` (a float or
    a Variable, e.g. another decay)."""
    slope = (end_lr - start_lr) / float(warmup_steps)
    if not _MODE.static:
        inner = learning_rate
        if hasattr(inner, "fluid_formula"):
            after = inner.fluid_formula
        elif isinstance(inner, (float, int)):
            def after(s):
                return float(inner)
        else:
            raise TypeError("linear_lr_warmup: in dygraph mode learning_rate must be a float or a fluid decay, "
                            f"got {type(inner).__name__}")
        return _schedule(lambda s: start_lr + slope * s if s < warmup_steps else after(s))
    if not isinstance(learning_rate, (float, int, Tensor)):
        raise TypeError(f"linear_lr_warmup: learning_rate must be a float or a Variable, got "
                        f"{type(learning_rate).__name__}")
    step = _decay_step_counter()
    warm = step * slope + float(start_lr)
    after = learning_rate if isinstance(learning_rate, Tensor) else _T.full([1], float(learning_rate), "float32")
    return _T.where(step < float(warmup_steps), warm, _T.cast(after, "float32"))
