"""paddle.optimizer.RMSProp.

``ms = rho*ms + (1-rho)*g*g``; centered: ``mg = rho*mg + (1-rho)*g`` and ``denom = sqrt(ms - mg*mg + eps)``,
else ``denom = sqrt(ms + eps)``; ``mom = momentum*mom + lr*g/denom``; ``param -= mom``.
"""
from ..ops.defs.optimizer import rmsprop_update
from .optimizer import Optimizer

__all__ = ["RMSProp"]


class RMSProp(Optimizer):
    _momentum_acc_str = "momentum"
    _mean_square_acc_str = "mean_square"
    _mean_grad_acc_str = "mean_grad"

    def __init__(self, learning_rate, rho=0.95, epsilon=1.0e-6, momentum=0.0, centered=False, parameters=None,
                 weight_decay=None, grad_clip=None, name=None):
        for what, value in (("learning_rate", learning_rate), ("rho", rho), ("epsilon", epsilon),
                            ("momentum", momentum)):
            if value is None:
                raise ValueError(f"{what} is not set.")
        if not 0.0 <= epsilon:
            raise ValueError("Invalid value of epsilon, expect epsilon >= 0.")
        if not 0.0 <= momentum:
            raise ValueError("Invalid value of momentum, expect momentum >= 0.")
        if not 0.0 <= rho:
            raise ValueError("Invalid value of rho, expect rho >= 0.")
        super().__init__(learning_rate=learning_rate, parameters=parameters, weight_decay=weight_decay,
                         grad_clip=grad_clip, name=name)
        self.type = "rmsprop"
        self._rho, self._epsilon, self._momentum, self._centered = rho, epsilon, momentum, centered
        self._default_dict = {"rho": rho, "epsilon": epsilon, "momentum": momentum, "centered": centered}

    def _create_state(self, target, options):
        return tuple(self._add_accumulator(name, target)
                     for name in (self._momentum_acc_str, self._mean_square_acc_str, self._mean_grad_acc_str))

    def _update(self, params, grads, options):
        weights, grads, states, low = self._prepare(params, grads, options)
        rmsprop_update(weights, grads, [s[1] for s in states], [s[0] for s in states], [s[2] for s in states],
                       self._param_lrs(params), rho=options["rho"], epsilon=options["epsilon"],
                       momentum=options["momentum"], centered=options["centered"])
        self._write_back(low)

    def _static_op(self, block, param, grad, lr, accumulators):
        a = accumulators
        moment, mean_square, mean_grad = (a[self._momentum_acc_str], a[self._mean_square_acc_str],
                                          a[self._mean_grad_acc_str])
        return ("rmsprop", {"Param": [param.name], "MeanSquare": [mean_square], "Grad": [grad], "Moment": [moment],
                            "LearningRate": [lr], "MeanGrad": [mean_grad]},
                {"ParamOut": [param.name], "MomentOut": [moment], "MeanSquareOut": [mean_square],
                 "MeanGradOut": [mean_grad]},
                {"epsilon": float(self._epsilon), "decay": float(self._rho), "momentum": float(self._momentum),
                 "centered": bool(self._centered), "multi_precision": False})
