"""paddle.optimizer.AdamW: Adam with decoupled weight decay.

Before the Adam update, ``param *= 1 - lr * lr_ratio(param) * coeff`` for parameters selected by
``apply_decay_param_fun(param.name)``; the Adam step then uses ``lr * lr_ratio(param)``.
NOTE: Paddle's CPU build refuses ``lr_ratio`` (NotImplementedError); torchpaddle implements it everywhere
with the GPU kernel's meaning.
"""
from ..framework.tensor import Tensor
from .adam import _AdamBase, _check_betas
from .optimizer import _optimize_attr, _scalar

__all__ = ["AdamW"]


class AdamW(_AdamBase):
    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8, parameters=None,
                 weight_decay=0.01, use_lowprecision_moment=False, lr_ratio=None, apply_decay_param_fun=None,
                 grad_clip=None, lazy_mode=False, multi_precision=False, amsgrad=False, name=None):
        if learning_rate is None:
            raise AssertionError("AdamW: learning_rate must not be None")
        _check_betas(beta1, beta2, epsilon)
        if isinstance(weight_decay, bool) or not isinstance(weight_decay, (int, float, Tensor)):
            raise TypeError("weight_decay should be int, float or Tensor.")
        if lr_ratio is not None and not callable(lr_ratio):
            raise TypeError(f"AdamW: lr_ratio must be callable, got {type(lr_ratio).__name__}")
        if apply_decay_param_fun is not None and not callable(apply_decay_param_fun):
            raise TypeError(f"AdamW: apply_decay_param_fun must be callable, got "
                            f"{type(apply_decay_param_fun).__name__}")
        self._weight_decay = _scalar(weight_decay)
        self._beta1, self._beta2, self._epsilon = beta1, beta2, epsilon
        self._lazy_mode = lazy_mode
        self._apply_decay_param_fun = apply_decay_param_fun
        self._lr_ratio = lr_ratio
        self._use_lowprecision_moment = use_lowprecision_moment
        self._low_precision_moments = use_lowprecision_moment
        self._multi_precision = multi_precision
        self._amsgrad = amsgrad
        self._params_name = set()
        super().__init__(learning_rate=learning_rate, parameters=parameters, weight_decay=None,
                         grad_clip=grad_clip, name=name)
        self.type = "adamw"
        self._use_multi_tensor = None

    def _group_defaults(self):
        return {"weight_decay": self._weight_decay, "beta1": self._beta1, "beta2": self._beta2,
                "epsilon": self._epsilon, "lazy_mode": self._lazy_mode, "grad_clip": self._grad_clip}

    def _set_group_param_attrs(self, group):
        # AdamW keeps its decay out of the gradient, so groups leave the parameters' regularizers alone
        for p in group["params"]:
            _optimize_attr(p)["learning_rate"] = group.get("learning_rate", 1.0)

    def _update(self, params, grads, options):
        weights, grads, states, low = self._prepare(params, grads, options)
        lrs = self._param_lrs(params)
        if self._lr_ratio is not None:
            lrs = [lr * float(self._lr_ratio(p)) for lr, p in zip(lrs, params)]
        coeff = _scalar(options["weight_decay"])
        decide = self._apply_decay_param_fun
        decays = [coeff if coeff != 0.0 and (decide is None or decide(p.name)) else 0.0 for p in params]
        self._adam_step(weights, grads, states, lrs, options, decays)
        self._write_back(low)

    def _static_op(self, block, param, grad, lr, accumulators):
        op_type, inputs, outputs, attrs = super()._static_op(block, param, grad, lr, accumulators)
        decide = self._apply_decay_param_fun
        attrs.update(lr_ratio=1.0 if self._lr_ratio is None else float(self._lr_ratio(param)),
                     coeff=self._weight_decay, with_decay=decide is None or bool(decide(param.name)))
        return op_type, inputs, outputs, attrs

    def __str__(self):
        return " ".join(["Weight Decay, params:", ",".join(self._params_name)])
