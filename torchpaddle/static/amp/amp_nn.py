"""Static loss-scaling ops: ``check_finite_and_unscale`` and ``update_loss_scaling`` append the ops of the same
names, writing their results over the gradients (and the scaling state) in place, as Paddle does."""
from ...framework.program import Variable, default_main_program
from ...utils import unique_name

__all__ = ["check_finite_and_unscale", "update_loss_scaling"]


def _check_vars(values, what, api):
    if not isinstance(values, (list, tuple)) or not all(isinstance(v, Variable) for v in values):
        raise TypeError(f"{api}: {what} must be a list of static Variables")


def check_finite_and_unscale(x, scale, name=None, float_status=None):
    """x[i] /= scale; -> (x, found_inf), found_inf a bool Variable of shape [1]."""
    _check_vars(x, "x", "check_finite_and_unscale")
    block = default_main_program().current_block()
    found_inf = block.create_var(name=unique_name.generate(name or "find_infinite_scale"), shape=[1], dtype="bool",
                                 stop_gradient=True)
    block.append_op("check_finite_and_unscale", {"X": list(x), "Scale": [scale]},
                    {"Out": list(x), "FoundInfinite": [found_inf]}, {})
    return x, found_inf


def update_loss_scaling(x, found_inf, prev_loss_scaling, num_good_steps, num_bad_steps, incr_every_n_steps,
                        decr_every_n_nan_or_inf, incr_ratio, decr_ratio, stop_update=None, name=None):
    """Zero ``x`` when ``found_inf``; update the loss scaling and the good/bad step counters in place."""
    _check_vars(x, "x", "update_loss_scaling")
    inputs = {"X": list(x), "FoundInfinite": [found_inf], "PrevLossScaling": [prev_loss_scaling],
              "InGoodSteps": [num_good_steps], "InBadSteps": [num_bad_steps]}
    if stop_update is True:
        from ...tensor.creation import full
        stop_update = full([1], True, "bool")
    if isinstance(stop_update, Variable):
        inputs["StopUpdate"] = [stop_update]
    elif stop_update not in (None, False):
        raise TypeError(f"update_loss_scaling: stop_update must be a bool or a bool Variable, got "
                        f"{type(stop_update).__name__}")
    default_main_program().current_block().append_op(
        "update_loss_scaling", inputs,
        {"Out": list(x), "LossScaling": [prev_loss_scaling], "OutGoodSteps": [num_good_steps],
         "OutBadSteps": [num_bad_steps]},
        {"incr_every_n_steps": int(incr_every_n_steps), "decr_every_n_nan_or_inf": int(decr_every_n_nan_or_inf),
         "incr_ratio": float(incr_ratio), "decr_ratio": float(decr_ratio)})
    return x
