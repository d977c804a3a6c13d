"""Convolution layers: Conv1D/2D/3D and their transposes (weights laid out as Paddle's)."""
import math
import numbers

from ...framework import dtype as _dtype
from ...framework.tensor import PaddleAssertionError
from .. import functional as F
from ..functional.conv import to_list as _to_list, update_padding as _update_padding
from ..initializer import Normal
from .layers import Layer

__all__ = ["Conv1D", "Conv2D", "Conv3D", "Conv1DTranspose", "Conv2DTranspose", "Conv3DTranspose"]

_DATA_FORMATS = ("NCL", "NLC", "NCHW", "NHWC", "NCDHW", "NDHWC")
_PADDING_MODES = ("zeros", "reflect", "replicate", "circular")


class _ConvNd(Layer):
    """Shared config and parameters; subclasses pick the functional in ``forward``."""

    def __init__(self, in_channels, out_channels, kernel_size, transposed, dims, stride=1, padding=0,
                 padding_mode="zeros", output_padding=0, dilation=1, groups=1, weight_attr=None, bias_attr=None,
                 data_format="NCHW", device=None, dtype=None):
        super().__init__()
        cls = type(self).__name__
        if weight_attr is False:
            raise PaddleAssertionError(f"{cls}: weight_attr should not be False in Conv")
        self._param_attr, self._bias_attr = weight_attr, bias_attr
        self._groups, self._in_channels, self._out_channels = groups, in_channels, out_channels
        self._data_format, self._device = data_format, device
        if padding_mode not in _PADDING_MODES:
            raise ValueError(f"{cls}: padding_mode must be one of {set(_PADDING_MODES)}, but got "
                             f"padding_mode='{padding_mode}'")
        if padding_mode != "zeros" and not isinstance(padding, int):
            raise TypeError(f"{cls}: when padding_mode is '{padding_mode}', padding must be an int, got "
                            f"{padding!r}")
        if data_format not in _DATA_FORMATS:
            raise ValueError(f"{cls}: data_format must be one of {set(_DATA_FORMATS)}, but got "
                             f"data_format='{data_format}'")
        for name, value, least in (("in_channels", in_channels, 0), ("out_channels", out_channels, 0),
                                   ("groups", groups, 1)):
            if not isinstance(value, numbers.Integral) or isinstance(value, bool) or value < least:
                raise ValueError(f"{cls}: {name} must be an int >= {least}, got {value!r}")
        self._channel_dim = len(data_format) - 1 if data_format[-1] == "C" else 1
        self._stride = _to_list(stride, dims, "stride")
        self._dilation = _to_list(dilation, dims, "dilation")
        self._kernel_size = _to_list(kernel_size, dims, "kernel_size")
        self._padding, self._padding_mode = padding, padding_mode
        self.output_padding = output_padding
        if dims != 1:  # Paddle validates 2-D/3-D padding here (1-D only in forward) and keeps the parsed form
            self._updated_padding, self._padding_algorithm = _update_padding(padding, self._channel_dim != 1, dims,
                                                                             cls)
        if transposed:
            if out_channels % groups != 0:
                raise ValueError(f"{cls}: out_channels ({out_channels}) must be divisible by groups ({groups})")
            shape = [in_channels, out_channels // groups] + self._kernel_size
            default_init = None  # Paddle's fallback: XavierUniform over the [in, out/g, k...] fans
        else:
            if in_channels % groups != 0:
                raise ValueError(f"{cls}: in_channels ({in_channels}) must be divisible by groups ({groups})")
            if padding_mode != "zeros":
                # F.pad wants [before, after] per spatial dim, last dim first; all equal here.
                self._reversed_padding_repeated_twice = [padding] * (2 * dims)
                self._updated_padding, self._padding_algorithm = [0] * dims, "EXPLICIT"
            shape = [out_channels, in_channels // groups] + self._kernel_size
            # NOTE: Paddle's fan is in_channels * prod(kernel), not divided by groups.
            fan_in = in_channels * math.prod(self._kernel_size)
            default_init = Normal(0.0, math.sqrt(2.0 / fan_in) if fan_in else 0.0)
        dtype = _dtype.get_default_dtype() if dtype is None else dtype
        self.weight = self.create_parameter(shape, attr=weight_attr, dtype=dtype, default_initializer=default_init,
                                            device=device)
        self.bias = self.create_parameter([out_channels], attr=bias_attr, dtype=dtype, is_bias=True, device=device)

    def _padded(self, x):
        """Non-zero padding modes pad with F.pad first and convolve unpadded."""
        if self._padding_mode == "zeros":
            return x, self._padding
        return F.pad(x, self._reversed_padding_repeated_twice, mode=self._padding_mode,
                     data_format=self._data_format), 0

    def extra_repr(self):
        text = f"{self._in_channels}, {self._out_channels}, kernel_size={self._kernel_size}"
        if self._stride != [1] * len(self._stride):
            text += f", stride={self._stride}"
        if self._padding != 0:
            text += f", padding={self._padding}"
        if self._padding_mode != "zeros":
            text += f", padding_mode={self._padding_mode}"
        if self.output_padding != 0:
            text += f", output_padding={self.output_padding}"
        if self._dilation != [1] * len(self._dilation):
            text += f", dilation={self._dilation}"
        if self._groups != 1:
            text += f", groups={self._groups}"
        return text + f", data_format={self._data_format}"


class Conv1D(_ConvNd):
    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, *,
                 bias=True, padding_mode="zeros", device=None, dtype=None, weight_attr=None, bias_attr=None,
                 data_format="NCL"):
        super().__init__(in_channels, out_channels, kernel_size, False, 1, stride=stride, padding=padding,
                         padding_mode=padding_mode, dilation=dilation, groups=groups, weight_attr=weight_attr,
                         bias_attr=False if bias is False else bias_attr, data_format=data_format, device=device,
                         dtype=dtype)

    def forward(self, x):
        x, padding = self._padded(x)
        return F.conv1d(x, self.weight, bias=self.bias, stride=self._stride, padding=padding,
                        dilation=self._dilation, groups=self._groups, data_format=self._data_format)


class Conv2D(_ConvNd):
    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, *,
                 bias=True, padding_mode="zeros", device=None, dtype=None, weight_attr=None, bias_attr=None,
                 data_format="NCHW"):
        super().__init__(in_channels, out_channels, kernel_size, False, 2, stride=stride, padding=padding,
                         padding_mode=padding_mode, dilation=dilation, groups=groups, weight_attr=weight_attr,
                         bias_attr=False if bias is False else bias_attr, data_format=data_format, device=device,
                         dtype=dtype)

    def forward(self, x):
        x, padding = self._padded(x)
        return F.conv2d(x, self.weight, bias=self.bias, stride=self._stride, padding=padding,
                        dilation=self._dilation, groups=self._groups, data_format=self._data_format)


class Conv3D(_ConvNd):
    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, *,
                 bias=True, padding_mode="zeros", device=None, dtype=None, weight_attr=None, bias_attr=None,
                 data_format="NCDHW"):
        super().__init__(in_channels, out_channels, kernel_size, False, 3, stride=stride, padding=padding,
                         padding_mode=padding_mode, dilation=dilation, groups=groups, weight_attr=weight_attr,
                         bias_attr=False if bias is False else bias_attr, data_format=data_format, device=device,
                         dtype=dtype)

    def forward(self, x):
        x, padding = self._padded(x)
        return F.conv3d(x, self.weight, bias=self.bias, stride=self._stride, padding=padding,
                        dilation=self._dilation, groups=self._groups, data_format=self._data_format)


class Conv1DTranspose(_ConvNd):
    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1,
                 dilation=1, weight_attr=None, bias_attr=None, data_format="NCL"):
        super().__init__(in_channels, out_channels, kernel_size, True, 1, stride=stride, padding=padding,
                         output_padding=output_padding, dilation=dilation, groups=groups, weight_attr=weight_attr,
                         bias_attr=bias_attr, data_format=data_format)

    def forward(self, x, output_size=None):
        # NOTE: unlike the 2-D/3-D layers, Paddle keeps output_padding here even when output_size is given.
        return F.conv1d_transpose(x, self.weight, bias=self.bias, stride=self._stride, padding=self._padding,
                                  output_padding=self.output_padding, groups=self._groups, dilation=self._dilation,
                                  output_size=output_size, data_format=self._data_format)


class Conv2DTranspose(_ConvNd):
    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0, dilation=1,
                 groups=1, weight_attr=None, bias_attr=None, data_format="NCHW"):
        super().__init__(in_channels, out_channels, kernel_size, True, 2, stride=stride, padding=padding,
                         output_padding=output_padding, dilation=dilation, groups=groups, weight_attr=weight_attr,
                         bias_attr=bias_attr, data_format=data_format)

    def forward(self, x, output_size=None):
        return F.conv2d_transpose(x, self.weight, bias=self.bias, stride=self._stride, padding=self._padding,
                                  output_padding=self.output_padding if output_size is None else 0,
                                  dilation=self._dilation, groups=self._groups, output_size=output_size,
                                  data_format=self._data_format)


class Conv3DTranspose(_ConvNd):
    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0, dilation=1,
                 groups=1, weight_attr=None, bias_attr=None, data_format="NCDHW"):
        super().__init__(in_channels, out_channels, kernel_size, True, 3, stride=stride, padding=padding,
                         output_padding=output_padding, dilation=dilation, groups=groups, weight_attr=weight_attr,
                         bias_attr=bias_attr, data_format=data_format)

    def forward(self, x, output_size=None):
        return F.conv3d_transpose(x, self.weight, bias=self.bias, stride=self._stride, padding=self._padding,
                                  output_padding=self.output_padding if output_size is None else 0,
                                  dilation=self._dilation, groups=self._groups, output_size=output_size,
                                  data_format=self._data_format)
