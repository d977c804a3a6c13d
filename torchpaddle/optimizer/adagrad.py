"""paddle.optimizer.Adagrad: ``moment += g*g``, ``param -= lr * g / (sqrt(moment) + epsilon)``."""
from ..ops.defs.optimizer import adagrad_update
from .optimizer import Optimizer

__all__ = ["Adagrad"]


class Adagrad(Optimizer):
    _moment_acc_str = "moment"

    def __init__(self, learning_rate, epsilon=1.0e-6, parameters=None, weight_decay=None, grad_clip=None, name=None,
                 initial_accumulator_value=0.0):
        if learning_rate is None or epsilon is None:
            raise AssertionError("Adagrad: learning_rate and epsilon must not be None")
        super().__init__(learning_rate=learning_rate, parameters=parameters, weight_decay=weight_decay,
                         grad_clip=grad_clip, name=name)
        self.type = "adagrad"
        self._epsilon = epsilon
        self.initial_accumulator_value = initial_accumulator_value
        self._default_dict = {"epsilon": epsilon, "initial_accumulator_value": initial_accumulator_value}

    def _create_state(self, target, options):
        return (self._add_accumulator(self._moment_acc_str, target,
                                      fill_value=options["initial_accumulator_value"]),)

    def _update(self, params, grads, options):
        weights, grads, states, low = self._prepare(params, grads, options)
        adagrad_update(weights, grads, [s[0] for s in states], self._param_lrs(params), epsilon=options["epsilon"])
        self._write_back(low)

    def _static_op(self, block, param, grad, lr, accumulators):
        moment = accumulators[self._moment_acc_str]
        return ("adagrad", {"Param": [param.name], "Grad": [grad], "Moment": [moment], "LearningRate": [lr]},
                {"ParamOut": [param.name], "MomentOut": [moment]},
                {"epsilon": float(self._epsilon), "multi_precision": False})
