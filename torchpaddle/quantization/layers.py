"""The layers QAT and PTQ put in a model: quantized Linear/Conv2D (weights and inputs through quanters), the
observer wrapper of leaf layers, and the quantize/dequantize pairs ``convert`` leaves in place of quanters."""
import abc

from .. import ops as _ops
from ..framework.mode import in_dynamic_mode
from ..nn import Layer
from ..nn import functional as F
from ..tensor import to_tensor
from .base import BaseQuanter, _LayerABC

__all__ = ["ConvertibleQuantedLayer", "QuantedLinear", "QuantedConv2D", "ObserveWrapper", "LinearQuanter",
           "LinearDequanter", "LinearQuanterDequanter"]


class _Linear(Layer):
    """quantize_linear / dequantize_linear with fixed scales (what a calibrated quanter becomes)."""
    _op = None

    def __init__(self, scales, zero_point=None, quant_axis=None, bit_length=8):
        super().__init__()
        if not isinstance(bit_length, int) or not 1 < bit_length <= 16:
            raise ValueError(f"{type(self).__name__}: bit_length must be an int in [2, 16], got {bit_length!r}")
        self._scales = to_tensor(scales, dtype="float32").reshape([-1])
        self._zero_point = to_tensor(zero_point if zero_point is not None else [0.0] * self._scales.shape[0],
                                     dtype="float32").reshape([-1])
        self._quant_axis = -1 if quant_axis is None else quant_axis
        self._bit_length = bit_length
        self._qmax = (1 << (bit_length - 1)) - 1
        self._qmin = -self._qmax - 1

    def forward(self, input):
        if not in_dynamic_mode():
            raise NotImplementedError(f"{type(self).__name__}: torchpaddle runs converted models in dynamic mode "
                                      "only")
        out = getattr(_ops, self._op)(input.astype("float32"), self._scales, self._zero_point,
                                      quant_axis=self._quant_axis, bit_length=self._bit_length, qmin=self._qmin,
                                      qmax=self._qmax, round_type=0, is_test=True, only_observer=False)
        return out.astype(input.dtype)

    @classmethod
    def from_quanter(cls, quanter):
        return cls(quanter.scales(), zero_point=quanter.zero_points(), quant_axis=quanter.quant_axis(),
                   bit_length=quanter.bit_length())


class LinearQuanter(_Linear):
    _op = "quantize_linear"


class LinearDequanter(_Linear):
    _op = "dequantize_linear"


class LinearQuanterDequanter(Layer):
    def __init__(self, quanter, dequanter):
        super().__init__()
        self._quanter, self._dequanter = quanter, dequanter

    def forward(self, input):
        out = input
        if self._quanter is not None:
            out = self._quanter(out)
        if self._dequanter is not None:
            out = self._dequanter(out)
        return out

    @staticmethod
    def from_quanter(quanter):
        if quanter is None:
            raise ValueError("LinearQuanterDequanter.from_quanter: quanter is None")
        return LinearQuanterDequanter(LinearQuanter.from_quanter(quanter), LinearDequanter.from_quanter(quanter))


class ConvertibleQuantedLayer(Layer, metaclass=_LayerABC):
    """A quantized layer that ``convert`` turns into fixed quantize/dequantize steps."""

    def __init__(self):
        super().__init__()
        self.converted = False

    @abc.abstractmethod
    def weights_to_quanters(self):
        """[(weight attribute, its quanter attribute)]."""

    @abc.abstractmethod
    def activation_quanters(self):
        """[quanter attribute of each activation]."""

    def _to_qdq(self, quanter_name):
        quanter = getattr(self, quanter_name, None)
        if quanter is None:
            return None
        qdq = LinearQuanterDequanter.from_quanter(quanter)
        setattr(self, quanter_name, qdq)
        return qdq

    def _convert(self, remain_weight=False):
        if self.converted:
            raise RuntimeError(f"{type(self).__name__}: the model should be converted only once")
        for weight_name, quanter_name in self.weights_to_quanters():
            qdq = self._to_qdq(quanter_name)
            if qdq is not None and not remain_weight:
                # the weight is stored quantized (integers in float); only the dequantize step remains
                weight = getattr(self, weight_name)
                weight.set_value(qdq._quanter(weight))
                qdq._quanter = None
        for quanter_name in self.activation_quanters():
            self._to_qdq(quanter_name)
        self.converted = True


def _quanters(owner, layer, q_config):
    owner.weight_quanter = None if q_config.weight is None else q_config.weight._instance(layer)
    owner.activation_quanter = None if q_config.activation is None else q_config.activation._instance(layer)


class QuantedLinear(ConvertibleQuantedLayer):
    def __init__(self, layer, q_config):
        super().__init__()
        self.weight, self.bias, self.name = layer.weight, layer.bias, getattr(layer, "_name", None)
        _quanters(self, layer, q_config)

    def forward(self, input):
        x = input if self.activation_quanter is None else self.activation_quanter(input)
        w = self.weight if self.weight_quanter is None else self.weight_quanter(self.weight)
        return F.linear(x, w, self.bias)

    def weights_to_quanters(self):
        return [("weight", "weight_quanter")]

    def activation_quanters(self):
        return ["activation_quanter"]


class QuantedConv2D(ConvertibleQuantedLayer):
    _CONFIG = ("_stride", "_padding", "_padding_mode", "_dilation", "_groups", "_data_format",
               "_reversed_padding_repeated_twice")

    def __init__(self, layer, q_config):
        super().__init__()
        for name in self._CONFIG:
            if hasattr(layer, name):
                setattr(self, name, getattr(layer, name))
        self.weight, self.bias = layer.weight, layer.bias
        _quanters(self, layer, q_config)

    def forward(self, input):
        x = input if self.activation_quanter is None else self.activation_quanter(input)
        w = self.weight if self.weight_quanter is None else self.weight_quanter(self.weight)
        padding = self._padding
        if self._padding_mode != "zeros":
            x = F.pad(x, self._reversed_padding_repeated_twice, mode=self._padding_mode,
                      data_format=self._data_format)
            padding = 0
        return F.conv2d(x, w, bias=self.bias, stride=self._stride, padding=padding, dilation=self._dilation,
                        groups=self._groups, data_format=self._data_format)

    def weights_to_quanters(self):
        return [("weight", "weight_quanter")]

    def activation_quanters(self):
        return ["activation_quanter"]


class ObserveWrapper(Layer):
    """Runs ``observer`` on the input (or the output) of ``observed``."""

    def __init__(self, observer, observed, observe_input=True):
        super().__init__()
        self._observer, self._observed, self._observe_input = observer, observed, observe_input

    def forward(self, *inputs, **kwargs):
        if self._observe_input:
            return self._observed(self._observer(*inputs, **kwargs), **kwargs)
        return self._observer(self._observed(*inputs, **kwargs), **kwargs)

