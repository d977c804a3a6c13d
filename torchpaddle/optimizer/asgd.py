"""paddle.optimizer.ASGD: stochastic average gradient over the last ``batch_num`` gradients.

``y`` keeps the last ``batch_num`` gradients of each parameter and ``d`` their sum: ``d += g - y[i]``,
``y[i] = g`` with ``i = m % batch_num``, then ``m += 1`` and ``param -= lr / min(m, batch_num) * d``.
"""
import weakref

import torch

from ..framework import dtype as _dtype
from ..ops.defs.optimizer import asgd_update
from ..utils import unique_name
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

    def _static_op(self, block, param, grad, lr, accumulators):
        # Paddle 3.3.1 cannot build ASGD in a legacy program (it reads the window index at build time); here the
        # index is computed by ops: i = m % batch_num, m += 1, n = min(m, batch_num); the asgd op gets y[i] and
        # y[i] becomes the gradient
        d, window, m = (accumulators[k] for k in (self._d_acc_str, self._y_acc_str, self._m_acc_str))
        consts = self.__dict__.setdefault("_static_consts", weakref.WeakKeyDictionary())
        if block not in consts:
            consts[block] = _temp(block, [1], "int64")
            block.append_op("fill_constant", {}, {"Out": [consts[block]]},
                            {"shape": [1], "value": float(self._n), "str_value": str(self._n),
                             "dtype": _dtype.convert_dtype("int64").proto, "force_cpu": False, "place_type": -1})
        n = consts[block]
        index, count = _temp(block, [1], "int64"), _temp(block, [1], "int64")
        shape = list(param.shape)
        slot, old, new = _temp(block, [1] + shape, param.dtype), _temp(block, shape, param.dtype), \
            _temp(block, [1] + shape, param.dtype)
        block.append_op("elementwise_mod", {"X": [m], "Y": [n]}, {"Out": [index]}, {"axis": -1})
        block.append_op("increment", {"X": [m]}, {"Out": [m]}, {"step": 1.0})
        block.append_op("elementwise_min", {"X": [m], "Y": [n]}, {"Out": [count]}, {"axis": -1})
        block.append_op("gather", {"X": [window], "Index": [index]}, {"Out": [slot]}, {"axis": 0, "overwrite": True})
        block.append_op("squeeze2", {"X": [slot]}, {"Out": [old]}, {"axes": [0]})
        block.append_op("unsqueeze2", {"X": [grad]}, {"Out": [new]}, {"axes": [0]})
        block.append_op("scatter", {"X": [window], "Ids": [index], "Updates": [new]}, {"Out": [window]},
                        {"overwrite": True})
        return ("asgd", {"param": [param.name], "grad": [grad], "learning_rate": [lr], "d": [d], "y": [old],
                         "n": [count]},
                {"param_out": [param.name], "d_out": [d], "y_out": [_temp(block, shape, param.dtype)]},
                {"multi_precision": False})


def _temp(block, shape, dtype):
    return block.create_var(name=unique_name.generate("_generated_var"), shape=shape, dtype=dtype,
                            stop_gradient=True).name
