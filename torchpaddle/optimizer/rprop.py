"""paddle.optimizer.Rprop: resilient backpropagation (sign-based steps with per-element step sizes).

Per element, with ``p = g * prev``: ``p > 0`` grows the step size by ``etas[1]``, ``p < 0`` shrinks it by
``etas[0]`` and skips the update (the gradient counts as 0 for the next step); sizes stay within
``learning_rate_range``; ``param -= sign(g) * step``. ``learning_rate`` only sets the initial step size.
"""
import weakref

from ..ops.defs.optimizer import rprop_update
from ..utils import unique_name
from .optimizer import Optimizer

__all__ = ["Rprop"]


class Rprop(Optimizer):
    _prevs_acc_str = "prevs"
    _learning_rates_acc_str = "learning_rates"

    def __init__(self, learning_rate=0.001, learning_rate_range=(1e-5, 50), parameters=None, etas=(0.5, 1.2),
                 grad_clip=None, multi_precision=False, name=None):
        if learning_rate is None:
            raise ValueError("learning_rate is not set")
        if not 0.0 < learning_rate_range[0] <= learning_rate <= learning_rate_range[1]:
            raise ValueError("'0.0 < learning_rate_range[0] <= learning_rate <= learning_rate_range[1]' must be true")
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError("'0.0 < etas[0] < 1.0 < etas[1]' must be true")
        super().__init__(learning_rate=learning_rate, parameters=parameters, weight_decay=0.0, grad_clip=grad_clip,
                         name=name)
        self.type = "rprop"
        self._initial_learning_rate = learning_rate
        self._multi_precision = multi_precision
        self._learning_rate_range = [tuple(learning_rate_range)]
        self._etas = [tuple(etas)]
        self._default_dict = {}

    def _create_state(self, target, options):
        return (self._add_accumulator(self._prevs_acc_str, target),
                self._add_accumulator(self._learning_rates_acc_str, target,
                                      fill_value=float(self._initial_learning_rate)))

    def _update(self, params, grads, options):
        weights, grads, states, low = self._prepare(params, grads, options)
        rprop_update(weights, grads, [s[0] for s in states], [s[1] for s in states],
                     learning_rate_range=self._learning_rate_range[0], etas=self._etas[0])
        self._write_back(low)

    def _static_op(self, block, param, grad, lr, accumulators):
        # the step sizes are the learning_rates accumulator; the bounds and factors are [1, 2] tensors, made once
        consts = self.__dict__.setdefault("_static_consts", weakref.WeakKeyDictionary())
        if block not in consts:
            consts[block] = [_constant(block, values, param.dtype)
                             for values in (self._learning_rate_range[0], self._etas[0])]
        bounds, etas = consts[block]
        prev, rates = accumulators[self._prevs_acc_str], accumulators[self._learning_rates_acc_str]
        return ("rprop", {"param": [param.name], "grad": [grad], "prev": [prev], "learning_rate": [rates],
                          "learning_rate_range": [bounds], "etas": [etas]},
                {"param_out": [param.name], "prev_out": [prev], "learning_rate_out": [rates]},
                {"multi_precision": False})


def _constant(block, values, dtype):
    name = unique_name.generate("assign") + ".tmp_0"
    block.create_var(name=name, shape=[1, 2], dtype=dtype, stop_gradient=True)
    block.append_op("assign_value", {}, {"Out": [name]},
                    {"shape": [1, 2], "dtype": dtype.proto, "values": [float(v) for v in values]})
    return name
