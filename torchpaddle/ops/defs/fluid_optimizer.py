"""The optimizer ops only fluid.optimizer uses: ``decayed_adagrad`` (DecayedAdagrad), ``ftrl`` (Ftrl) and
``average_accumulates`` (ModelAverage), with the slots, attributes and arithmetic of Paddle 1.8.5 (Paddle 3.3.1
still registers all three). As in ops/defs/optimizer.py, each update op is a per-parameter call of a functional
update over lists of torch tensors, which the eager optimizers call once over all parameters."""
import torch

from ..registry import op
from .optimizer import sub_scaled_

__all__ = ["decayed_adagrad_update", "ftrl_update"]


def decayed_adagrad_update(params, grads, moments, lrs, *, decay, epsilon):
    """``moment = decay*moment + (1-decay)*g*g``, ``param -= lr * g / (sqrt(moment) + epsilon)``."""
    torch._foreach_mul_(moments, float(decay))
    torch._foreach_addcmul_(moments, grads, grads, value=1.0 - float(decay))
    denom = torch._foreach_sqrt(moments)
    torch._foreach_add_(denom, float(epsilon))
    sub_scaled_(params, torch._foreach_div(grads, denom), lrs)


def ftrl_update(params, grads, squareds, linears, lrs, *, l1, l2, lr_power):
    """FTRL-proximal as Paddle 1.8's kernel computes it: ``new = squared + g*g``,
    ``linear += g - (new^-p - squared^-p) / lr * param`` (p = lr_power; sqrt when p = -0.5),
    ``param = (l1*sign(linear) - linear) / (new^-p / lr + 2*l2)`` where ``|linear| > l1``, else 0;
    ``squared = new``."""
    for p, g, sq, lin, lr in zip(params, grads, squareds, linears, lrs):
        new = sq + g * g
        if lr_power == -0.5:
            grown, scale = new.sqrt() - sq.sqrt(), new.sqrt()
        else:
            grown, scale = new.pow(-lr_power) - sq.pow(-lr_power), new.pow(-lr_power)
        lin.add_(g - grown / lr * p)
        shrunk = (l1 * torch.sign(lin) - lin) / (scale / lr + 2.0 * l2)
        p.copy_(torch.where(lin.abs() > l1, shrunk, torch.zeros_like(shrunk)))
        sq.copy_(new)


@op("decayed_adagrad", inputs=["Param", "Grad", "Moment", "LearningRate"], outputs=["ParamOut", "MomentOut"],
    attrs={"decay": 0.95, "epsilon": 1e-6}, differentiable=False)
def decayed_adagrad(Param, Grad, Moment, LearningRate, *, decay, epsilon):
    grad = Grad if Grad.dtype == Param.dtype else Grad.to(Param.dtype)
    decayed_adagrad_update([Param], [grad], [Moment], [float(LearningRate.reshape(-1)[0])], decay=decay,
                           epsilon=epsilon)
    return Param, Moment


@op("ftrl", inputs=["Param", "SquaredAccumulator", "LinearAccumulator", "Grad", "LearningRate"],
    outputs=["ParamOut", "SquaredAccumOut", "LinearAccumOut"], attrs={"l1": 0.0, "l2": 0.0, "lr_power": -0.5},
    differentiable=False)
def ftrl(Param, SquaredAccumulator, LinearAccumulator, Grad, LearningRate, *, l1, l2, lr_power):
    grad = Grad if Grad.dtype == Param.dtype else Grad.to(Param.dtype)
    ftrl_update([Param], [grad], [SquaredAccumulator], [LinearAccumulator], [float(LearningRate.reshape(-1)[0])],
                l1=l1, l2=l2, lr_power=lr_power)
    return Param, SquaredAccumulator, LinearAccumulator


# Paddle 1.x's ModelAverage: a window of parameter sums; sums move to sum_2 every 16384 updates (precision)
_MAX_NUM_ACCUMULATES = 16384


@op("average_accumulates",
    inputs=["param", "in_sum_1", "in_sum_2", "in_sum_3", "in_num_accumulates", "in_old_num_accumulates",
            "in_num_updates"],
    outputs=["out_sum_1", "out_sum_2", "out_sum_3", "out_num_accumulates", "out_old_num_accumulates",
             "out_num_updates"],
    attrs={"average_window": 0.0, "max_average_window": 9223372036854775807, "min_average_window": 10000},
    differentiable=False)
def average_accumulates(param, in_sum_1, in_sum_2, in_sum_3, in_num_accumulates, in_old_num_accumulates,
                        in_num_updates, *, average_window, max_average_window, min_average_window):
    num_updates = int(in_num_updates.reshape(-1)[0]) + 1
    num_accumulates = int(in_num_accumulates.reshape(-1)[0]) + 1
    old_num_accumulates = int(in_old_num_accumulates.reshape(-1)[0])
    sum_1, sum_2, sum_3 = in_sum_1 + param, in_sum_2.clone(), in_sum_3.clone()
    if num_updates % _MAX_NUM_ACCUMULATES == 0:
        sum_2 = in_sum_2 + in_sum_1
        sum_1 = torch.zeros_like(sum_1)
    if num_accumulates >= min_average_window and \
            num_accumulates >= min(max_average_window, num_updates * average_window):
        # the window is full: its sums (this step's parameter included) become sum_3 and a new one starts
        sum_3 = sum_1 + sum_2
        sum_1, sum_2 = torch.zeros_like(sum_1), torch.zeros_like(sum_2)
        old_num_accumulates, num_accumulates = num_accumulates, 0

    def count(value, like):
        return torch.full_like(like, value)
    return (sum_1, sum_2, sum_3, count(num_accumulates, in_num_accumulates),
            count(old_num_accumulates, in_old_num_accumulates), count(num_updates, in_num_updates))
