"""paddle.optimizer.lr: learning-rate schedulers.

A scheduler holds ``last_epoch`` and ``last_lr``; ``step()`` advances ``last_epoch`` and recomputes
``last_lr`` with ``get_lr()``; calling the scheduler returns ``last_lr``. Construction performs the first
``step()``, so a fresh scheduler has ``last_epoch == 0`` (from the default ``last_epoch=-1``). Optimizers
read the scheduler's value at every ``step()``; stepping the scheduler is the user's job, as in Paddle.
``step(epoch)`` jumps to ``epoch``, using a closed form where the recurrence needs the previous value.
"""
import math
import warnings

import numpy as np

from ..framework.tensor import Tensor

__all__ = ["LRScheduler", "NoamDecay", "PiecewiseDecay", "NaturalExpDecay", "InverseTimeDecay",
           "PolynomialDecay", "LinearWarmup", "ExponentialDecay", "MultiStepDecay", "StepDecay", "LambdaDecay",
           "ReduceOnPlateau", "CosineAnnealingDecay", "MultiplicativeDecay", "OneCycleLR", "CyclicLR", "LinearLR",
           "CosineAnnealingWarmRestarts"]


def _is_number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def restore_state(scheduler, state_dict):
    """Set ``scheduler``'s attributes named in ``scheduler.keys`` from ``state_dict``, with Paddle's error for a
    missing key and warning for extra ones (the 2.x schedulers and fluid's LearningRateDecay alike)."""
    for key in scheduler.keys:
        if key not in state_dict:
            raise RuntimeError("Please check whether state_dict is correct for optimizer. Can't find "
                               f"[ {key} ] in state_dict")
        scheduler.__dict__[key] = state_dict[key]
    if len(state_dict) > len(scheduler.keys):
        warnings.warn("There are some unused values in state_dict. Maybe the optimizer have different "
                      "'LearningRateDecay' when invoking state_dict and set_dict")


class LRScheduler:
    """Base class: subclasses implement ``get_lr()`` from ``self.last_epoch`` (and ``self.last_lr``)."""

    def __init__(self, learning_rate=0.1, last_epoch=-1, verbose=False):
        if not _is_number(learning_rate):
            raise TypeError(f"The type of learning rate must be float, but received {type(learning_rate)}")
        if learning_rate < 0:
            raise ValueError(f"Invalid learning rate: {learning_rate}")
        self.base_lr = float(learning_rate)
        self.last_lr = float(learning_rate)
        self.last_epoch = last_epoch
        self.verbose = verbose
        self._var_name = None
        self.step()

    def __call__(self):
        return self.last_lr

    def step(self, epoch=None):
        """Advance one epoch (or jump to ``epoch``) and update ``last_lr``."""
        if epoch is None:
            self.last_epoch += 1
            self.last_lr = self.get_lr()
        else:
            self.last_epoch = epoch
            closed_form = getattr(self, "_get_closed_form_lr", None)
            self.last_lr = closed_form() if closed_form is not None else self.get_lr()
        self._report()

    def _report(self):
        if self.verbose:
            print(f"Epoch {self.last_epoch}: {type(self).__name__} set learning rate to {self.last_lr}.")

    def state_keys(self):
        self.keys = ["last_epoch", "last_lr"]

    def state_dict(self):
        """The scheduler's state (``last_epoch``, ``last_lr`` and any subclass keys) as plain Python values."""
        self.state_keys()
        state = {}
        for key in self.keys:
            if key not in self.__dict__:
                continue
            value = self.__dict__[key]
            if isinstance(value, Tensor):
                if value.size != 1:
                    raise AssertionError(f"{type(self).__name__}.state_dict: the Tensor held in {key!r} must "
                                         f"have one element, got shape {value.shape}")
                value = float(value)
            state[key] = value
        return state

    def set_state_dict(self, state_dict):
        """Restore what ``state_dict()`` returned."""
        if not isinstance(state_dict, dict):
            raise TypeError(f"{type(self).__name__}.set_state_dict: state_dict must be a dict, got "
                            f"{type(state_dict).__name__}")
        self.state_keys()
        restore_state(self, state_dict)

    set_dict = set_state_dict

    def get_lr(self):
        raise NotImplementedError(f"{type(self).__name__} must implement get_lr()")


class NoamDecay(LRScheduler):
    """``lr * d_model**-0.5 * min(epoch**-0.5, epoch * warmup_steps**-1.5)`` (epoch 0 counts as 1 in the first)."""

    def __init__(self, d_model, warmup_steps, learning_rate=1.0, last_epoch=-1, verbose=False):
        if d_model <= 0:
            raise ValueError("d_model should be grater than 0")
        self.d_model = d_model
        self.warmup_steps = warmup_steps
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        epoch = self.last_epoch
        decay = 1 if epoch == 0 else epoch ** -0.5
        warmup = self.warmup_steps ** -1.5 * epoch
        return self.base_lr * self.d_model ** -0.5 * min(decay, warmup)


class PiecewiseDecay(LRScheduler):
    """``values[i]`` while ``last_epoch < boundaries[i]``; the last value after the last boundary."""

    def __init__(self, boundaries, values, last_epoch=-1, verbose=False):
        if len(boundaries) == 0:
            raise ValueError("The boundaries cannot be empty.")
        if len(values) <= len(boundaries):
            raise ValueError(f"The values have one more element than boundaries, but received len(values) "
                             f"[{len(values)}] < len(boundaries) + 1 [{len(boundaries) + 1}].")
        self.boundaries = boundaries
        self.values = values
        super().__init__(last_epoch=last_epoch, verbose=verbose)

    def get_lr(self):
        for boundary, value in zip(self.boundaries, self.values):
            if self.last_epoch < boundary:
                return value
        return self.values[-1]


class NaturalExpDecay(LRScheduler):
    """``lr * exp(-gamma * epoch)``."""

    def __init__(self, learning_rate, gamma, last_epoch=-1, verbose=False):
        if not gamma > 0.0:
            raise AssertionError(" 'gamma' must be a positive number so that the learning rate will decay.")
        self.gamma = gamma
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        return self.base_lr * math.exp(-1 * self.gamma * self.last_epoch)


class InverseTimeDecay(LRScheduler):
    """``lr / (1 + gamma * epoch)``."""

    def __init__(self, learning_rate, gamma, last_epoch=-1, verbose=False):
        self.gamma = gamma
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        return self.base_lr / (1 + self.gamma * self.last_epoch)


class PolynomialDecay(LRScheduler):
    """``(lr - end_lr) * (1 - epoch / decay_steps) ** power + end_lr``; ``cycle`` restarts every decay_steps."""

    def __init__(self, learning_rate, decay_steps, end_lr=0.0001, power=1.0, cycle=False, last_epoch=-1,
                 verbose=False):
        if not (isinstance(decay_steps, int) and decay_steps > 0):
            raise AssertionError(" 'decay_steps' must be a positive integer.")
        if not power > 0.0:
            raise AssertionError(" 'power' must be greater than 0.0 so that the learning rate will decay.")
        self.decay_steps = decay_steps
        self.end_lr = end_lr
        self.power = power
        self.cycle = cycle
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        epoch, steps = self.last_epoch, self.decay_steps
        if self.cycle:
            # epoch 0 counts as the first cycle, not the zeroth
            steps = self.decay_steps * (math.ceil(float(epoch) / float(self.decay_steps)) if epoch != 0 else 1)
        else:
            epoch = min(epoch, self.decay_steps)
        return (self.base_lr - self.end_lr) * (1 - float(epoch) / float(steps)) ** self.power + self.end_lr


class LinearWarmup(LRScheduler):
    """Linear from ``start_lr`` to ``end_lr`` over ``warmup_steps``, then ``learning_rate`` (float or scheduler)."""

    def __init__(self, learning_rate, warmup_steps, start_lr, end_lr, last_epoch=-1, verbose=False):
        if not isinstance(learning_rate, (float, int, LRScheduler)) or isinstance(learning_rate, bool):
            raise TypeError("the type of learning_rate should be [int, float or LRScheduler], the current type is "
                            f"{learning_rate}")
        if not (isinstance(warmup_steps, int) and warmup_steps > 0):
            raise AssertionError(" 'warmup_steps' must be a positive integer.")
        if not end_lr > start_lr:
            raise AssertionError(f"end_lr {end_lr} must be greater than start_lr {start_lr}")
        self.learning_rate = learning_rate
        self.warmup_steps = warmup_steps
        self.start_lr = start_lr
        self.end_lr = end_lr
        super().__init__(start_lr, last_epoch, verbose)

    def state_dict(self):
        state = super().state_dict()
        if isinstance(self.learning_rate, LRScheduler):
            state["LinearWarmup_LR"] = self.learning_rate.state_dict()
        return state

    def set_state_dict(self, state_dict):
        super().set_state_dict(state_dict)
        if isinstance(self.learning_rate, LRScheduler):
            self.learning_rate.set_state_dict(state_dict["LinearWarmup_LR"])

    def get_lr(self):
        if self.last_epoch < self.warmup_steps:
            return ((self.end_lr - self.start_lr) * float(self.last_epoch) / float(self.warmup_steps)
                    + self.start_lr)
        if isinstance(self.learning_rate, LRScheduler):
            self.learning_rate.step(self.last_epoch - self.warmup_steps)
            return self.learning_rate()
        return self.learning_rate


class ExponentialDecay(LRScheduler):
    """``lr * gamma ** epoch``."""

    def __init__(self, learning_rate, gamma, last_epoch=-1, verbose=False):
        if not 0.0 < gamma < 1.0:
            raise AssertionError(" 'gamma' must be in interval (0.0, 1.0) so that the learning rate will decay.")
        self.gamma = gamma
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        return self.base_lr * self.gamma ** self.last_epoch


class MultiStepDecay(LRScheduler):
    """``lr * gamma ** (number of milestones <= epoch)``."""

    def __init__(self, learning_rate, milestones, gamma=0.1, last_epoch=-1, verbose=False):
        if not isinstance(milestones, (tuple, list)):
            raise TypeError("The type of 'milestones' in 'MultiStepDecay' must be 'tuple, list', but received "
                            f"{type(milestones)}.")
        if any(a >= b for a, b in zip(milestones, milestones[1:])):
            raise ValueError("The elements of milestones must be incremented")
        if gamma >= 1.0:
            raise ValueError("gamma should be < 1.0.")
        self.milestones = milestones
        self.gamma = gamma
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        passed = len(self.milestones)
        for i, milestone in enumerate(self.milestones):
            if self.last_epoch < milestone:
                passed = i
                break
        return self.base_lr * self.gamma ** passed


class StepDecay(LRScheduler):
    """``lr * gamma ** (epoch // step_size)``."""

    def __init__(self, learning_rate, step_size, gamma=0.1, last_epoch=-1, verbose=False):
        if not isinstance(step_size, int) or isinstance(step_size, bool):
            raise TypeError(f"The type of 'step_size' must be 'int', but received {type(step_size)}.")
        if gamma >= 1.0:
            raise ValueError("gamma should be < 1.0.")
        if step_size <= 0:
            raise AssertionError(" 'step_size' must be a positive integer.")
        self.step_size = step_size
        self.gamma = gamma
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        return self.base_lr * self.gamma ** (self.last_epoch // self.step_size)


def _check_lambda(cls_name, fn):
    if not callable(fn):
        raise TypeError(f"The type of 'lr_lambda' in '{cls_name}' must be 'function', but received {type(fn)}.")


class LambdaDecay(LRScheduler):
    """``lr * lr_lambda(epoch)``."""

    def __init__(self, learning_rate, lr_lambda, last_epoch=-1, verbose=False):
        _check_lambda("LambdaDecay", lr_lambda)
        self.lr_lambda = lr_lambda
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        return self.base_lr * self.lr_lambda(self.last_epoch)


class MultiplicativeDecay(LRScheduler):
    """``lr * prod(lr_lambda(e) for e in 1..epoch)``."""

    def __init__(self, learning_rate, lr_lambda, last_epoch=-1, verbose=False):
        _check_lambda("MultiplicativeDecay", lr_lambda)
        self.lr_lambda = lr_lambda
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        lr = self.base_lr
        for epoch in range(1, self.last_epoch + 1):
            lr = lr * self.lr_lambda(epoch)
        return lr


class ReduceOnPlateau(LRScheduler):
    """Multiply the lr by ``factor`` when ``metrics`` passed to ``step(metrics)`` stop improving.

    Unlike the other schedulers, construction does not step: ``last_epoch`` starts at 0.
    """

    def __init__(self, learning_rate, mode="min", factor=0.1, patience=10, threshold=1e-4, threshold_mode="rel",
                 cooldown=0, min_lr=0, epsilon=1e-8, verbose=False):
        mode = mode.lower()
        if mode not in ("min", "max"):
            raise ValueError("mode: " + mode + " is unknown!")
        if factor >= 1.0:
            raise ValueError("new_lr = origin_lr * gamma and gamma should be < 1.0.")
        threshold_mode = threshold_mode.lower()
        if threshold_mode not in ("rel", "abs"):
            raise ValueError("threshold mode: " + threshold_mode + " is unknown!")
        if not _is_number(learning_rate):
            raise TypeError("The type of 'learning_rate' in 'ReduceOnPlateau' must be 'float', but received "
                            f"{type(learning_rate)}.")
        self.mode = mode
        self.factor = factor
        self.threshold_mode = threshold_mode
        self.patience = patience
        self.threshold = threshold
        self.cooldown = cooldown
        self.min_lr = min_lr
        self.epsilon = epsilon
        self.cooldown_counter = 0
        self.best = None
        self.num_bad_epochs = 0
        self.base_lr = float(learning_rate)
        self.last_lr = float(learning_rate)
        self.last_epoch = 0
        self.verbose = verbose
        self._var_name = None

    def state_keys(self):
        self.keys = ["cooldown_counter", "best", "num_bad_epochs", "last_epoch", "last_lr"]

    def step(self, metrics, epoch=None):
        """Record ``metrics`` (a number, or a Tensor/ndarray of one element) for this epoch."""
        self.last_epoch = self.last_epoch + 1 if epoch is None else epoch
        if isinstance(metrics, (Tensor, np.ndarray)):
            if metrics.size != 1:
                raise AssertionError(f"the size of metrics must be 1, but the current metrics.size is "
                                     f"{metrics.size}. Maybe that you should call paddle.mean to process it first.")
        elif not isinstance(metrics, (int, float, np.float32, np.float64)) or isinstance(metrics, bool):
            raise TypeError("metrics must be 'int', 'float', 'np.float64', 'numpy.ndarray' or 'paddle.Tensor', "
                            f"but receive {type(metrics)}")
        if self.cooldown_counter > 0:
            self.cooldown_counter -= 1
            return
        if self.best is None or self._is_better(metrics, self.best):
            self.best = metrics
            self.num_bad_epochs = 0
        else:
            self.num_bad_epochs += 1
        if self.num_bad_epochs > self.patience:
            self.cooldown_counter = self.cooldown
            self.num_bad_epochs = 0
            new_lr = max(self.last_lr * self.factor, self.min_lr)
            if self.last_lr - new_lr > self.epsilon:
                self.last_lr = new_lr
                self._report()

    def _is_better(self, current, best):
        margin = best * self.threshold if self.threshold_mode == "rel" else self.threshold
        if self.mode == "min":
            return current < best - margin
        return current > best + margin


class CosineAnnealingDecay(LRScheduler):
    """Cosine annealing from ``learning_rate`` to ``eta_min`` over ``T_max`` epochs (recurrence form, as SGDR)."""

    def __init__(self, learning_rate, T_max, eta_min=0, last_epoch=-1, verbose=False):
        if not isinstance(T_max, int) or isinstance(T_max, bool):
            raise TypeError(f"The type of 'T_max' in 'CosineAnnealingDecay' must be 'int', but received "
                            f"{type(T_max)}.")
        if not _is_number(eta_min):
            raise TypeError(f"The type of 'eta_min' in 'CosineAnnealingDecay' must be 'float, int', but received "
                            f"{type(eta_min)}.")
        if T_max <= 0:
            raise AssertionError(" 'T_max' must be a positive integer.")
        self.T_max = T_max
        self.eta_min = float(eta_min)
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        epoch, period = self.last_epoch, self.T_max
        if epoch == 0:
            return self.base_lr
        if (epoch - 1 - period) % (2 * period) == 0:
            return self.last_lr + (self.base_lr - self.eta_min) * (1 - math.cos(math.pi / period)) / 2
        ratio = (1 + math.cos(math.pi * epoch / period)) / (1 + math.cos(math.pi * (epoch - 1) / period))
        return ratio * (self.last_lr - self.eta_min) + self.eta_min

    def _get_closed_form_lr(self):
        return (self.eta_min + (self.base_lr - self.eta_min)
                * (1 + math.cos(math.pi * self.last_epoch / self.T_max)) / 2)


class OneCycleLR(LRScheduler):
    """One-cycle policy: warm up to ``max_learning_rate``, then anneal to ``end_learning_rate``."""

    def __init__(self, max_learning_rate, total_steps, divide_factor=25.0, end_learning_rate=0.0001,
                 phase_pct=0.3, anneal_strategy="cos", three_phase=False, last_epoch=-1, verbose=False):
        if not _is_number(max_learning_rate):
            raise TypeError(f"'max_learning_rate' must be 'float' or 'int', but received {type(max_learning_rate)}")
        if max_learning_rate < 0:
            raise ValueError("'max_learning_rate' must be a positive integer.")
        if not _is_number(end_learning_rate):
            raise TypeError(f"'end_learning_rate' must be 'float' or 'int', but received {type(end_learning_rate)}")
        if end_learning_rate < 0:
            raise ValueError("'end_learning_rate' must be a positive integer.")
        if not isinstance(total_steps, int) or isinstance(total_steps, bool):
            raise TypeError(f"'total_step' must be 'int', but received {type(total_steps)}")
        if total_steps <= 0:
            raise ValueError("'total_step' must be a positive integer.")
        if not isinstance(phase_pct, float):
            raise TypeError(f"'phase_pct' must be 'float', but received {type(phase_pct)}")
        if phase_pct < 0 or phase_pct > 1:
            raise ValueError(f"'phase_pct' must be between 0 and 1, but received {phase_pct}")
        if not _is_number(divide_factor):
            raise TypeError(f"'divide_factor' must be 'float' or 'int', but received {type(divide_factor)}")
        self.total_steps = total_steps
        initial_lr = max_learning_rate / float(divide_factor)
        min_lr = float(end_learning_rate)
        up_end = phase_pct * total_steps - 1
        last = total_steps - 1
        if three_phase:
            if phase_pct >= 0.5:
                raise ValueError("When three_phase is True, 'phase_pct' must be less than 0.5")
            down_end = 2 * phase_pct * total_steps - 2
            self._step_config = [0, up_end, down_end, last, last]
            self._lr_config = [initial_lr, max_learning_rate, initial_lr, min_lr]
        else:
            self._step_config = [0, up_end, last, last]
            self._lr_config = [initial_lr, max_learning_rate, min_lr]
        ends = self._step_config
        # the trailing phase repeats the previous span, as in Paddle
        self._steps_size = [ends[i + 1] - ends[i] for i in range(len(ends) - 2)]
        self._steps_size.append(self._steps_size[-1])
        if anneal_strategy == "cos":
            self.anneal_func = self._cos_annealing
        elif anneal_strategy == "linear":
            self.anneal_func = self._linear_annealing
        else:
            raise ValueError(f"'anneal_strategy' must by one of 'cos' or 'linear', but received {anneal_strategy}")
        super().__init__(initial_lr, last_epoch, verbose)

    def _cos_annealing(self, start_lr, end_lr, pct):
        return end_lr + (start_lr - end_lr) / 2.0 * (math.cos(math.pi * pct) + 1)

    def _linear_annealing(self, start_lr, end_lr, pct):
        return (end_lr - start_lr) * pct + start_lr

    def get_lr(self):
        step = self.last_epoch
        if step > self.total_steps:
            raise ValueError(f"Tried to step {step} times. However the number of total steps is {self.total_steps}")
        last_phase = len(self._lr_config) - 2
        for i, (end_step, size) in enumerate(zip(self._step_config[1:], self._steps_size)):
            if step <= end_step or i == last_phase:
                pct = (step - self._step_config[i]) / size
                return self.anneal_func(self._lr_config[i], self._lr_config[i + 1], pct)


class CyclicLR(LRScheduler):
    """Cycle between ``base_learning_rate`` and ``max_learning_rate`` (triangular, triangular2, exp_range)."""

    def __init__(self, base_learning_rate, max_learning_rate, step_size_up, step_size_down=None,
                 mode="triangular", exp_gamma=1.0, scale_fn=None, scale_mode="cycle", last_epoch=-1,
                 verbose=False):
        if not _is_number(max_learning_rate):
            raise TypeError(f"'max_learning_rate' must be 'float' or 'int', but received {type(max_learning_rate)}")
        if max_learning_rate < 0:
            raise ValueError(f"'max_learning_rate' must be a positive integer, but received {max_learning_rate}")
        for what, size in (("step_size_up", step_size_up), ("step_size_down", step_size_down)):
            if size is None and what == "step_size_down":
                continue
            if not isinstance(size, int) or isinstance(size, bool):
                raise TypeError(f"The type of '{what}' must be int, but received {type(size)}")
            if size <= 0:
                raise ValueError(f"'{what}' must be a positive integer, but received {size}")
        if not isinstance(exp_gamma, float):
            raise TypeError(f"The type of 'exp_gamma' must be float, but received {type(exp_gamma)}")
        up = float(step_size_up)
        down = float(step_size_down) if step_size_down is not None else up
        self.cycle_size = up + down
        self.step_up_pct = up / self.cycle_size
        self.max_lr = float(max_learning_rate)
        self.amplitude = self.max_lr - base_learning_rate
        if mode not in ("triangular", "triangular2", "exp_range") and scale_fn is None:
            raise ValueError("'mode' is invalid and 'scale_fn' is not specified, make sure one of 'mode' or "
                             "'scale_fn' is valid")
        if scale_mode not in ("cycle", "iterations"):
            raise ValueError("'scale_mode' must be one of 'cycle' or 'iterations")
        self.mode = mode
        self.gamma = exp_gamma
        if scale_fn is None:
            self.scale_fn, self.scale_mode = {
                "triangular": (self._triangular_scale_fn, "cycle"),
                "triangular2": (self._triangular2_scale_fn, "cycle"),
                "exp_range": (self._exp_range_scale_fn, "iterations"),
            }[mode]
        else:
            self.scale_fn, self.scale_mode = scale_fn, scale_mode
        super().__init__(base_learning_rate, last_epoch, verbose)

    def _triangular_scale_fn(self, x):
        return 1.0

    def _triangular2_scale_fn(self, x):
        return 1 / (2.0 ** (x - 1))

    def _exp_range_scale_fn(self, x):
        return self.gamma ** x

    def get_lr(self):
        iterations = self.last_epoch
        cycle = 1 + iterations // self.cycle_size
        pct = 1.0 + iterations / self.cycle_size - cycle
        if pct <= self.step_up_pct:
            scale_factor = pct / self.step_up_pct
        else:
            scale_factor = (1 - pct) / (1 - self.step_up_pct)
        x = cycle if self.scale_mode == "cycle" else iterations
        return self.base_lr + self.amplitude * scale_factor * self.scale_fn(x)


class LinearLR(LRScheduler):
    """Scale the lr linearly from ``start_factor`` to ``end_factor`` over ``total_steps``."""

    def __init__(self, learning_rate, total_steps, start_factor=1.0 / 3, end_factor=1.0, last_epoch=-1,
                 verbose=False):
        if start_factor > 1.0 or start_factor <= 0:
            raise ValueError(f"`start_factor` must be greater than 0 and less or equal to 1, but got {start_factor}")
        if end_factor > 1.0 or end_factor < 0:
            raise ValueError(f"`end_factor` must be greater than 0 and less than 1, but got {end_factor}")
        if total_steps <= 0:
            raise ValueError(f"`total_steps` must be greater than 0, but got {total_steps}")
        self.start_factor = start_factor
        self.end_factor = end_factor
        self.total_steps = total_steps
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        if self.last_epoch == 0:
            return self.base_lr * self.start_factor
        if self.last_epoch > self.total_steps:
            return self.last_lr
        span = self.end_factor - self.start_factor
        start = self.total_steps * self.start_factor
        return self.last_lr * (1.0 + span / (start + (self.last_epoch - 1) * span))


class CosineAnnealingWarmRestarts(LRScheduler):
    """Cosine annealing restarted every ``T_i`` epochs, with ``T_i`` growing by ``T_mult`` after each restart."""

    def __init__(self, learning_rate, T_0, T_mult=1, eta_min=0, last_epoch=-1, verbose=False):
        if not isinstance(T_0, int) or T_0 <= 0:
            raise ValueError(f"Expected positive integer T_0, but got {T_0}")
        if not isinstance(T_mult, int) or T_mult < 1:
            raise ValueError(f"Expected integer T_mult >= 1, but got {T_mult}")
        self.T_0 = T_0
        self.T_i = T_0
        self.T_mult = T_mult
        self.eta_min = eta_min
        self.T_cur = last_epoch
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        return self.eta_min + (self.base_lr - self.eta_min) * (1 + math.cos(math.pi * self.T_cur / self.T_i)) / 2

    # NOTE: Paddle saves only last_epoch/last_lr, so a resumed run restarts its cycle; torchpaddle also saves
    # the position in the cycle, and derives it from last_epoch when loading a state dict written by Paddle.
    def state_keys(self):
        self.keys = ["last_epoch", "last_lr", "T_cur", "T_i"]

    def set_state_dict(self, state_dict):
        if isinstance(state_dict, dict) and not {"T_cur", "T_i"} <= set(state_dict):
            base = {k: v for k, v in state_dict.items() if k in ("last_epoch", "last_lr")}
            LRScheduler.state_keys(self)
            for key in self.keys:
                if key not in base:
                    raise RuntimeError("Please check whether state_dict is correct for optimizer. Can't find "
                                       f"[ {key} ] in state_dict")
            last_lr, verbose = base["last_lr"], self.verbose
            self.verbose = False
            self.step(max(base["last_epoch"], 0))
            self.verbose, self.last_lr, self.last_epoch = verbose, last_lr, base["last_epoch"]
            return
        super().set_state_dict(state_dict)

    def step(self, epoch=None):
        if epoch is None and self.last_epoch < 0:
            epoch = 0
        if epoch is None:
            epoch = self.last_epoch + 1
            self.T_cur += 1
            if self.T_cur >= self.T_i:
                self.T_cur -= self.T_i
                self.T_i *= self.T_mult
        elif epoch < 0:
            raise ValueError(f"Expected non-negative epoch, but got {epoch}")
        elif epoch >= self.T_0:
            if self.T_mult == 1:
                self.T_cur = epoch % self.T_0
            else:
                n = int(math.log(epoch / self.T_0 * (self.T_mult - 1) + 1, self.T_mult))
                self.T_cur = epoch - self.T_0 * (self.T_mult ** n - 1) / (self.T_mult - 1)
                self.T_i = self.T_0 * self.T_mult ** n
        else:
            self.T_i = self.T_0
            self.T_cur = epoch
        self.last_epoch = math.floor(epoch)
        self.last_lr = self.get_lr()
        self._report()


# -- the 1.x functional forms (not in __all__, as in Paddle); in dygraph mode they return a scheduler ----------
def _dygraph_only(name):
    from ..framework.mode import in_dynamic_mode
    if not in_dynamic_mode():
        raise NotImplementedError(f"paddle.optimizer.lr.{name}: the static-graph form (a decayed learning-rate "
                                  "variable driven by a global step counter) is not supported; pass an "
                                  "LRScheduler to the optimizer instead")


def noam_decay(d_model, warmup_steps, learning_rate=1.0):
    _dygraph_only("noam_decay")
    return NoamDecay(d_model, warmup_steps, learning_rate=learning_rate)


def exponential_decay(learning_rate, decay_steps, decay_rate, staircase=False):
    # NOTE: as in Paddle's dygraph branch, decay_steps and staircase are ignored
    _dygraph_only("exponential_decay")
    return ExponentialDecay(learning_rate, decay_rate)


def natural_exp_decay(learning_rate, decay_steps, decay_rate, staircase=False):
    _dygraph_only("natural_exp_decay")
    return NaturalExpDecay(learning_rate, decay_rate)


def inverse_time_decay(learning_rate, decay_steps, decay_rate, staircase=False):
    _dygraph_only("inverse_time_decay")
    return InverseTimeDecay(learning_rate, decay_rate)


def polynomial_decay(learning_rate, decay_steps, end_learning_rate=0.0001, power=1.0, cycle=False):
    _dygraph_only("polynomial_decay")
    return PolynomialDecay(learning_rate, decay_steps, end_learning_rate, power, cycle)


def piecewise_decay(boundaries, values):
    if len(values) - len(boundaries) != 1:
        raise ValueError("len(values) - len(boundaries) should be 1")
    _dygraph_only("piecewise_decay")
    return PiecewiseDecay(boundaries, values)


def cosine_decay(learning_rate, step_each_epoch, epochs):
    if not isinstance(learning_rate, (float, Tensor)):
        raise TypeError(f"The type of 'learning_rate' in cosine_decay must be float or Tensor, but received "
                        f"{type(learning_rate)}.")
    _dygraph_only("cosine_decay")
    return CosineAnnealingDecay(learning_rate, epochs)


def linear_lr_warmup(learning_rate, warmup_steps, start_lr, end_lr):
    _dygraph_only("linear_lr_warmup")
    return LinearWarmup(learning_rate, warmup_steps, start_lr, end_lr)
