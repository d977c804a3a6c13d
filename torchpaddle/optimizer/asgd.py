"""paddle.optimizer.ASGD: stochastic average gradient over the last ``batch_num`` gradients.

``y`` keeps the last ``batch_num`` gradients of each parameter and ``d`` their sum: ``d += g - y[i]``,
``y[i] = g`` with ``i = m % batch_num``, then ``m += 1`` and ``param -= lr / min(m, batch_num) * d``.
"""
import torch

from ..ops.defs.optimizer import asgd_update
from .optimizer import Optimizer

__all__ = ["ASGD"]


class ASGD(Optimizer):
    _d_acc_str = "d"
    _y_acc_str = "y"
    _m_acc_str = "m"

    def __init__(self, learning_rate=0.001, batch_num=1, parameters=None, weight_decay=None, grad_clip=None,
                 multi_precision=False, name=None):
        if learning_rate is None:
            raise ValueError("learning_rate should not be none")
        if batch_num is None:
            raise ValueError("batch_num should not be none")
        if not 0 < batch_num:
            raise ValueError("batch_num should be greater than 0")
        super().__init__(learning_rate=learning_rate, parameters=parameters, weight_decay=weight_decay,
                         grad_clip=grad_clip, name=name)
        self.type = "asgd"
        self._multi_precision = multi_precision
        self._n = batch_num
        self._default_dict = {}

    def _create_state(self, target, options):
        # NOTE: like Paddle, d and y take the parameter's dtype even when a float32 master weight is used
        d = self._add_accumulator(self._d_acc_str, target)
        y = self._add_accumulator(self._y_acc_str, target, shape=[self._n, *target._t.shape])
        m = self._add_accumulator(self._m_acc_str, target, dtype=torch.int64, shape=[1], device="cpu")
        return (d, y, m.numpy())

    def _update(self, params, grads, options):
        weights, grads, states, low = self._prepare(params, grads, options)
        slots, counts = [], []
        for _, y, m in states:
            slots.append(y[int(m[0]) % self._n])
            m[0] += 1
            counts.append(min(int(m[0]), self._n))
        asgd_update(weights, grads, [s[0] for s in states], slots, counts, self._param_lrs(params))
        self._write_back(low)
