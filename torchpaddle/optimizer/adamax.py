"""paddle.optimizer.Adamax: Adam with the infinity norm.

``m = beta1*m + (1-beta1)*g``, ``u = max(beta2*u + epsilon, |g|)``, ``param -= lr/(1-b1p) * m/u``; the beta1
power advances after the update.
"""
import torch

from ..ops.defs.optimizer import adamax_update, advance_pows, read_pows
from .optimizer import Optimizer, _scalar

__all__ = ["Adamax"]

_LOW_PRECISION = (torch.float16, torch.bfloat16)


class Adamax(Optimizer):
    _moment_acc_str = "moment"
    _inf_norm_acc_str = "inf_norm"
    _beta1_pow_acc_str = "beta1_pow_acc"

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8, parameters=None,
                 weight_decay=None, grad_clip=None, name=None):
        for value in (learning_rate, beta1, beta2, epsilon):
            if value is None:
                raise AssertionError("Adamax: learning_rate, beta1, beta2 and epsilon must not be None")
        if not 0 <= beta1 < 1:
            raise ValueError("Invalid value of beta1, expect beta1 in [0,1).")
        if not 0 <= beta2 < 1:
            raise ValueError("Invalid value of beta2, expect beta2 in [0,1).")
        if not 0 <= epsilon:
            raise ValueError("Invalid value of epsilon, expect epsilon >= 0.")
        super().__init__(learning_rate=learning_rate, parameters=parameters, weight_decay=weight_decay,
                         grad_clip=grad_clip, name=name)
        self.type = "adamax"
        self._beta1, self._beta2, self._epsilon = beta1, beta2, epsilon
        self._default_dict = {"beta1": beta1, "beta2": beta2, "epsilon": epsilon}

    def _create_state(self, target, options):
        dtype = target._t.dtype
        acc = torch.float32 if dtype in _LOW_PRECISION else dtype
        moment = self._add_accumulator(self._moment_acc_str, target, dtype=acc)
        inf_norm = self._add_accumulator(self._inf_norm_acc_str, target, dtype=acc)
        b1p = self._add_accumulator(self._beta1_pow_acc_str, target, dtype=acc, fill_value=_scalar(options["beta1"]),
                                    shape=[1], device="cpu")
        return (moment, inf_norm, b1p.numpy())

    def _update(self, params, grads, options):
        weights, grads, states, low = self._prepare(params, grads, options)
        beta1 = _scalar(options["beta1"])
        pows = [s[2] for s in states]
        adamax_update(weights, grads, [s[0] for s in states], [s[1] for s in states], pows, self._param_lrs(params),
                      beta1=beta1, beta2=_scalar(options["beta2"]), epsilon=_scalar(options["epsilon"]))
        # the beta1 power advances after the update (Paddle's program: a scale op after the adamax ops)
        advance_pows(pows, read_pows(pows), beta1)
        self._write_back(low)

    def _static_op(self, block, param, grad, lr, accumulators):
        a = accumulators
        moment, inf_norm = a[self._moment_acc_str], a[self._inf_norm_acc_str]
        return ("adamax", {"Param": [param.name], "Grad": [grad], "LearningRate": [lr], "Moment": [moment],
                           "InfNorm": [inf_norm], "Beta1Pow": [a[self._beta1_pow_acc_str]]},
                {"ParamOut": [param.name], "MomentOut": [moment], "InfNormOut": [inf_norm]},
                {"beta1": _scalar(self._beta1), "beta2": _scalar(self._beta2), "epsilon": _scalar(self._epsilon),
                 "multi_precision": False})

    def _static_finish(self, block, param, accumulators):
        # the adamax op leaves the beta1 power alone: a scale op advances it, after every parameter's update
        pow_name = accumulators[self._beta1_pow_acc_str]
        block.append_op("scale", {"X": [pow_name]}, {"Out": [pow_name]},
                        {"scale": _scalar(self._beta1), "bias": 0.0, "bias_after_scale": True})
