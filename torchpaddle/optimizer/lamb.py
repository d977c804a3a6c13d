"""paddle.optimizer.Lamb: layer-wise adaptive Adam (LAMB).

``r = (m1/(1-b1p)) / (sqrt(m2/(1-b2p)) + epsilon) + lamb_weight_decay * param`` with Adam's moments, then
``param -= lr * trust * r`` where ``trust = ||param|| / ||r||`` (1 when either norm is 0, and 1 for parameters
without decay unless ``always_adapt``). Parameters for which ``exclude_from_weight_decay_fn(param)`` is true
get no decay. The beta powers advance after the update.
"""
from ..ops.defs.optimizer import lamb_update
from .adam import _AdamBase
from .optimizer import _scalar

__all__ = ["Lamb"]


class Lamb(_AdamBase):
    def __init__(self, learning_rate=0.001, lamb_weight_decay=0.01, beta1=0.9, beta2=0.999, epsilon=1e-6,
                 parameters=None, grad_clip=None, exclude_from_weight_decay_fn=None, multi_precision=False,
                 always_adapt=False, name=None):
        for value in (learning_rate, beta1, beta2, epsilon):
            if value is None:
                raise AssertionError("Lamb: learning_rate, beta1, beta2 and epsilon must not be None")
        if exclude_from_weight_decay_fn is not None and not callable(exclude_from_weight_decay_fn):
            raise TypeError("Lamb: exclude_from_weight_decay_fn must be callable, got "
                            f"{type(exclude_from_weight_decay_fn).__name__}")
        super().__init__(learning_rate=learning_rate, parameters=parameters, weight_decay=None,
                         grad_clip=grad_clip, name=name)
        self.type = "lamb"
        self._beta1, self._beta2, self._epsilon = beta1, beta2, epsilon
        self._lamb_weight_decay = lamb_weight_decay
        self._exclude_from_weight_decay_fn = exclude_from_weight_decay_fn
        self._default_dict = {"beta1": beta1, "beta2": beta2, "epsilon": epsilon,
                              "lamb_weight_decay": lamb_weight_decay,
                              "exclude_from_weight_decay_fn": exclude_from_weight_decay_fn}
        self._multi_precision = multi_precision
        self.always_adapt = always_adapt

    def _update(self, params, grads, options):
        weights, grads, states, low = self._prepare(params, grads, options)
        lamb_update(weights, grads, [s[0] for s in states], [s[1] for s in states], [s[3] for s in states],
                    [s[4] for s in states], self._param_lrs(params), beta1=_scalar(options["beta1"]),
                    beta2=_scalar(options["beta2"]), epsilon=_scalar(options["epsilon"]),
                    weight_decays=[self._decay_of(p, options) for p in params], always_adapt=self.always_adapt)
        self._write_back(low)

    @staticmethod
    def _decay_of(param, options):
        """The lamb_weight_decay of ``param`` (0 when exclude_from_weight_decay_fn excludes it)."""
        exclude = options["exclude_from_weight_decay_fn"]
        return 0.0 if exclude is not None and exclude(param) else float(options["lamb_weight_decay"])

    def _static_op(self, block, param, grad, lr, accumulators):
        op_type, inputs, outputs, attrs = super()._static_op(block, param, grad, lr, accumulators)
        return ("lamb", inputs, outputs,
                {"weight_decay": self._decay_of(param, self._default_dict), "beta1": attrs["beta1"],
                 "beta2": attrs["beta2"], "epsilon": attrs["epsilon"], "always_adapt": bool(self.always_adapt),
                 "multi_precision": False})
