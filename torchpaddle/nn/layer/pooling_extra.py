"""Pooling layers Paddle 3.x added: LPPool1D/2D and FractionalMaxPool2D/3D."""
from .. import functional as F
from .layers import Layer

__all__ = ["LPPool1D", "LPPool2D", "FractionalMaxPool2D", "FractionalMaxPool3D"]


class _LPPoolNd(Layer):
    _fn = None

    def __init__(self, norm_type, kernel_size, stride=None, padding=0, ceil_mode=False, data_format=None,
                 name=None):
        super().__init__()
        self.norm_type, self.kernel_size, self.stride, self.padding = norm_type, kernel_size, stride, padding
        self.ceil_mode, self.data_format, self._name = ceil_mode, data_format, name

    def forward(self, x):
        return type(self)._fn(x, self.norm_type, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                              self.data_format)

    def extra_repr(self):
        return f"norm_type={self.norm_type}, kernel_size={self.kernel_size}, stride={self.stride}, " \
               f"padding={self.padding}"


class LPPool1D(_LPPoolNd):
    _fn = staticmethod(F.lp_pool1d)

    def __init__(self, norm_type, kernel_size, stride=None, padding=0, ceil_mode=False, data_format="NCL",
                 name=None):
        super().__init__(norm_type, kernel_size, stride, padding, ceil_mode, data_format, name)


class LPPool2D(_LPPoolNd):
    _fn = staticmethod(F.lp_pool2d)

    def __init__(self, norm_type, kernel_size, stride=None, padding=0, ceil_mode=False, data_format="NCHW",
                 name=None):
        super().__init__(norm_type, kernel_size, stride, padding, ceil_mode, data_format, name)


class _FractionalMaxPoolNd(Layer):
    _fn = None

    def __init__(self, output_size, kernel_size=None, random_u=None, return_mask=False, name=None):
        super().__init__()
        self.output_size, self.kernel_size, self.random_u = output_size, kernel_size, random_u
        self.return_mask, self._name = return_mask, name

    def forward(self, x):
        return type(self)._fn(x, self.output_size, self.kernel_size, self.random_u, self.return_mask)

    def extra_repr(self):
        return f"output_size={self.output_size}, kernel_size={self.kernel_size}, random_u={self.random_u}, " \
               f"return_mask={self.return_mask}"


class FractionalMaxPool2D(_FractionalMaxPoolNd):
    _fn = staticmethod(F.fractional_max_pool2d)


class FractionalMaxPool3D(_FractionalMaxPoolNd):
    _fn = staticmethod(F.fractional_max_pool3d)
