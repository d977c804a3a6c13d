"""Activation functions: thin wrappers over the activation ops (Paddle's argument names and checks)."""
from ... import ops as _ops
from ...framework.dtype import convert_dtype
from ...framework.tensor import Tensor
from ...tensor._inplace import commit
from ...tensor.manipulation import _compat, _int, chunk
from ...tensor.math import _not_tensor, _write, tanh, tanh_

__all__ = ["celu", "elu", "elu_", "gelu", "glu", "gumbel_softmax", "hardshrink", "hardsigmoid", "hardswish",
           "hardtanh", "hardtanh_", "leaky_relu", "leaky_relu_", "log_sigmoid", "logsigmoid", "log_softmax", "maxout",
           "mish", "prelu", "relu", "relu_", "relu6", "rrelu", "selu", "sigmoid", "silu", "softmax", "softmax_",
           "softplus", "softshrink", "softsign", "swish", "tanh", "tanh_", "tanhshrink", "thresholded_relu",
           "thresholded_relu_"]


def _tensor(x, api):
    if x.__class__ is not Tensor:
        _not_tensor(x, api)


# -- elementwise --------------------------------------------------------------------------------------------
def relu(x, name=None):
    _tensor(x, "relu")
    return _ops.relu(x)


def relu_(x, name=None):
    return commit(x, relu(x), "relu_")


def relu6(x, name=None):
    _tensor(x, "relu6")
    return _ops.relu6(x, threshold=6.0)


def celu(x, alpha=1.0, name=None):
    if alpha == 0:
        raise ZeroDivisionError("celu(): alpha cannot be 0")
    _tensor(x, "celu")
    return _ops.celu(x, alpha=float(alpha))


def elu(x, alpha=1.0, name=None):
    _tensor(x, "elu")
    return _ops.elu(x, alpha=float(alpha))


def elu_(x, alpha=1.0, name=None):
    if alpha < 0:
        raise AssertionError("elu_(): only alpha >= 0 is supported in place; use elu instead")
    return commit(x, elu(x, alpha), "elu_")


def selu(x, scale=1.0507009873554805, alpha=1.6732632423543772, name=None):
    if scale <= 1.0:
        raise ValueError(f"selu(): scale must be greater than 1.0, got {scale}")
    if alpha < 0:
        raise ValueError(f"selu(): alpha must be no less than zero, got {alpha}")
    _tensor(x, "selu")
    return _ops.selu(x, scale=float(scale), alpha=float(alpha))


def gelu(x, approximate=False, name=None):
    if approximate is True or approximate == "tanh":
        approximate = True
    elif approximate is False or approximate == "none":
        approximate = False
    else:
        raise ValueError(f"gelu(): approximate must be 'tanh', 'none' or a bool, got {approximate!r}")
    _tensor(x, "gelu")
    return _ops.gelu(x, approximate=approximate)


@_compat(input="x", lambd="threshold")
def hardshrink(x, threshold=0.5, name=None):
    _tensor(x, "hardshrink")
    return _ops.hard_shrink(x, threshold=float(threshold))


@_compat(input="x", lambd="threshold")
def softshrink(x, threshold=0.5, name=None):
    if threshold < 0:
        raise ValueError(f"softshrink(): threshold must be no less than zero, got {threshold}")
    _tensor(x, "softshrink")
    return _ops.softshrink(x, lambda_=float(threshold))


def hardsigmoid(x, slope=0.1666667, offset=0.5, name=None):
    _tensor(x, "hardsigmoid")
    return _ops.hard_sigmoid(x, slope=float(slope), offset=float(offset))


def hardswish(x, name=None):
    _tensor(x, "hardswish")
    return _ops.hard_swish(x)


def hardtanh(x, min=-1.0, max=1.0, name=None):
    _tensor(x, "hardtanh")
    return _ops.brelu(x, t_min=float(min), t_max=float(max))


def hardtanh_(x, min=-1.0, max=1.0, name=None):
    return commit(x, hardtanh(x, min, max), "hardtanh_")


def leaky_relu(x, negative_slope=0.01, name=None):
    _tensor(x, "leaky_relu")
    return _ops.leaky_relu(x, alpha=float(negative_slope))


def leaky_relu_(x, negative_slope=0.01, name=None):
    return commit(x, leaky_relu(x, negative_slope), "leaky_relu_")


@_compat(input="x")
def log_sigmoid(x, name=None):
    _tensor(x, "log_sigmoid")
    return _ops.logsigmoid(x)


logsigmoid = log_sigmoid


@_compat(input="x")
def sigmoid(x, name=None, *, out=None):
    _tensor(x, "sigmoid")
    return _write(out, _ops.sigmoid(x))


@_compat(input="x")
def silu(x, inplace=False, name=None):
    _tensor(x, "silu")
    result = _ops.silu(x)
    return commit(x, result, "silu") if inplace else result


def swish(x, name=None):
    _tensor(x, "swish")
    return _ops.swish(x, beta=1.0)


def mish(x, name=None):
    _tensor(x, "mish")
    return _ops.mish(x, threshold=20.0)


def softplus(x, beta=1, threshold=20, name=None):
    _tensor(x, "softplus")
    return _ops.softplus(x, beta=float(beta), threshold=float(threshold))


def softsign(x, name=None):
    _tensor(x, "softsign")
    return _ops.softsign(x)


def tanhshrink(x, name=None):
    _tensor(x, "tanhshrink")
    return _ops.tanh_shrink(x)


def thresholded_relu(x, threshold=1.0, value=0.0, name=None):
    _tensor(x, "thresholded_relu")
    return _ops.thresholded_relu(x, threshold=float(threshold), value=float(value))


def thresholded_relu_(x, threshold=1.0, value=0.0, name=None):
    return commit(x, thresholded_relu(x, threshold, value), "thresholded_relu_")


# -- along an axis ------------------------------------------------------------------------------------------
def _softmax_input(x, dtype, api):
    _tensor(x, api)
    if dtype is None:
        return x
    target = convert_dtype(dtype)
    if x.dtype is target:
        return x
    return _ops.cast(x, in_dtype=x.dtype.proto, out_dtype=target.proto)


@_compat(input="x", dim="axis")
def softmax(x, axis=-1, dtype=None, name=None, *, out=None):
    if axis.__class__ is not int:
        axis = _int("softmax", "axis", axis)
    return _write(out, _ops.softmax(_softmax_input(x, dtype, "softmax"), axis=axis))


def softmax_(x, axis=-1, dtype=None, name=None):
    return commit(x, softmax(x, axis, dtype), "softmax_")


@_compat(input="x", dim="axis")
def log_softmax(x, axis=-1, dtype=None, name=None):
    if axis.__class__ is not int:
        axis = _int("log_softmax", "axis", axis)
    return _ops.log_softmax(_softmax_input(x, dtype, "log_softmax"), axis=axis)


@_compat(input="x", dim="axis")
def glu(x, axis=-1, name=None):
    _tensor(x, "glu")
    rank = len(x.shape)
    if not -rank <= axis < rank:
        raise ValueError(f"glu(): axis must lie in [{-rank}, {rank}), got {axis}")
    a, b = chunk(x, 2, axis=axis)
    return a * _ops.sigmoid(b)


def gumbel_softmax(x, temperature=1.0, hard=False, axis=-1, name=None):
    _tensor(x, "gumbel_softmax")
    return _ops.gumbel_softmax(x, temperature=float(temperature), hard=bool(hard), axis=axis)


def maxout(x, groups, axis=1, name=None):
    _tensor(x, "maxout")
    return _ops.maxout(x, groups=groups, axis=axis)


_PRELU_FORMATS = ("NC", "NCL", "NCHW", "NCDHW", "NLC", "NHWC", "NDHWC")


def prelu(x, weight, data_format="NCHW", name=None):
    _tensor(x, "prelu")
    if len(weight.shape) not in (0, 1):
        raise AssertionError(f"prelu(): weight must be 0-D or 1-D, got shape {list(weight.shape)}")
    mode = "all"
    if len(weight.shape) == 1 and weight.shape[0] > 1:
        if data_format not in _PRELU_FORMATS:
            raise ValueError(f"prelu(): data_format must be one of {_PRELU_FORMATS}, got {data_format!r}")
        data_format = "NCHW" if data_format[1] == "C" else "NHWC"
        if len(x.shape) < 2:
            raise AssertionError(f"prelu(): x must be at least 2-D when weight has one value per channel, got "
                                 f"shape {list(x.shape)}")
        channels = x.shape[-1] if data_format == "NHWC" else x.shape[1]
        if weight.shape[0] != channels:
            raise AssertionError(f"prelu(): weight{list(weight.shape)} must have one value per channel of "
                                 f"x{list(x.shape)}")
        mode = "channel"
    return _ops.prelu(x, weight, mode=mode, data_format=data_format)


def rrelu(x, lower=1.0 / 8.0, upper=1.0 / 3.0, training=True, name=None):
    if not isinstance(lower, float) or not isinstance(upper, float):
        raise TypeError(f"rrelu(): lower and upper must be floats, got {lower!r} and {upper!r}")
    if not 0 <= lower <= 1:
        raise ValueError(f"rrelu(): lower must lie in [0, 1], got {lower}")
    if upper < lower:
        raise ValueError(f"rrelu(): upper must be >= lower, got lower={lower}, upper={upper}")
    if upper > 1:
        raise ValueError(f"rrelu(): upper must be no greater than one, got {upper}")
    _tensor(x, "rrelu")
    return _ops.rrelu(x, lower=lower, upper=upper, is_test=not training)[0]
