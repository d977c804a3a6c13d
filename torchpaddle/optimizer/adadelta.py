"""paddle.optimizer.Adadelta.

``E[g2] = rho*E[g2] + (1-rho)*g*g``, ``update = sqrt((E[dx2] + eps) / (E[g2] + eps)) * g``,
``E[dx2] = rho*E[dx2] + (1-rho)*update*update``, ``param -= lr * update``.
"""
from ..ops.defs.optimizer import adadelta_update
from .optimizer import Optimizer

__all__ = ["Adadelta"]


class Adadelta(Optimizer):
    # NOTE: Paddle's accumulator names start with "_", hence "<param>__avg_squared_grad_0" in state dicts
    _avg_squared_grad_acc_str = "_avg_squared_grad"
    _avg_squared_update_acc_str = "_avg_squared_update"

    def __init__(self, learning_rate=0.001, epsilon=1.0e-6, rho=0.95, parameters=None, weight_decay=None,
                 grad_clip=None, name=None):
        if learning_rate is None:
            raise ValueError("learning_rate is not set.")
        if epsilon is None:
            raise ValueError("epsilon is not set.")
        if rho is None:
            raise ValueError("rho is not set.")
        super().__init__(learning_rate=learning_rate, parameters=parameters, weight_decay=weight_decay,
                         grad_clip=grad_clip, name=name)
        self.type = "adadelta"
        self._epsilon = epsilon
        self._rho = rho
        self._default_dict = {"epsilon": epsilon, "rho": rho}

    def _create_state(self, target, options):
        return (self._add_accumulator(self._avg_squared_grad_acc_str, target),
                self._add_accumulator(self._avg_squared_update_acc_str, target))

    def _update(self, params, grads, options):
        weights, grads, states, low = self._prepare(params, grads, options)
        adadelta_update(weights, grads, [s[0] for s in states], [s[1] for s in states], self._param_lrs(params),
                        rho=options["rho"], epsilon=options["epsilon"])
        self._write_back(low)

    def _static_op(self, block, param, grad, lr, accumulators):
        sq_grad = accumulators[self._avg_squared_grad_acc_str]
        sq_update = accumulators[self._avg_squared_update_acc_str]
        return ("adadelta", {"Param": [param.name], "Grad": [grad], "AvgSquaredGrad": [sq_grad],
                             "AvgSquaredUpdate": [sq_update], "LearningRate": [lr]},
                {"ParamOut": [param.name], "AvgSquaredGradOut": [sq_grad], "AvgSquaredUpdateOut": [sq_update]},
                {"rho": float(self._rho), "epsilon": float(self._epsilon), "multi_precision": False})
