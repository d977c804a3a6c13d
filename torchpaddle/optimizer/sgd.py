"""paddle.optimizer.SGD: ``param -= lr * grad``."""
from ..ops.defs.optimizer import sgd_update
from .optimizer import Optimizer

__all__ = ["SGD"]


class SGD(Optimizer):
    """Stochastic gradient descent; ``multi_precision`` keeps float32 master copies of float16/bfloat16 params."""

    def __init__(self, learning_rate=0.001, parameters=None, weight_decay=None, grad_clip=None,
                 multi_precision=False, name=None):
        if learning_rate is None:
            raise ValueError("learning_rate is not set")
        super().__init__(learning_rate=learning_rate, parameters=parameters, weight_decay=weight_decay,
                         grad_clip=grad_clip, name=name)
        self.type = "sgd"
        self._multi_precision = multi_precision

    def _update(self, params, grads, options):
        weights, grads, _, low = self._prepare(params, grads, options)
        sgd_update(weights, grads, self._param_lrs(params))
        self._write_back(low)

    def _static_op(self, block, param, grad, lr, accumulators):
        return ("sgd", {"Param": [param.name], "Grad": [grad], "LearningRate": [lr]}, {"ParamOut": [param.name]},
                {"multi_precision": False})
