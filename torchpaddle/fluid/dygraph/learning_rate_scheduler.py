"""fluid.dygraph's learning-rate decays (Paddle 1.8 semantics), usable as an optimizer's ``learning_rate``.

Step decays follow fluid: calling the decay returns the rate for ``step_num`` and then advances ``step_num`` by
``step``; an optimizer calls it once per ``minimize``. Epoch decays (StepDecay, MultiStepDecay, LambdaDecay)
advance only on ``epoch()``, ReduceLROnPlateau only on ``step(loss)``. Unlike fluid, calling a decay returns
a Python float rather than a one-element Variable. They are LRSchedulers, so every torchpaddle optimizer
accepts them.
"""
import math

import numpy as np

from ...framework.tensor import Tensor
from ...optimizer.lr import LRScheduler, restore_state

__all__ = ["LearningRateDecay", "NoamDecay", "PiecewiseDecay", "NaturalExpDecay", "ExponentialDecay",
           "InverseTimeDecay", "PolynomialDecay", "CosineDecay", "LinearLrWarmup", "ReduceLROnPlateau",
           "StepDecay", "MultiStepDecay", "LambdaDecay"]


def _f32(value):
    # fluid keeps the rate in a float32 variable
    return float(np.float32(value))


def _number(value, name, who):
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{who}: {name} must be an int or a float, got {type(value).__name__}")
    return value


class LearningRateDecay(LRScheduler):
    """Base class of the step decays: subclasses compute the rate for ``self.step_num`` in ``step()``."""

    def __init__(self, begin=0, step=1, dtype="float32"):
        # LRScheduler.__init__ would advance an epoch; fluid's decays count their own steps
        self.step_num, self.step_size, self.dtype = begin, step, dtype
        self.verbose, self._var_name, self.last_epoch = False, None, begin
        self.base_lr = self.last_lr = None

    def __call__(self):
        lr = _f32(self.step())
        self.step_num += self.step_size
        self.last_lr = lr
        return lr

    def step(self):
        raise NotImplementedError(f"{type(self).__name__} must implement step()")

    def _state_keys(self):
        self.keys = ["step_num"]

    def state_keys(self):
        self._state_keys()

    def state_dict(self):
        """fluid's scheduler state: the keys of ``_state_keys`` as plain Python values."""
        self._state_keys()
        state = {}
        for key in self.keys:
            if key in self.__dict__:
                value = self.__dict__[key]
                state[key] = float(value) if isinstance(value, Tensor) else value
        return state

    def set_dict(self, state_dict):
        """Restore what ``state_dict()`` returned."""
        if not isinstance(state_dict, dict):
            raise TypeError(f"{type(self).__name__}.set_dict: state_dict must be a dict, got "
                            f"{type(state_dict).__name__}")
        self._state_keys()
        restore_state(self, state_dict)

    set_state_dict = set_dict


class PiecewiseDecay(LearningRateDecay):
    def __init__(self, boundaries, values, begin, step=1, dtype="float32"):
        super().__init__(begin, step, dtype)
        if len(values) != len(boundaries) + 1:
            raise ValueError(f"PiecewiseDecay: len(values) must be len(boundaries) + 1, got {len(values)} values "
                             f"for {len(boundaries)} boundaries")
        self.boundaries, self.values = list(boundaries), list(values)

    def step(self):
        for boundary, value in zip(self.boundaries, self.values):
            if self.step_num < boundary:
                return value
        return self.values[-1]


class _RateDecay(LearningRateDecay):
    """Decays of ``step_num / decay_steps`` (floored when ``staircase``)."""

    def __init__(self, learning_rate, decay_steps, decay_rate, staircase=False, begin=0, step=1, dtype="float32"):
        super().__init__(begin, step, dtype)
        who = type(self).__name__
        self.learning_rate = _number(learning_rate, "learning_rate", who)
        self.decay_steps, self.decay_rate, self.staircase = decay_steps, decay_rate, staircase

    def _ratio(self):
        ratio = _f32(self.step_num / self.decay_steps)
        return math.floor(ratio) if self.staircase else ratio


class NaturalExpDecay(_RateDecay):
    def step(self):
        return self.learning_rate * math.exp(-self.decay_rate * self._ratio())


class ExponentialDecay(_RateDecay):
    def step(self):
        return self.learning_rate * self.decay_rate ** self._ratio()


class InverseTimeDecay(_RateDecay):
    def step(self):
        return self.learning_rate / (1 + self.decay_rate * self._ratio())


class PolynomialDecay(LearningRateDecay):
    def __init__(self, learning_rate, decay_steps, end_learning_rate=0.0001, power=1.0, cycle=False, begin=0,
                 step=1, dtype="float32"):
        super().__init__(begin, step, dtype)
        self.learning_rate = _number(learning_rate, "learning_rate", "PolynomialDecay")
        self.decay_steps, self.end_learning_rate, self.power, self.cycle = \
            decay_steps, end_learning_rate, power, cycle

    def step(self):
        steps, decay_steps = self.step_num, self.decay_steps
        if self.cycle:
            decay_steps = self.decay_steps * (1.0 if steps == 0 else math.ceil(_f32(steps / self.decay_steps)))
        else:
            steps = min(steps, self.decay_steps)
        return (self.learning_rate - self.end_learning_rate) * (1 - steps / decay_steps) ** self.power \
            + self.end_learning_rate


class CosineDecay(LearningRateDecay):
    def __init__(self, learning_rate, step_each_epoch, epochs, begin=0, step=1, dtype="float32"):
        super().__init__(begin, step, dtype)
        self.learning_rate = _number(learning_rate, "learning_rate", "CosineDecay")
        self.step_each_epoch, self.epochs = step_each_epoch, epochs

    def step(self):
        epoch = math.floor(_f32(self.step_num / self.step_each_epoch))
        return self.learning_rate * 0.5 * (math.cos(epoch * math.pi / self.epochs) + 1)


class NoamDecay(LearningRateDecay):
    def __init__(self, d_model, warmup_steps, begin=1, step=1, dtype="float32", learning_rate=1.0):
        super().__init__(begin, step, dtype)
        self.learning_rate, self.d_model, self.warmup_steps = learning_rate, d_model, warmup_steps

    def step(self):
        a = _f32(self.step_num ** -0.5) if self.step_num else math.inf
        b = _f32(self.warmup_steps ** -1.5 * self.step_num)
        return self.learning_rate * self.d_model ** -0.5 * min(a, b)


class LinearLrWarmup(LearningRateDecay):
    """Warm-up then ``learning_rate`` (a number or another decay, advanced every step).
    NOTE: fluid 1.8 ramps as ``(end_lr - start_lr) / warmup_steps * step_num``, ignoring start_lr's offset."""

    def __init__(self, learning_rate, warmup_steps, start_lr, end_lr, begin=1, step=1, dtype="float32"):
        super().__init__(begin, step, dtype)
        if isinstance(learning_rate, bool) or not isinstance(learning_rate, (int, float, LearningRateDecay)):
            raise TypeError("the type of learning_rate should be [int, float or LearningRateDecay], the current "
                            f"type is {type(learning_rate).__name__}")
        if not end_lr > start_lr:
            raise AssertionError(f"LinearLrWarmup: end_lr {end_lr} must be greater than start_lr {start_lr}")
        self.learning_rate, self.warmup_steps = learning_rate, warmup_steps
        self.lr_ratio_before_warmup = (float(end_lr) - float(start_lr)) / float(warmup_steps)

    def step(self):
        base = self.learning_rate() if isinstance(self.learning_rate, LearningRateDecay) else self.learning_rate
        if self.step_num < self.warmup_steps:
            return self.lr_ratio_before_warmup * self.step_num
        return base


def _loss_value(loss, who):
    if isinstance(loss, Tensor):
        if loss.size != 1:
            raise ValueError(f"{who}: loss must hold one value (shape [1]), got shape {loss.shape}; reduce it with "
                             "fluid.layers.mean first")
        return float(loss.numpy().reshape(-1)[0])
    if isinstance(loss, (int, float, np.integer, np.floating)) and not isinstance(loss, bool):
        return float(loss)
    if isinstance(loss, np.ndarray) and loss.size == 1:
        return float(loss)
    raise TypeError(f"{who}: loss must be a Variable (Tensor) of shape [1], got {type(loss).__name__}")


class ReduceLROnPlateau(LearningRateDecay):
    """Multiplies the rate by ``decay_rate`` when ``step(loss)`` sees no improvement for ``patience`` epochs."""

    def __init__(self, learning_rate, mode="min", decay_rate=0.1, patience=10, verbose=False, threshold=1e-4,
                 threshold_mode="rel", cooldown=0, min_lr=0, eps=1e-8, dtype="float32"):
        super().__init__(0, 1, dtype)
        mode, threshold_mode = mode.lower(), threshold_mode.lower()
        if mode not in ("min", "max"):
            raise ValueError("mode " + mode + " is unknown!")
        if decay_rate >= 1.0:
            raise ValueError("new_lr = origin_lr * decay_rate and decay_rate should be < 1.0.")
        if threshold_mode not in ("rel", "abs"):
            raise ValueError("threshold mode " + threshold_mode + " is unknown!")
        if isinstance(learning_rate, bool) or not isinstance(learning_rate, (float, int)):
            raise TypeError("The type of 'learning_rate' in 'ReduceLROnPlateau' must be 'float, int', but "
                            f"received {type(learning_rate).__name__}.")
        self.mode, self.decay_rate, self.threshold_mode = mode, decay_rate, threshold_mode
        self.learning_rate, self.verbose, self.patience, self.threshold = learning_rate, verbose, patience, threshold
        self.cooldown, self.min_lr, self.eps = cooldown, min_lr, eps
        self.cooldown_counter, self.best_loss, self.num_bad_epochs, self.epoch_num = 0, None, 0, 0

    def _state_keys(self):
        self.keys = ["cooldown_counter", "best_loss", "num_bad_epochs", "epoch_num", "learning_rate"]

    def __call__(self):
        self.last_lr = _f32(self.learning_rate)
        return self.last_lr

    def step(self, loss):
        """Record one epoch's ``loss``; the reduced rate applies from the next ``minimize``."""
        loss = _loss_value(loss, "ReduceLROnPlateau.step")
        self.epoch_num += 1
        if self.cooldown_counter > 0:
            self.cooldown_counter -= 1
            return
        if self.best_loss is None or self._is_better(loss, self.best_loss):
            self.best_loss, self.num_bad_epochs = loss, 0
        else:
            self.num_bad_epochs += 1
        if self.num_bad_epochs > self.patience:
            self.cooldown_counter, self.num_bad_epochs = self.cooldown, 0
            new_lr = max(_f32(self.learning_rate * self.decay_rate), _f32(self.min_lr))
            if self.learning_rate - new_lr > self.eps:
                if self.verbose:
                    print(f"Epoch {self.epoch_num}: reducing learning rate from {self.learning_rate} to {new_lr}.")
                self.learning_rate = new_lr

    def _is_better(self, current, best):
        if self.mode == "min":
            return current < (best - best * self.threshold if self.threshold_mode == "rel" else best - self.threshold)
        return current > (best + best * self.threshold if self.threshold_mode == "rel" else best + self.threshold)


class _LearningRateEpochDecay(LearningRateDecay):
    """Decays that change only when ``epoch()`` is called (once per epoch)."""

    def __init__(self, learning_rate, dtype=None):
        # not LearningRateDecay.__init__: StepDecay's step_size is its own setting, not a step increment
        self.step_num, self.dtype, self.verbose, self._var_name, self.last_epoch = 0, dtype or "float32", False, None, 0
        if isinstance(learning_rate, bool) or not isinstance(learning_rate, (float, int)):
            raise TypeError("The type of 'learning_rate' must be 'float, int', but received "
                            f"{type(learning_rate).__name__}.")
        if learning_rate < 0:
            raise ValueError(f"Invalid learning rate: {learning_rate}")
        self.base_lr = float(learning_rate)
        self.epoch_num = -1
        self.epoch()

    def _state_keys(self):
        self.keys = ["epoch_num", "learning_rate"]

    def __call__(self):
        self.last_lr = _f32(self.learning_rate)
        return self.last_lr

    def epoch(self, epoch=None):
        """Advance one epoch (or jump to ``epoch``) and recompute the rate."""
        self.epoch_num = self.epoch_num + 1 if epoch is None else epoch
        self.learning_rate = self.get_lr()

    def get_lr(self):
        raise NotImplementedError(f"{type(self).__name__} must implement get_lr()")


class StepDecay(_LearningRateEpochDecay):
    def __init__(self, learning_rate, step_size, decay_rate=0.1):
        if not isinstance(step_size, int):
            raise TypeError(f"The type of 'step_size' must be 'int', but received {type(step_size).__name__}.")
        if decay_rate >= 1.0:
            raise ValueError("decay_rate should be < 1.0.")
        self.step_size, self.decay_rate = step_size, decay_rate
        super().__init__(learning_rate)

    def get_lr(self):
        return self.base_lr * _f32(self.decay_rate) ** (self.epoch_num // self.step_size)


class MultiStepDecay(_LearningRateEpochDecay):
    def __init__(self, learning_rate, milestones, decay_rate=0.1):
        if not isinstance(milestones, (tuple, list)):
            raise TypeError("The type of 'milestones' in 'MultiStepDecay' must be 'tuple, list', but received "
                            f"{type(milestones).__name__}.")
        if not all(a < b for a, b in zip(milestones, milestones[1:])):
            raise ValueError("The elements of milestones must be incremented")
        if decay_rate >= 1.0:
            raise ValueError("decay_rate should be < 1.0.")
        self.milestones, self.decay_rate = milestones, decay_rate
        super().__init__(learning_rate)

    def get_lr(self):
        passed = sum(1 for m in self.milestones if self.epoch_num >= m)
        return self.base_lr * _f32(self.decay_rate) ** passed


class LambdaDecay(_LearningRateEpochDecay):
    def __init__(self, learning_rate, lr_lambda):
        if not callable(lr_lambda):
            raise TypeError("The type of 'lr_lambda' in 'LambdaDecay' must be 'function', but received "
                            f"{type(lr_lambda).__name__}.")
        self.lr_lambda = lr_lambda
        super().__init__(learning_rate)

    def get_lr(self):
        return self.base_lr * self.lr_lambda(self.epoch_num)
