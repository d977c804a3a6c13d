"""Initializers. Each is called as ``init(param)`` and fills the Parameter's storage without autograd."""
import math

import numpy as np
import torch

from ...framework.tensor import Tensor

__all__ = ["Initializer", "Constant", "Normal", "TruncatedNormal", "Uniform", "XavierNormal", "XavierUniform",
           "XavierInitializer", "KaimingNormal", "KaimingUniform", "MSRAInitializer", "Assign", "Orthogonal",
           "Dirac", "Bilinear", "calculate_gain", "set_global_initializer"]


def _fans(shape):
    """Paddle's fan rule: [in, out] for 2-D (Linear weight), [out, in, *k] beyond."""
    if len(shape) == 0:
        return 1, 1
    if len(shape) == 1:
        return shape[0], shape[0]
    if len(shape) == 2:
        return shape[0], shape[1]
    receptive = math.prod(shape[2:])
    return shape[1] * receptive, shape[0] * receptive


def calculate_gain(nonlinearity, param=None):
    gains = {"sigmoid": 1.0, "linear": 1.0, "conv1d": 1.0, "conv2d": 1.0, "conv3d": 1.0,
             "conv1d_transpose": 1.0, "conv2d_transpose": 1.0, "conv3d_transpose": 1.0, "tanh": 5.0 / 3,
             "relu": math.sqrt(2.0), "selu": 3.0 / 4}
    if nonlinearity == "leaky_relu":
        slope = 0.01 if param is None else param
        return math.sqrt(2.0 / (1 + slope ** 2))
    if nonlinearity not in gains:
        raise ValueError(f"calculate_gain: nonlinearity {nonlinearity!r} is not supported; "
                         f"expected one of {sorted(gains) + ['leaky_relu']}")
    return gains[nonlinearity]


class Initializer:
    def __call__(self, param, block=None):
        if not isinstance(param, Tensor):
            raise TypeError(f"{type(self).__name__}: param must be a Tensor/Parameter, got {type(param).__name__}")
        with torch.no_grad():
            self._fill(param._t)
        return param

    def _fill(self, t):
        raise NotImplementedError


class Constant(Initializer):
    def __init__(self, value=0.0, force_cpu=False):
        self._value = value

    def _fill(self, t):
        t.fill_(self._value)


class Normal(Initializer):
    def __init__(self, mean=0.0, std=1.0, name=None):
        if std < 0:
            raise ValueError(f"Normal: std must be >= 0, got {std}")
        self._mean, self._std = mean, std

    def _fill(self, t):
        t.normal_(self._mean, self._std)


class TruncatedNormal(Initializer):
    """Normal(mean, std) truncated to [a, b] (Paddle's defaults: two std each side)."""

    def __init__(self, mean=0.0, std=1.0, a=-2.0, b=2.0, name=None):
        if std < 0:
            raise ValueError(f"TruncatedNormal: std must be >= 0, got {std}")
        self._mean, self._std, self._a, self._b = mean, std, a, b

    def _fill(self, t):
        torch.nn.init.trunc_normal_(t, self._mean, self._std, self._mean + self._a * self._std,
                                    self._mean + self._b * self._std)


class Uniform(Initializer):
    def __init__(self, low=-1.0, high=1.0, name=None):
        if low > high:
            raise ValueError(f"Uniform: low ({low}) must be <= high ({high})")
        self._low, self._high = low, high

    def _fill(self, t):
        t.uniform_(self._low, self._high)


class XavierInitializer(Initializer):
    def __init__(self, uniform=True, fan_in=None, fan_out=None, seed=0, gain=1.0):
        self._uniform, self._fan_in, self._fan_out, self._gain = uniform, fan_in, fan_out, gain

    def _fill(self, t):
        fan_in, fan_out = _fans(list(t.shape))
        fan_in = fan_in if self._fan_in is None else self._fan_in
        fan_out = fan_out if self._fan_out is None else self._fan_out
        if self._uniform:
            limit = self._gain * math.sqrt(6.0 / float(fan_in + fan_out))
            t.uniform_(-limit, limit)
        else:
            t.normal_(0.0, self._gain * math.sqrt(2.0 / float(fan_in + fan_out)))


class XavierNormal(XavierInitializer):
    def __init__(self, fan_in=None, fan_out=None, gain=1.0, name=None):
        super().__init__(False, fan_in, fan_out, gain=gain)


class XavierUniform(XavierInitializer):
    def __init__(self, fan_in=None, fan_out=None, gain=1.0, name=None):
        super().__init__(True, fan_in, fan_out, gain=gain)


class MSRAInitializer(Initializer):
    def __init__(self, uniform=True, fan_in=None, seed=0, negative_slope=0.0, nonlinearity="relu", mode="fan_in"):
        self._uniform, self._fan_in, self._slope = uniform, fan_in, negative_slope
        self._nonlinearity, self._mode = nonlinearity, mode

    def _fill(self, t):
        fan_in, fan_out = _fans(list(t.shape))
        fan = (fan_in if self._mode == "fan_in" else fan_out) if self._fan_in is None else self._fan_in
        gain = calculate_gain(self._nonlinearity, self._slope)
        if self._uniform:
            limit = gain * math.sqrt(3.0 / float(fan))
            t.uniform_(-limit, limit)
        else:
            t.normal_(0.0, gain / math.sqrt(float(fan)))


class KaimingNormal(MSRAInitializer):
    def __init__(self, fan_in=None, negative_slope=0.0, nonlinearity="relu", mode="fan_in"):
        super().__init__(False, fan_in, negative_slope=negative_slope, nonlinearity=nonlinearity, mode=mode)


class KaimingUniform(MSRAInitializer):
    def __init__(self, fan_in=None, negative_slope=0.0, nonlinearity="relu", mode="fan_in"):
        super().__init__(True, fan_in, negative_slope=negative_slope, nonlinearity=nonlinearity, mode=mode)


class Assign(Initializer):
    """Fill with a given value: NumPy array, list, scalar or Tensor (its shape must match)."""

    def __init__(self, value, name=None):
        self._value = value

    def _fill(self, t):
        value = self._value._t if isinstance(self._value, Tensor) else torch.as_tensor(np.asarray(self._value))
        if value.numel() != t.numel():
            raise ValueError(f"Assign: the value has {value.numel()} elements but the parameter "
                             f"{list(t.shape)} has {t.numel()}")
        t.copy_(value.reshape(t.shape).to(t.dtype))


class Orthogonal(Initializer):
    def __init__(self, gain=1.0, name=None):
        self._gain = gain

    def _fill(self, t):
        if t.dim() < 2:
            raise ValueError(f"Orthogonal: the parameter must have at least 2 dims, got {list(t.shape)}")
        torch.nn.init.orthogonal_(t, gain=self._gain)


class Dirac(Initializer):
    def __init__(self, groups=1, name=None):
        self._groups = groups

    def _fill(self, t):
        if t.dim() not in (3, 4, 5):
            raise ValueError(f"Dirac: the parameter must be 3-D, 4-D or 5-D, got {list(t.shape)}")
        torch.nn.init.dirac_(t, groups=self._groups)


class Bilinear(Initializer):
    """Bilinear upsampling kernel for a [C_out, C_in, K, K] conv2d_transpose weight."""

    def _fill(self, t):
        if t.dim() != 4 or t.shape[2] != t.shape[3]:
            raise ValueError(f"Bilinear: the parameter must be 4-D with square kernels, got {list(t.shape)}")
        size = t.shape[3]
        f = math.ceil(size / 2.0)
        c = (2 * f - 1 - f % 2) / (2.0 * f)
        grid = torch.arange(size, dtype=torch.float64)
        weight = 1 - torch.abs(grid / f - c)
        kernel = (weight[:, None] * weight[None, :]).to(t.dtype)
        t.copy_(kernel.expand_as(t))


_GLOBAL = {"weight": None, "bias": None}


def set_global_initializer(weight_init, bias_init=None):
    _GLOBAL["weight"], _GLOBAL["bias"] = weight_init, bias_init


def global_initializer(is_bias):
    return _GLOBAL["bias" if is_bias else "weight"]
