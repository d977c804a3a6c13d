"""paddle.optimizer.Adam, with the update shared by AdamW.

Per step, with ``b1p``/``b2p`` the beta powers before the step (Paddle's CPU kernel, in float32):
``m1 = beta1*m1 + (1-beta1)*g``, ``m2 = beta2*m2 + (1-beta2)*g*g`` (``amsgrad``: the running max of m2),
``param -= lr*sqrt(1-b2p)/(1-b1p) * m1 / (sqrt(m2) + epsilon*sqrt(1-b2p))``; then ``b1p *= beta1``,
``b2p *= beta2``. ``beta1``/``beta2``/``epsilon`` may be one-element Tensors, read at every step.
"""
import torch

from ..framework.tensor import Tensor
from ..ops.defs.optimizer import adam_update
from .optimizer import Optimizer, _scalar

__all__ = ["Adam"]

_LOW_PRECISION = (torch.float16, torch.bfloat16)


def _check_betas(beta1, beta2, epsilon):
    for value in (beta1, beta2, epsilon):
        if value is None:
            raise AssertionError("Adam: beta1, beta2 and epsilon must not be None")
    if not isinstance(beta1, Tensor) and not 0 <= beta1 < 1:
        raise ValueError("Invalid value of beta1, expect beta1 in [0,1).")
    if not isinstance(beta2, Tensor) and not 0 <= beta2 < 1:
        raise ValueError("Invalid value of beta2, expect beta2 in [0,1).")
    if not isinstance(epsilon, Tensor) and not 0 <= epsilon:
        raise ValueError("Invalid value of epsilon, expect epsilon >= 0.")


def _initial_pow(beta, default):
    # NOTE: Paddle starts the beta powers at 0.9 / 0.999 whenever beta is a Tensor, whatever its value
    return default if isinstance(beta, Tensor) else float(beta)


class _AdamBase(Optimizer):
    _moment1_acc_str = "moment1"
    _moment2_acc_str = "moment2"
    _moment2_acc_max_str = "moment2_max"
    _beta1_pow_acc_str = "beta1_pow_acc"
    _beta2_pow_acc_str = "beta2_pow_acc"
    _amsgrad = False
    _low_precision_moments = False

    def _create_state(self, target, options):
        dtype = target._t.dtype
        if dtype in _LOW_PRECISION and not self._low_precision_moments:
            dtype = torch.float32
        m1 = self._add_accumulator(self._moment1_acc_str, target, dtype=dtype)
        m2 = self._add_accumulator(self._moment2_acc_str, target, dtype=dtype)
        m2_max = self._add_accumulator(self._moment2_acc_max_str, target, dtype=dtype) if self._amsgrad else None
        pows = [self._add_accumulator(name, target, dtype=dtype, fill_value=_initial_pow(options[beta], default),
                                      shape=[1], device="cpu")
                for name, beta, default in ((self._beta1_pow_acc_str, "beta1", 0.9),
                                            (self._beta2_pow_acc_str, "beta2", 0.999))]
        return (m1, m2, m2_max, pows[0].numpy(), pows[1].numpy())

    def _keeps_sparse(self, options):
        return bool(options.get("lazy_mode"))

    def _static_op(self, block, param, grad, lr, accumulators):
        options = self._default_dict
        a = accumulators
        inputs = {"Param": [param.name], "Grad": [grad], "LearningRate": [lr], "Moment1": [a[self._moment1_acc_str]],
                  "Moment2": [a[self._moment2_acc_str]], "Beta1Pow": [a[self._beta1_pow_acc_str]],
                  "Beta2Pow": [a[self._beta2_pow_acc_str]]}
        outputs = {"ParamOut": [param.name], "Moment1Out": [a[self._moment1_acc_str]],
                   "Moment2Out": [a[self._moment2_acc_str]], "Beta1PowOut": [a[self._beta1_pow_acc_str]],
                   "Beta2PowOut": [a[self._beta2_pow_acc_str]]}
        if self._amsgrad:
            inputs["Moment2Max"] = outputs["Moment2MaxOut"] = [a[self._moment2_acc_max_str]]
        attrs = {"beta1": _scalar(options["beta1"]), "beta2": _scalar(options["beta2"]),
                 "epsilon": _scalar(options["epsilon"]), "lazy_mode": bool(options.get("lazy_mode", False)),
                 "min_row_size_to_use_multithread": 1000, "multi_precision": False, "use_global_beta_pow": False,
                 "amsgrad": bool(self._amsgrad)}
        return self.type, inputs, outputs, attrs

    def _adam_step(self, weights, grads, states, lrs, options, decays=None):
        """The Adam update of ``weights`` in place; ``lrs`` are the per-parameter learning rates."""
        adam_update(weights, grads, [s[0] for s in states], [s[1] for s in states],
                    [s[2] for s in states] if self._amsgrad else None, [s[3] for s in states],
                    [s[4] for s in states], lrs, beta1=_scalar(options["beta1"]), beta2=_scalar(options["beta2"]),
                    epsilon=_scalar(options["epsilon"]), decays=decays)


class Adam(_AdamBase):
    """Adam; ``weight_decay`` is added to the gradient (use AdamW for decoupled decay).

    ``lazy_mode`` only matters for sparse gradients (e.g. from ``Embedding(sparse=True)``): rows absent from the
    gradient are left alone. Dense gradients update every row, as in Paddle.
    """

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8, parameters=None,
                 weight_decay=None, grad_clip=None, lazy_mode=False, multi_precision=False, use_multi_tensor=False,
                 amsgrad=False, name=None):
        if learning_rate is None:
            raise AssertionError("Adam: learning_rate must not be None")
        _check_betas(beta1, beta2, epsilon)
        super().__init__(learning_rate=learning_rate, parameters=parameters, weight_decay=weight_decay,
                         grad_clip=grad_clip, name=name)
        self.type = "adam"
        self._beta1, self._beta2, self._epsilon = beta1, beta2, epsilon
        self._lazy_mode = lazy_mode
        self._multi_precision = multi_precision
        self._use_multi_tensor = use_multi_tensor
        self._amsgrad = amsgrad
        self._default_dict = {"beta1": beta1, "beta2": beta2, "epsilon": epsilon, "lazy_mode": lazy_mode}

    def _update(self, params, grads, options):
        weights, grads, states, low = self._prepare(params, grads, options)
        self._adam_step(weights, grads, states, self._param_lrs(params), options)
        self._write_back(low)
