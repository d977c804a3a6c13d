"""Normalization layers: BatchNorm family, SyncBatchNorm, LayerNorm, GroupNorm, InstanceNorm, LocalResponseNorm,
SpectralNorm.

Running statistics (``_mean``/``_variance``) and SpectralNorm's ``weight_u``/``weight_v`` are non-trainable
Parameters, as in Paddle, so they appear in ``parameters()`` and ``state_dict()`` under those names.
"""
import math
import numbers
import warnings

import torch

from ... import ops as _ops
from ...framework import dtype as _dtype
from ...framework.param_attr import ParamAttr
from ...framework.tensor import PaddleAssertionError
from .. import functional as F
from ..initializer import Constant, Normal
from .layers import Layer

__all__ = ["BatchNorm", "BatchNorm1D", "BatchNorm2D", "BatchNorm3D", "SyncBatchNorm", "LayerNorm", "GroupNorm",
           "InstanceNorm1D", "InstanceNorm2D", "InstanceNorm3D", "LocalResponseNorm", "SpectralNorm"]


def _statistic(layer, shape, dtype, name, value, do_model_average=True):
    """A running mean/variance: a Parameter that the optimizer skips and autograd never touches."""
    attr = ParamAttr(name=name, initializer=Constant(value), trainable=False, do_model_average=do_model_average)
    param = layer.create_parameter(shape, attr=attr, dtype=dtype)
    param.stop_gradient = True
    return param


class _BatchNormBase(Layer):
    """BatchNorm1D/2D/3D and SyncBatchNorm. ``momentum`` weighs the old running value (0.9 keeps 90%)."""
    _formats = {}  # accepted data_format -> the layout handed to F.batch_norm

    def __init__(self, num_features, momentum=0.9, epsilon=1e-05, weight_attr=None, bias_attr=None,
                 data_format="NCHW", use_global_stats=None, name=None):
        super().__init__()
        self._num_features, self._weight_attr, self._bias_attr = num_features, weight_attr, bias_attr
        self._use_global_stats = use_global_stats
        default = _dtype.get_default_dtype()
        self._dtype = "float32" if default == "float16" else default
        shape = [num_features]
        self.weight = None if weight_attr is False else self.create_parameter(
            shape, attr=weight_attr, dtype=self._dtype, default_initializer=Constant(1.0))
        self.bias = None if bias_attr is False else self.create_parameter(
            shape, attr=bias_attr, dtype=self._dtype, is_bias=True)
        self._mean = _statistic(self, shape, self._dtype, None if name is None else name + "_mean", 0.0)
        self._variance = _statistic(self, shape, self._dtype, None if name is None else name + "_variance", 1.0)
        self._data_format, self._in_place = data_format, False
        self._momentum, self._epsilon, self._fuse_with_relu, self._name = momentum, epsilon, False, name

    def _check_data_format(self, data_format):
        if data_format not in self._formats:
            raise ValueError(f"{type(self).__name__}: expected data_format in {list(self._formats)}, "
                             f"got {data_format!r}")
        # NOTE: Paddle rewrites _data_format on the first forward (so repr changes afterwards); so do we.
        self._data_format = self._formats[data_format]

    def _check_input_dim(self, input):
        if len(input.shape) not in self._ndims:
            raise ValueError(f"{type(self).__name__}: expected {' or '.join(f'{n}D' for n in self._ndims)} input "
                             f"(got {len(input.shape)}D input with shape {list(input.shape)})")

    def forward(self, input):
        self._check_data_format(self._data_format)
        self._check_input_dim(input)
        return F.batch_norm(input, self._mean, self._variance, weight=self.weight, bias=self.bias,
                            training=self.training, momentum=self._momentum, epsilon=self._epsilon,
                            data_format=self._data_format, use_global_stats=self._use_global_stats)

    def extra_repr(self):
        text = f"num_features={self._num_features}, momentum={self._momentum}, epsilon={self._epsilon}"
        if self._data_format != "NCHW":
            text += f", data_format={self._data_format}"
        if self._name is not None:
            text += f", name={self._name}"
        return text


class BatchNorm1D(_BatchNormBase):
    _formats = {"NC": "NCHW", "NCL": "NCHW", "NCHW": "NCHW", "NLC": "NHWC", "NHWC": "NHWC"}
    _ndims = (2, 3)

    def __init__(self, num_features, momentum=0.9, epsilon=1e-05, weight_attr=None, bias_attr=None,
                 data_format="NCL", use_global_stats=None, name=None):
        super().__init__(num_features, momentum, epsilon, weight_attr, bias_attr, data_format, use_global_stats,
                         name)


class BatchNorm2D(_BatchNormBase):
    _formats = {"NCHW": "NCHW", "NHWC": "NHWC"}
    _ndims = (4,)

    def __init__(self, num_features, momentum=0.9, epsilon=1e-05, weight_attr=None, bias_attr=None,
                 data_format="NCHW", use_global_stats=None, name=None):
        super().__init__(num_features, momentum, epsilon, weight_attr, bias_attr, data_format, use_global_stats,
                         name)


class BatchNorm3D(_BatchNormBase):
    _formats = {"NCDHW": "NCHW", "NCHW": "NCHW", "NDHWC": "NHWC", "NHWC": "NHWC"}
    _ndims = (5,)

    def __init__(self, num_features, momentum=0.9, epsilon=1e-05, weight_attr=None, bias_attr=None,
                 data_format="NCDHW", use_global_stats=None, name=None):
        super().__init__(num_features, momentum, epsilon, weight_attr, bias_attr, data_format, use_global_stats,
                         name)


class SyncBatchNorm(_BatchNormBase):
    """BatchNorm whose batch statistics Paddle reduces over all trainers.

    NOTE: here the statistics are those of the local batch (exact for a single process). Paddle's CPU build
    has no sync_batch_norm kernel at all; with several torch.distributed ranks we warn once."""
    _formats = {"NCHW": "NCHW", "NCDHW": "NCHW", "NC": "NCHW", "NCL": "NCHW", "NHWC": "NHWC", "NDHWC": "NHWC",
                "NLC": "NHWC"}
    _warned_multi_process = False

    def __init__(self, num_features, momentum=0.9, epsilon=1e-05, weight_attr=None, bias_attr=None,
                 data_format="NCHW", name=None):
        super().__init__(num_features, momentum, epsilon, weight_attr, bias_attr, data_format, None, name)
        # Paddle's kernel needs scale and bias, so a disabled one becomes a frozen constant.
        if weight_attr is False:
            self.weight = self.create_parameter([num_features], dtype=self._dtype, default_initializer=Constant(1.0))
            self.weight.stop_gradient = True
        if bias_attr is False:
            self.bias = self.create_parameter([num_features], dtype=self._dtype, is_bias=True,
                                              default_initializer=Constant(0.0))
            self.bias.stop_gradient = True

    def _check_input_dim(self, input):
        pass

    def forward(self, x):
        if self.training and not SyncBatchNorm._warned_multi_process and torch.distributed.is_available() \
                and torch.distributed.is_initialized() and torch.distributed.get_world_size() > 1:
            SyncBatchNorm._warned_multi_process = True
            warnings.warn("SyncBatchNorm: batch statistics are computed per process, not synchronized across "
                          "ranks")
        self._check_data_format(self._data_format)
        return F.batch_norm(x, self._mean, self._variance, weight=self.weight, bias=self.bias,
                            training=self.training, momentum=self._momentum, epsilon=self._epsilon,
                            data_format=self._data_format)

    @classmethod
    def convert_sync_batchnorm(cls, layer):
        """Replace every BatchNorm1D/2D/3D in ``layer`` (recursively) by a SyncBatchNorm sharing its tensors."""
        out = layer
        if isinstance(layer, _BatchNormBase) and not isinstance(layer, SyncBatchNorm):
            for attr in (layer._weight_attr, layer._bias_attr):
                if isinstance(attr, ParamAttr) and attr.name is not None:
                    attr.name = attr.name + "_sync"
            out = SyncBatchNorm(layer._num_features, layer._momentum, layer._epsilon, layer._weight_attr,
                                layer._bias_attr, layer._data_format, layer._name)
            if layer._weight_attr is not False and layer._bias_attr is not False:
                out.weight, out.bias = layer.weight, layer.bias
            out._mean, out._variance = layer._mean, layer._variance
        for name, sublayer in layer.named_children():
            out.add_sublayer(name, cls.convert_sync_batchnorm(sublayer))
        return out


class BatchNorm(Layer):
    """The fluid-style batch norm: ``is_test``, ``act``, ``param_attr``, ``data_layout``, named statistics."""

    def __init__(self, num_channels, act=None, is_test=False, momentum=0.9, epsilon=1e-05, param_attr=None,
                 bias_attr=None, dtype="float32", data_layout="NCHW", in_place=False, moving_mean_name=None,
                 moving_variance_name=None, do_model_average_for_mean_and_var=True, use_global_stats=False,
                 trainable_statistics=False):
        super().__init__()
        self._param_attr, self._bias_attr, self._act = param_attr, bias_attr, act
        self._dtype = "float32" if _dtype.convert_dtype(dtype).name == "float16" else dtype
        shape = [num_channels]
        self.weight = None if param_attr is False else self.create_parameter(
            shape, attr=param_attr, dtype=self._dtype, default_initializer=Constant(1.0))
        self.bias = None if bias_attr is False else self.create_parameter(
            shape, attr=bias_attr, dtype=self._dtype, is_bias=True)
        average = do_model_average_for_mean_and_var
        self._mean = _statistic(self, shape, self._dtype, moving_mean_name, 0.0, average)
        self._variance = _statistic(self, shape, self._dtype, moving_variance_name, 1.0, average)
        self._in_place, self._data_layout = in_place, data_layout
        self._momentum, self._epsilon, self._is_test = momentum, epsilon, is_test
        self._fuse_with_relu = False
        self._use_global_stats, self._trainable_statistics = use_global_stats, trainable_statistics
        self.training = not is_test

    def forward(self, input):
        # F.batch_norm hands the kernel is_test=not training, and for an explicit use_global_stats U also
        # trainable_statistics=not U; this choice reproduces Paddle's (is_test, use_global_stats,
        # trainable_statistics) = (not training, use_global_stats, trainable_statistics) in every case that matters.
        global_stats = True if self._use_global_stats else (False if self._trainable_statistics else None)
        out = F.batch_norm(input, self._mean, self._variance, weight=self.weight, bias=self.bias,
                           training=self.training, momentum=self._momentum, epsilon=self._epsilon,
                           data_format=self._data_layout, use_global_stats=global_stats)
        if self._act is None:
            return out
        # NOTE: as in Paddle, act names an activation op type (hard_swish, brelu, ...) run with its default
        # attributes, not an nn.functional name; an in-place name (relu_) acts on the fresh output alike
        act = self._act
        activation = getattr(_ops, act, None) if isinstance(act, str) else None
        if activation is None and isinstance(act, str) and act.endswith("_"):
            activation = getattr(_ops, act[:-1], None)
        if activation is None:
            raise AttributeError(f"BatchNorm: unknown activation act={self._act!r}; it must be an activation op "
                                 f"type such as 'relu', 'sigmoid', 'tanh' or 'hard_swish'")
        return activation(out)


class LayerNorm(Layer):
    def __init__(self, normalized_shape, epsilon=1e-05, *, elementwise_affine=True, bias=True, device=None,
                 dtype=None, weight_attr=None, bias_attr=None, name=None):
        super().__init__()
        if isinstance(normalized_shape, numbers.Integral):
            normalized_shape = [normalized_shape]
        self._normalized_shape = list(normalized_shape)
        self._epsilon, self._device = epsilon, device
        self._dtype = _dtype.get_default_dtype() if dtype is None else dtype
        if not elementwise_affine:
            weight_attr = bias_attr = False
        elif not bias:
            bias_attr = False
        self._weight_attr, self._bias_attr = weight_attr, bias_attr
        # NOTE: Paddle stores the affine parameters flattened: [prod(normalized_shape)].
        shape = [math.prod(self._normalized_shape)]
        self.weight = None if weight_attr is False else self.create_parameter(
            shape, attr=weight_attr, dtype=self._dtype, default_initializer=Constant(1.0), device=device)
        self.bias = None if bias_attr is False else self.create_parameter(
            shape, attr=bias_attr, dtype=self._dtype, is_bias=True, default_initializer=Constant(0.0), device=device)

    def forward(self, input):
        return F.layer_norm(input, normalized_shape=self._normalized_shape, weight=self.weight, bias=self.bias,
                            epsilon=self._epsilon)

    def extra_repr(self):
        return f"normalized_shape={self._normalized_shape}, epsilon={self._epsilon}"


class GroupNorm(Layer):
    def __init__(self, num_groups, num_channels, epsilon=1e-05, *, affine=True, device=None, dtype=None,
                 weight_attr=None, bias_attr=None, data_format="NCHW", name=None):
        super().__init__()
        self._epsilon, self._num_channels, self._num_groups, self._device = epsilon, num_channels, num_groups, device
        self._dtype = _dtype.get_default_dtype() if dtype is None else dtype
        if data_format not in ("NCL", "NCHW", "NCDHW", "NLC", "NHWC", "NDHWC"):
            raise ValueError(f"GroupNorm: unsupported data layout: {data_format}")
        self._data_format = "NCHW" if data_format[1] == "C" else "NHWC"
        if not affine:
            weight_attr = bias_attr = False
        self._weight_attr, self._bias_attr = weight_attr, bias_attr
        self.weight = None if weight_attr is False else self.create_parameter(
            [num_channels], attr=weight_attr, dtype=self._dtype, default_initializer=Constant(1.0), device=device)
        self.bias = None if bias_attr is False else self.create_parameter(
            [num_channels], attr=bias_attr, dtype=self._dtype, is_bias=True, default_initializer=Constant(0.0),
            device=device)
        # A zero learning rate freezes the parameter outright, as in Paddle.
        for param, attr in ((self.weight, weight_attr), (self.bias, bias_attr)):
            if param is not None and isinstance(attr, ParamAttr) and attr.learning_rate == 0.0:
                param.stop_gradient = True

    def forward(self, input):
        return F.group_norm(input, self._num_groups, self._epsilon, self.weight, self.bias, self._data_format)

    def extra_repr(self):
        return f"num_groups={self._num_groups}, num_channels={self._num_channels}, epsilon={self._epsilon}"


class _InstanceNormBase(Layer):
    """InstanceNorm1D/2D/3D: per-sample, per-channel statistics; the affine weight is named ``scale``."""

    def __init__(self, num_features, epsilon=1e-05, momentum=0.9, weight_attr=None, bias_attr=None,
                 data_format="NCHW", name=None):
        super().__init__()
        if (weight_attr is False) != (bias_attr is False):
            raise PaddleAssertionError(f"{type(self).__name__}: weight_attr and bias_attr must be set to False at "
                                       "the same time in InstanceNorm")
        self._momentum, self._epsilon = momentum, epsilon
        self._weight_attr, self._bias_attr = weight_attr, bias_attr
        self._num_features, self._data_format = num_features, data_format
        if weight_attr is False:
            self.scale = self.bias = None
        else:
            self.scale = self.create_parameter([num_features], attr=weight_attr,
                                               default_initializer=Constant(1.0))
            self.bias = self.create_parameter([num_features], attr=bias_attr, is_bias=True,
                                              default_initializer=Constant(0.0))

    def forward(self, input):
        if len(input.shape) not in self._ndims:
            raise ValueError(f"{type(self).__name__}: expected {' or '.join(f'{n}D' for n in self._ndims)} input "
                             f"(got {len(input.shape)}D input with shape {list(input.shape)})")
        return F.instance_norm(input, weight=self.scale, bias=self.bias, momentum=self._momentum, eps=self._epsilon,
                               data_format=self._data_format)

    def extra_repr(self):
        return f"num_features={self._num_features}, epsilon={self._epsilon}"


class InstanceNorm1D(_InstanceNormBase):
    _ndims = (2, 3)

    def __init__(self, num_features, epsilon=1e-05, momentum=0.9, weight_attr=None, bias_attr=None,
                 data_format="NCL", name=None):
        super().__init__(num_features, epsilon, momentum, weight_attr, bias_attr, data_format, name)


class InstanceNorm2D(_InstanceNormBase):
    _ndims = (4,)

    def __init__(self, num_features, epsilon=1e-05, momentum=0.9, weight_attr=None, bias_attr=None,
                 data_format="NCHW", name=None):
        super().__init__(num_features, epsilon, momentum, weight_attr, bias_attr, data_format, name)


class InstanceNorm3D(_InstanceNormBase):
    _ndims = (5,)

    def __init__(self, num_features, epsilon=1e-05, momentum=0.9, weight_attr=None, bias_attr=None,
                 data_format="NCDHW", name=None):
        super().__init__(num_features, epsilon, momentum, weight_attr, bias_attr, data_format, name)


class LocalResponseNorm(Layer):
    def __init__(self, size, alpha=0.0001, beta=0.75, k=1.0, data_format="NCHW", name=None):
        super().__init__()
        self.size, self.alpha, self.beta, self.k, self.data_format, self.name = size, alpha, beta, k, data_format, name

    def forward(self, input):
        return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k, self.data_format)

    def extra_repr(self):
        text = f"size={self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"
        if self.data_format != "NCHW":
            text += f", data_format={self.data_format}"
        if self.name is not None:
            text += f", name={self.name}"
        return text


class SpectralNorm(Layer):
    """Divides a weight by its largest singular value, estimated by power iteration from ``weight_u``/``weight_v``
    (which, as in Paddle's eager mode, are read but never updated)."""

    def __init__(self, weight_shape, dim=0, power_iters=1, eps=1e-12, dtype="float32"):
        super().__init__()
        self._power_iters, self._eps, self._dim, self._dtype = power_iters, eps, dim, dtype
        self._weight_shape = list(weight_shape)
        if math.prod(self._weight_shape) <= 0:
            raise PaddleAssertionError(f"SpectralNorm: no dimension of weight_shape {self._weight_shape} may be 0")
        if dim >= len(self._weight_shape):
            raise PaddleAssertionError(f"SpectralNorm: dim must be less than len(weight_shape) "
                                       f"({len(self._weight_shape)}), got dim={dim}")
        h = self._weight_shape[dim]
        w = math.prod(self._weight_shape) // h
        self.weight_u = self.create_parameter([h], attr=ParamAttr(), dtype=dtype, default_initializer=Normal(0.0, 1.0))
        self.weight_u.stop_gradient = True
        self.weight_v = self.create_parameter([w], attr=ParamAttr(), dtype=dtype, default_initializer=Normal(0.0, 1.0))
        self.weight_v.stop_gradient = True

    def forward(self, x):
        # No paddle.nn.functional counterpart exists, so the layer calls the op itself.
        return _ops.spectral_norm(x, self.weight_u, self.weight_v, dim=self._dim, power_iters=self._power_iters,
                                  eps=self._eps)
