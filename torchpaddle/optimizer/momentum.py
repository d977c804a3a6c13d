"""paddle.optimizer.Momentum: heavy-ball or Nesterov momentum with L2 decay fused into the update.

``velocity = mu * velocity + g`` with ``g = rescale_grad * grad + l2_coeff * param``;
``param -= lr * velocity`` (or ``lr * (g + mu * velocity)`` with Nesterov). An L2Decay (or float
weight_decay) is folded into ``g`` here instead of being added to the gradient beforehand, so it is applied
after ``rescale_grad``, as Paddle's GPU kernel does.
NOTE: Paddle's CPU kernel ignores ``rescale_grad``; torchpaddle applies it everywhere, as documented.
"""
from ..ops.defs.optimizer import momentum_update
from ..regularizer import L2Decay
from .optimizer import Optimizer

__all__ = ["Momentum"]


def _l2_method(weight_decay):
    """(regularization_method, coeff) Paddle derives from a weight_decay argument."""
    if isinstance(weight_decay, L2Decay):
        return "l2_decay", weight_decay._value()
    if isinstance(weight_decay, float):
        return "l2_decay", weight_decay
    return "", 0.0


class Momentum(Optimizer):
    _velocity_acc_str = "velocity"

    def __init__(self, learning_rate=0.001, momentum=0.9, parameters=None, use_nesterov=False, weight_decay=None,
                 grad_clip=None, multi_precision=False, rescale_grad=1.0, use_multi_tensor=False, name=None):
        if learning_rate is None:
            raise ValueError("learning_rate is not set")
        if momentum is None:
            raise ValueError("momentum is not set")
        if isinstance(weight_decay, int) and not isinstance(weight_decay, bool):
            weight_decay = float(weight_decay)
        fused = isinstance(weight_decay, (L2Decay, float))
        if isinstance(parameters, list) and parameters and isinstance(parameters[0], dict):
            groups = []
            for group in parameters:
                group = dict(group)
                decay = group.get("weight_decay", weight_decay)
                if isinstance(decay, int) and not isinstance(decay, bool):
                    decay = float(decay)
                group["regularization_method"], group["regularization_coeff"] = _l2_method(decay)
                group["weight_decay"] = None if isinstance(decay, (L2Decay, float)) else decay
                groups.append(group)
            parameters = groups
        super().__init__(learning_rate=learning_rate, parameters=parameters,
                         weight_decay=None if fused else weight_decay, grad_clip=grad_clip, name=name)
        self.type = "momentum"
        self._momentum = momentum
        self._use_nesterov = bool(use_nesterov)
        self._regularization_method, self._regularization_coeff = _l2_method(weight_decay)
        self._multi_precision = multi_precision
        self._rescale_grad = rescale_grad
        self._use_multi_tensor = use_multi_tensor
        self._default_dict = {"momentum": momentum, "use_nesterov": use_nesterov, "rescale_grad": rescale_grad,
                              "regularization_method": self._regularization_method,
                              "regularization_coeff": self._regularization_coeff}

    def _regularizer_of(self, param, regularization):
        # an L2Decay set on the parameter is fused into the momentum update instead
        reg = getattr(param, "regularizer", None)
        if isinstance(reg, L2Decay):
            return None
        return regularization if reg is None else reg

    def _create_state(self, target, options):
        return (self._add_accumulator(self._velocity_acc_str, target),)

    def _update(self, params, grads, options):
        weights, grads, states, low = self._prepare(params, grads, options)
        momentum_update(weights, grads, [s[0] for s in states], self._param_lrs(params), mu=float(options["momentum"]),
                        use_nesterov=options["use_nesterov"], rescale_grad=float(options["rescale_grad"]),
                        l2_coeffs=[self._l2_coeff(p, options) for p in params])
        self._write_back(low)

    @classmethod
    def _l2_coeff(cls, param, options):
        return cls._l2_method(param, options)[1]

    @staticmethod
    def _l2_method(param, options):
        """(regularization_method, coeff) fused into the update of ``param``: its own L2Decay, else the
        optimizer's; none when the parameter has another regularizer (already added to its gradient)."""
        reg = getattr(param, "regularizer", None)
        if isinstance(reg, L2Decay):
            return "l2_decay", reg._value()
        if reg is None:
            return options["regularization_method"], float(options["regularization_coeff"])
        return "", 0.0

    def _static_op(self, block, param, grad, lr, accumulators):
        options = self._default_dict
        method, coeff = self._l2_method(param, options)
        velocity = accumulators[self._velocity_acc_str]
        return ("momentum", {"Param": [param.name], "Grad": [grad], "Velocity": [velocity], "LearningRate": [lr]},
                {"ParamOut": [param.name], "VelocityOut": [velocity]},
                {"mu": float(options["momentum"]), "use_nesterov": bool(options["use_nesterov"]),
                 "regularization_method": method, "regularization_coeff": coeff, "multi_precision": False,
                 "rescale_grad": float(options["rescale_grad"])})
