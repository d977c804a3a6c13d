"""``AbsmaxObserver``: post-training calibration by the largest absolute value seen."""
from ..tensor import abs as _abs, max as _max, maximum, zeros_like
from .base import BaseObserver
from .factory import ObserverFactory

__all__ = ["AbsmaxObserver", "AbsmaxObserverLayer"]


class AbsmaxObserver(ObserverFactory):
    def __init__(self, quant_bits=8):
        super().__init__(quant_bits=quant_bits)

    def _get_class(self):
        return AbsmaxObserverLayer


class AbsmaxObserverLayer(BaseObserver):
    def __init__(self, layer, quant_bits=8):
        super().__init__()
        self._quant_bits = quant_bits
        self._max, self._scale, self._zero_point = None, None, None

    def forward(self, input):
        found = _max(_abs(input))
        self._max = found if self._max is None else maximum(found, self._max.astype(input.dtype))
        return input

    def cal_thresholds(self):
        if self._scale is None:
            self._scale = self._max
        self._zero_point = None if self._scale is None else zeros_like(self._scale)

    def bit_length(self):
        return self._quant_bits

    def quant_axis(self):
        return -1

    def scales(self):
        if self._scale is None:
            self.cal_thresholds()
        return self._scale

    def zero_points(self):
        return self._zero_point
