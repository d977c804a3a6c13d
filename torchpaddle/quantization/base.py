"""The interfaces of quanters (fake-quantize a tensor) and observers (watch values, give scales)."""
import abc

from ..nn import Layer

__all__ = ["BaseQuanter", "BaseObserver"]


_LayerABC = abc.ABCMeta   # Layer has no metaclass of its own


class BaseQuanter(Layer, metaclass=_LayerABC):
    @abc.abstractmethod
    def forward(self, input):
        pass

    @abc.abstractmethod
    def scales(self):
        pass

    @abc.abstractmethod
    def zero_points(self):
        pass

    @abc.abstractmethod
    def quant_axis(self):
        pass

    @abc.abstractmethod
    def bit_length(self):
        pass


class BaseObserver(BaseQuanter):
    @abc.abstractmethod
    def cal_thresholds(self):
        pass
