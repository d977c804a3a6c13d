"""LookAhead (slow weights pulled toward the fast ones every k steps) and ModelAverage (sliding-window parameter
average applied for evaluation); both run eagerly on the parameters' torch tensors."""
import contextlib

import torch

from ..framework.mode import in_dynamic_mode
from ..optimizer import Optimizer

_MAX_NUM_ACCUMULATES = 16384  # Paddle folds sum_1 into sum_2 this often to bound float error


def _eager_only(api):
    if not in_dynamic_mode():
        raise NotImplementedError(f"{api} is implemented for dygraph mode only in torchpaddle")


class LookAhead(Optimizer):
    """Wrap ``inner_optimizer``: every step it updates the fast weights; every ``k`` steps the slow weights move
    ``alpha`` of the way to the fast ones and the fast weights are reset to them."""

    def __init__(self, inner_optimizer, alpha=0.5, k=5, name=None):
        if not isinstance(inner_optimizer, Optimizer):
            raise TypeError(f"LookAhead: inner_optimizer should be an Optimizer, got {type(inner_optimizer).__name__}")
        if not 0.0 <= alpha <= 1.0:
            raise ValueError(f"LookAhead: alpha should be in [0.0, 1.0], got {alpha}")
        if not isinstance(k, int) or isinstance(k, bool) or k <= 0:
            raise ValueError(f"LookAhead: k should be a positive integer, got {k!r}")
        _eager_only("LookAhead")
        super().__init__(learning_rate=float(alpha), parameters=inner_optimizer._all_parameters(), name=name)
        self.inner_optimizer = inner_optimizer
        self.alpha = alpha
        self.k = k
        self.type = "lookahead"
        self._global_step = 0
        self._slow = {}

    def step(self):
        self.inner_optimizer.step()
        self._global_step += 1
        sync = self._global_step % self.k == 0
        with torch.no_grad():
            for p in self._all_parameters():
                if p.stop_gradient or p._t.grad is None:
                    continue
                fast = p._t
                slow = self._slow.get(p.name)
                if self._global_step == 1 or slow is None:
                    slow = self._slow[p.name] = fast.detach().clone()
                if sync:
                    slow.mul_(1.0 - self.alpha).add_(fast, alpha=self.alpha)
                    fast.copy_(slow)

    def minimize(self, loss, startup_program=None, parameters=None, no_grad_set=None):
        _eager_only("LookAhead.minimize")
        self.step()
        return [], [(p, p.grad) for p in self._all_parameters() if p.grad is not None]

    def clear_grad(self, set_to_zero=True):
        self.inner_optimizer.clear_grad(set_to_zero)

    def state_dict(self):
        state = {f"{name}_slow_0": slow.clone() for name, slow in self._slow.items()}
        state["global_step"] = self._global_step
        return state

    def set_state_dict(self, state_dict):
        self._global_step = int(state_dict.get("global_step", 0))
        for key, value in state_dict.items():
            if key.endswith("_slow_0"):
                self._slow[key[:-len("_slow_0")]] = torch.as_tensor(getattr(value, "_t", value)).clone()


class ModelAverage(Optimizer):
    """Accumulate each parameter over a sliding window of steps; ``apply()`` swaps in the window average (and by
    default restores the trained values on exit)."""

    def __init__(self, average_window_rate, parameters=None, min_average_window=10000, max_average_window=10000,
                 name=None):
        _eager_only("ModelAverage")
        super().__init__(learning_rate=0.0, parameters=parameters, name=name)
        self.average_window = average_window_rate
        self.min_average_window = min_average_window
        self.max_average_window = max_average_window
        self.type = "average_accumulates"
        self._acc = {}     # param name -> [sum_1, sum_2, sum_3, num_accumulates, old_num_accumulates, num_updates]
        self._backup = {}

    def _state(self, p):
        acc = self._acc.get(p.name)
        if acc is None:
            zero = torch.zeros_like(p._t)
            acc = self._acc[p.name] = [zero, zero.clone(), zero.clone(), 0, 0, 0]
        return acc

    def step(self):
        with torch.no_grad():
            for p in self._all_parameters():
                if p.stop_gradient or p._t.grad is None:
                    continue
                acc = self._state(p)
                sum_1, sum_2, sum_3, n_acc, old_n, n_upd = acc
                n_upd += 1
                n_acc += 1
                sum_1 = sum_1 + p._t
                if n_upd % _MAX_NUM_ACCUMULATES == 0:
                    sum_2, sum_1 = sum_2 + sum_1, torch.zeros_like(sum_1)
                if n_acc >= self.min_average_window and n_acc >= min(self.max_average_window,
                                                                     n_upd * self.average_window):
                    sum_3 = sum_1 + sum_2
                    sum_1, sum_2 = torch.zeros_like(sum_1), torch.zeros_like(sum_2)
                    old_n, n_acc = n_acc, 0
                acc[:] = [sum_1, sum_2, sum_3, n_acc, old_n, n_upd]

    def minimize(self, loss, startup_program=None, parameters=None, no_grad_set=None):
        _eager_only("ModelAverage.minimize")
        self.step()

    @contextlib.contextmanager
    def apply(self, executor=None, need_restore=True):
        """Within the block the parameters hold their window average."""
        _eager_only("ModelAverage.apply")
        with torch.no_grad():
            for p in self._all_parameters():
                acc = self._acc.get(p.name)
                if acc is None:
                    continue
                self._backup[p.name] = p._t.detach().clone()
                total = (acc[0] + acc[1] + acc[2]).to(torch.float32)
                count = float(acc[3] + acc[4])
                p._t.copy_((total / count).to(p._t.dtype))
        try:
            yield
        finally:
            if need_restore:
                self.restore()

    def restore(self, executor=None):
        """Put back the parameter values saved by ``apply``."""
        with torch.no_grad():
            for p in self._all_parameters():
                saved = self._backup.pop(p.name, None)
                if saved is not None:
                    p._t.copy_(saved)
