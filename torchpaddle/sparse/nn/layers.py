"""paddle.sparse.nn layers: activations, BatchNorm over the stored values, and the sparse convolutions and
pooling of ``functional`` (dense fallbacks there)."""
import math

import torch

from ... import nn as _nn
from ...nn.initializer import Uniform
from ...framework.tensor import wrap
from ..creation import like, rewrap, values_of
from ..math import _sparse
from . import functional as F

__all__ = ["ReLU", "ReLU6", "LeakyReLU", "Softmax", "BatchNorm", "SyncBatchNorm", "Conv2D", "Conv3D",
           "SubmConv2D", "SubmConv3D", "MaxPool3D"]


class ReLU(_nn.Layer):
    def __init__(self, name=None):
        super().__init__()
        self._name = name

    def forward(self, x):
        return F.relu(x)


class ReLU6(ReLU):
    def forward(self, x):
        return F.relu6(x)


class LeakyReLU(_nn.Layer):
    def __init__(self, negative_slope=0.01, name=None):
        super().__init__()
        self._negative_slope, self._name = negative_slope, name

    def forward(self, x):
        return F.leaky_relu(x, self._negative_slope)


class Softmax(_nn.Layer):
    def __init__(self, axis=-1, name=None):
        super().__init__()
        self._axis, self._name = axis, name

    def forward(self, x):
        return F.softmax(x, self._axis)


class BatchNorm(_nn.BatchNorm1D):
    """Batch norm of a COO [N, (D,) H, W, C] over its stored entries: the values [nnz, C] are the batch."""
    _sparse_formats = ("NDHWC", "NHWC")

    def __init__(self, num_features, momentum=0.9, epsilon=1e-05, weight_attr=None, bias_attr=None,
                 data_format="NDHWC", use_global_stats=None, name=None):
        if data_format not in self._sparse_formats:
            raise ValueError(f"sparse.nn.{type(self).__name__}: data_format must be one of "
                             f"{list(self._sparse_formats)}, got {data_format!r}")
        super().__init__(num_features, momentum, epsilon, weight_attr, bias_attr, "NC", use_global_stats, name)
        self._sparse_format = data_format

    def forward(self, input):
        t = _sparse(input, "BatchNorm", "input")
        if t.layout is torch.sparse_coo and not t.is_coalesced():
            t = t.coalesce()
        vals = values_of(t)
        if vals.dim() != 2 or vals.shape[1] != self._num_features:
            raise ValueError(f"sparse.nn.BatchNorm: input must be a COO with {self._num_features} channels as "
                             f"its dense dim, got shape {list(t.shape)}")

        out = super().forward(wrap(vals))
        return rewrap(input, like(t, out._t))

    def extra_repr(self):
        return (f"num_features={self._num_features}, momentum={self._momentum}, epsilon={self._epsilon}, "
                f"data_format={self._sparse_format}")


class SyncBatchNorm(BatchNorm):
    """BatchNorm whose statistics would be reduced across ranks; in one process it is BatchNorm.
    NOTE: the cross-rank reduction is not implemented; with several ranks each normalises its own values."""

    # Paddle's default here is NCHW (it names the layout; the channels are the values' last dim either way)
    _sparse_formats = ("NCHW", "NDHWC", "NHWC")

    def __init__(self, num_features, momentum=0.9, epsilon=1e-05, weight_attr=None, bias_attr=None,
                 data_format="NCHW", name=None):
        super().__init__(num_features, momentum, epsilon, weight_attr, bias_attr, data_format, None, name)

    def extra_repr(self):
        text = f"num_features={self._num_features}, momentum={self._momentum}, epsilon={self._epsilon}"
        return text + (f", data_format={self._sparse_format}" if self._sparse_format != "NCHW" else "")

    @classmethod
    def convert_sync_batchnorm(cls, layer):
        """``layer`` with every sparse BatchNorm in it replaced by a SyncBatchNorm holding the same state."""
        if isinstance(layer, BatchNorm) and not isinstance(layer, SyncBatchNorm):
            sync = cls(layer._num_features, layer._momentum, layer._epsilon, layer._weight_attr,
                       layer._bias_attr, layer._sparse_format, layer._name)
            sync.set_state_dict(layer.state_dict())
            return sync
        for name, sub in list(layer._sub_layers.items()):
            layer._sub_layers[name] = cls.convert_sync_batchnorm(sub)
        return layer


class _Conv(_nn.Layer):
    _dims, _subm = 3, False

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                 padding_mode="zeros", key=None, weight_attr=None, bias_attr=None, data_format=None):
        super().__init__()
        n = self._dims
        if padding_mode != "zeros":
            raise ValueError(f"sparse {type(self).__name__}: padding_mode must be 'zeros', got {padding_mode!r}")
        if groups != 1:   # as Paddle's sparse convolutions
            raise ValueError(f"sparse {type(self).__name__}: only groups=1 is supported, got {groups}")
        self._in_channels, self._out_channels, self._groups = in_channels, out_channels, groups
        self._kernel_size = F._tuple(kernel_size, n, "kernel_size", type(self).__name__)
        self._stride, self._padding, self._dilation = stride, padding, dilation
        self._key = key
        self._data_format = data_format or ("NHWC" if n == 2 else "NDHWC")
        fan_in = in_channels // groups * math.prod(self._kernel_size)
        bound = 1.0 / math.sqrt(fan_in)
        self.weight = self.create_parameter(list(self._kernel_size) + [in_channels // groups, out_channels],
                                            attr=weight_attr, default_initializer=Uniform(-bound, bound))
        self.bias = None if bias_attr is False else self.create_parameter([out_channels], attr=bias_attr,
                                                                          is_bias=True)

    def forward(self, x):
        fn = {(2, False): F.conv2d, (3, False): F.conv3d, (2, True): F.subm_conv2d,
              (3, True): F.subm_conv3d}[self._dims, self._subm]
        return fn(x, self.weight, self.bias, self._stride, self._padding, self._dilation, self._groups,
                  self._data_format)

    def extra_repr(self):
        n = self._dims
        text = f"{self._in_channels}, {self._out_channels}, kernel_size={list(self._kernel_size)}"
        stride = list(F._tuple(self._stride, n, "stride", type(self).__name__))
        dilation = list(F._tuple(self._dilation, n, "dilation", type(self).__name__))
        if stride != [1] * n:
            text += f", stride={stride}"
        if self._padding != 0:
            text += f", padding={self._padding}"
        if dilation != [1] * n:
            text += f", dilation={dilation}"
        if self._groups != 1:
            text += f", groups={self._groups}"
        return text + f", data_format={self._data_format}"


class Conv2D(_Conv):
    _dims = 2


class Conv3D(_Conv):
    _dims = 3


class SubmConv2D(_Conv):
    _dims, _subm = 2, True


class SubmConv3D(_Conv):
    _dims, _subm = 3, True


class MaxPool3D(_nn.Layer):
    def __init__(self, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False,
                 data_format="NDHWC", name=None):
        super().__init__()
        # NOTE: Paddle accepts return_mask and ignores it (its sparse pool returns no mask); so do we
        self._return_mask = return_mask
        self._kernel_size, self._stride, self._padding = kernel_size, stride, padding
        self._ceil_mode, self._data_format, self._name = ceil_mode, data_format, name

    def extra_repr(self):
        return f"kernel_size={self._kernel_size}, stride={self._stride}, padding={self._padding}"

    def forward(self, x):
        return F.max_pool3d(x, self._kernel_size, self._stride, self._padding, self._ceil_mode,
                            self._data_format)
