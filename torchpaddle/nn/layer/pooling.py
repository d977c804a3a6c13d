"""Pooling layers: config holders over nn.functional's pools (attribute names as in Paddle: ``ksize``...)."""
import warnings

from .. import functional as F
from .layers import Layer

__all__ = ["AvgPool1D", "AvgPool2D", "AvgPool3D", "MaxPool1D", "MaxPool2D", "MaxPool3D", "AdaptiveAvgPool1D",
           "AdaptiveAvgPool2D", "AdaptiveAvgPool3D", "AdaptiveMaxPool1D", "AdaptiveMaxPool2D", "AdaptiveMaxPool3D"]


class AvgPool1D(Layer):
    def __init__(self, kernel_size, stride=None, padding=0, exclusive=True, ceil_mode=False, name=None):
        super().__init__()
        self.kernel_size, self.stride, self.padding = kernel_size, stride, padding
        self.ceil_mode, self.exclusive, self.name = ceil_mode, exclusive, name

    def forward(self, x):
        return F.avg_pool1d(x, self.kernel_size, self.stride, self.padding, self.exclusive, self.ceil_mode)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class _AvgPoolNd(Layer):
    _fn = None  # name of the nn.functional pool, set per dimension

    def __init__(self, kernel_size, stride, padding, ceil_mode, exclusive, divisor_override, data_format, name):
        super().__init__()
        self.ksize, self.stride, self.padding = kernel_size, stride, padding
        self.ceil_mode, self.exclusive, self.divisor = ceil_mode, exclusive, divisor_override
        self.data_format, self.name = data_format, name

    def forward(self, x):
        return getattr(F, self._fn)(x, kernel_size=self.ksize, stride=self.stride, padding=self.padding,
                                ceil_mode=self.ceil_mode, exclusive=self.exclusive, divisor_override=self.divisor,
                                data_format=self.data_format)

    def extra_repr(self):
        return f"kernel_size={self.ksize}, stride={self.stride}, padding={self.padding}"


class AvgPool2D(_AvgPoolNd):
    _fn = "avg_pool2d"

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, exclusive=True, divisor_override=None,
                 data_format="NCHW", name=None):
        super().__init__(kernel_size, stride, padding, ceil_mode, exclusive, divisor_override, data_format, name)


class AvgPool3D(_AvgPoolNd):
    _fn = "avg_pool3d"

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, exclusive=True, divisor_override=None,
                 data_format="NCDHW", name=None):
        super().__init__(kernel_size, stride, padding, ceil_mode, exclusive, divisor_override, data_format, name)


class MaxPool1D(Layer):
    def __init__(self, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False, name=None):
        super().__init__()
        self.kernel_size, self.stride, self.padding = kernel_size, stride, padding
        self.ceil_mode, self.return_mask, self.name = ceil_mode, return_mask, name

    def forward(self, input):
        return F.max_pool1d(input, self.kernel_size, self.stride, self.padding, self.return_mask, self.ceil_mode)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class _MaxPoolNd(Layer):
    _fn = None

    def __init__(self, kernel_size, stride, padding, return_mask, ceil_mode, data_format, name):
        super().__init__()
        self.ksize, self.stride, self.padding = kernel_size, stride, padding
        self.return_mask, self.ceil_mode, self.data_format, self.name = return_mask, ceil_mode, data_format, name

    def forward(self, x):
        return getattr(F, self._fn)(x, kernel_size=self.ksize, stride=self.stride, padding=self.padding,
                                return_mask=self.return_mask, ceil_mode=self.ceil_mode, data_format=self.data_format)

    def extra_repr(self):
        return f"kernel_size={self.ksize}, stride={self.stride}, padding={self.padding}"


class MaxPool2D(_MaxPoolNd):
    _fn = "max_pool2d"

    def __init__(self, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False, data_format="NCHW",
                 name=None):
        super().__init__(kernel_size, stride, padding, return_mask, ceil_mode, data_format, name)


class MaxPool3D(_MaxPoolNd):
    _fn = "max_pool3d"

    def __init__(self, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False, data_format="NCDHW",
                 name=None):
        super().__init__(kernel_size, stride, padding, return_mask, ceil_mode, data_format, name)


class AdaptiveAvgPool1D(Layer):
    def __init__(self, output_size, name=None):
        super().__init__()
        self.output_size, self.name = output_size, name

    def forward(self, input):
        return F.adaptive_avg_pool1d(input, self.output_size)

    def extra_repr(self):
        return f"output_size={self.output_size}"


class _AdaptiveAvgPoolNd(Layer):
    _fn = None

    def __init__(self, output_size, data_format, name):
        super().__init__()
        self._output_size, self._data_format, self._name = output_size, data_format, name

    @property
    def output_size(self):
        return self._output_size

    @output_size.setter
    def output_size(self, value):
        self._output_size = value

    def forward(self, x):
        return getattr(F, self._fn)(x, output_size=self._output_size, data_format=self._data_format)

    def extra_repr(self):
        return f"output_size={self._output_size}"


class AdaptiveAvgPool2D(_AdaptiveAvgPoolNd):
    _fn = "adaptive_avg_pool2d"

    def __init__(self, output_size, data_format="NCHW", name=None):
        super().__init__(output_size, data_format, name)


class AdaptiveAvgPool3D(_AdaptiveAvgPoolNd):
    _fn = "adaptive_avg_pool3d"

    def __init__(self, output_size, data_format="NCDHW", name=None):
        super().__init__(output_size, data_format, name)


class AdaptiveMaxPool1D(Layer):
    def __init__(self, output_size, return_mask=False, name=None):
        super().__init__()
        self.output_size, self.return_mask, self.name = output_size, return_mask, name

    @property
    def return_indices(self):
        return self.return_mask

    @return_indices.setter
    def return_indices(self, value):
        self.return_mask = value

    def forward(self, input):
        return F.adaptive_max_pool1d(input, self.output_size, self.return_mask)

    def extra_repr(self):
        return f"output_size={self.output_size}, return_mask={self.return_mask}"


class _AdaptiveMaxPoolNd(Layer):
    _fn = None

    def __init__(self, output_size, return_mask, name):
        super().__init__()
        self._output_size, self._return_mask, self._name = output_size, return_mask, name

    @property
    def return_indices(self):
        return self._return_mask

    @return_indices.setter
    def return_indices(self, value):
        self._return_mask = value

    def forward(self, x):
        return getattr(F, self._fn)(x, output_size=self._output_size, return_mask=self._return_mask)

    def extra_repr(self):
        return f"output_size={self._output_size}, return_mask={self._return_mask}"


class AdaptiveMaxPool2D(_AdaptiveMaxPoolNd):
    _fn = "adaptive_max_pool2d"

    def __init__(self, output_size, return_mask=False, name=None):
        super().__init__(output_size, return_mask, name)


class AdaptiveMaxPool3D(_AdaptiveMaxPoolNd):
    _fn = "adaptive_max_pool3d"

    def __init__(self, output_size, return_mask=False, name=None):
        super().__init__(output_size, return_mask, name)


class _MaxUnPoolNd(Layer):
    _fn = None

    def __init__(self, kernel_size, stride, padding, data_format, output_size, name):
        super().__init__()
        self.ksize, self.stride, self.padding = kernel_size, stride, padding
        self.data_format, self.output_size, self.name = data_format, output_size, name

    def forward(self, x, indices, output_size=None):
        if output_size:
            warnings.warn("output_size in forward overrides output_size in __init__. "
                          "The output_size parameter in forward has higher priority.", stacklevel=2)
        else:
            output_size = self.output_size
        return getattr(F, self._fn)(x, indices, kernel_size=self.ksize, stride=self.stride, padding=self.padding,
                                data_format=self.data_format, output_size=output_size)

    def extra_repr(self):
        return f"output_size={self.output_size}"


class MaxUnPool1D(_MaxUnPoolNd):
    _fn = "max_unpool1d"

    def __init__(self, kernel_size, stride=None, padding=0, data_format="NCL", output_size=None, name=None):
        super().__init__(kernel_size, stride, padding, data_format, output_size, name)


class MaxUnPool2D(_MaxUnPoolNd):
    _fn = "max_unpool2d"

    def __init__(self, kernel_size, stride=None, padding=0, data_format="NCHW", output_size=None, name=None):
        super().__init__(kernel_size, stride, padding, data_format, output_size, name)


class MaxUnPool3D(_MaxUnPoolNd):
    _fn = "max_unpool3d"

    def __init__(self, kernel_size, stride=None, padding=0, data_format="NCDHW", output_size=None, name=None):
        super().__init__(kernel_size, stride, padding, data_format, output_size, name)


# The un-pooling layers are published only once nn.functional has max_unpool1d/2d/3d to run them.
__all__ += [f"MaxUnPool{d}D" for d in (1, 2, 3) if hasattr(F, f"max_unpool{d}d")]
