"""Normalisation functions: normalize, batch_norm, layer_norm, instance_norm, group_norm, local_response_norm."""
import numbers

from ... import ops as _ops
from ... import tensor as _pt
from ...framework.tensor import PaddleAssertionError
from ...tensor.manipulation import _compat, _int
from ...tensor.math import _write
from .activation import _tensor

__all__ = ["normalize", "batch_norm", "layer_norm", "instance_norm", "group_norm", "local_response_norm"]

_ND_FORMATS = ("NC", "NCL", "NCHW", "NCDHW", "NLC", "NHWC", "NDHWC")


def normalize(x, p=2, axis=1, epsilon=1e-12, out=None, name=None):
    """x / max(||x||_p along axis, epsilon)."""
    _tensor(x, "normalize")
    if isinstance(axis, _pt.Tensor):
        axis = _int("normalize", "axis", axis)
    norm = _ops.p_norm(x, porder=float(p), axis=axis, epsilon=epsilon, keepdim=True, asvector=False)
    floor = _pt.full([1], epsilon, dtype=x.dtype)
    return _write(out, x / _pt.maximum(norm, floor))


def batch_norm(x, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.9, epsilon=1e-05,
               data_format="NCHW", use_global_stats=None, name=None):
    """Batch normalisation. In training, running_mean/running_var are updated in place:
    running = momentum * running + (1 - momentum) * batch statistic (the biased batch variance)."""
    _tensor(x, "batch_norm")
    if len(x.shape) < 2:
        raise PaddleAssertionError(f"batch_norm(): x must have rank >= 2, got shape {list(x.shape)}")
    if data_format not in _ND_FORMATS:
        raise ValueError(f"batch_norm(): data_format must be one of {_ND_FORMATS}, got {data_format!r}")
    layout = "NCHW" if data_format[1] == "C" else "NHWC"
    if use_global_stats is None:
        use_global_stats, trainable_statistics = not training, False
    else:
        trainable_statistics = not use_global_stats
    return _ops.batch_norm(x, weight, bias, running_mean, running_var, momentum=float(momentum),
                           epsilon=float(epsilon), data_layout=layout, is_test=not training,
                           use_global_stats=bool(use_global_stats), trainable_statistics=trainable_statistics,
                           fuse_with_relu=False)[0]


@_compat(input="x", eps="epsilon")
def layer_norm(x, normalized_shape, weight=None, bias=None, epsilon=1e-05, name=None):
    """Normalise over the trailing dims ``normalized_shape``; weight and bias have that shape (or its size)."""
    _tensor(x, "layer_norm")
    input_shape = list(x.shape)
    if isinstance(normalized_shape, numbers.Integral):
        normalized_shape = [int(normalized_shape)]
    elif isinstance(normalized_shape, tuple):
        normalized_shape = list(normalized_shape)
    elif not isinstance(normalized_shape, list):
        raise ValueError(f"layer_norm(): normalized_shape must be an int or a list/tuple of ints, got "
                         f"{normalized_shape!r}")
    begin = len(input_shape) - len(normalized_shape)
    if begin < 0 or input_shape[begin:] != list(normalized_shape):
        raise ValueError(f"layer_norm(): normalized_shape {normalized_shape} does not match the trailing dims of "
                         f"x{input_shape}")
    return _ops.layer_norm(x, weight, bias, epsilon=float(epsilon), begin_norm_axis=begin)[0]


def instance_norm(x, running_mean=None, running_var=None, weight=None, bias=None, use_input_stats=True,
                  momentum=0.9, eps=1e-05, data_format="NCHW", name=None):
    """Normalise each sample's channel over its spatial dims. As in Paddle's dygraph kernel, the running
    statistics and use_input_stats are accepted but not used: the input's statistics always are."""
    _tensor(x, "instance_norm")
    return _ops.instance_norm(x, weight, bias, epsilon=float(eps))[0]


def group_norm(x, num_groups, epsilon=1e-05, weight=None, bias=None, data_format="NCHW", name=None):
    _tensor(x, "group_norm")
    if data_format not in ("NCL", "NCHW", "NCDHW", "NLC", "NHWC", "NDHWC"):
        raise ValueError(f"group_norm(): unsupported data_format {data_format!r}")
    layout = "NCHW" if data_format[1] == "C" else "NHWC"
    return _ops.group_norm(x, weight, bias, epsilon=float(epsilon), groups=int(num_groups), data_layout=layout)[0]


def local_response_norm(x, size, alpha=0.0001, beta=0.75, k=1.0, data_format="NCHW", name=None):
    """x / (k + alpha * mean of x^2 over ``size`` neighbouring channels) ** beta."""
    _tensor(x, "local_response_norm")
    if data_format not in ("NCL", "NLC", "NCHW", "NHWC", "NCDHW", "NDHWC"):
        raise ValueError(f"local_response_norm(): data_format must be one of NCL, NCHW, NCDHW, NLC, NHWC, NDHWC, "
                         f"got {data_format!r}")
    sizes = list(x.shape)
    if len(sizes) < 3:
        raise ValueError(f"local_response_norm(): x must be at least 3-D, got {len(sizes)} dimensions")
    for i, extent in enumerate(sizes[1:], 1):
        if not extent > 0:
            raise ValueError(f"local_response_norm(): every dimension after the first must be > 0, dimension {i} "
                             f"is {extent}")
    return _ops.local_response_norm(x, size=int(size), alpha=float(alpha), beta=float(beta), k=float(k),
                                    data_format=data_format)
