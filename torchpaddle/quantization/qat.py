"""``QAT`` (quantization-aware training) and ``PTQ`` (post-training calibration): put quanters or observers in
a model; ``convert`` turns them into fixed quantize/dequantize steps."""
import copy

from .base import BaseQuanter
from .config import QuantConfig
from .layers import ConvertibleQuantedLayer, LinearQuanterDequanter

__all__ = ["Quantization", "QAT", "PTQ"]


class Quantization:
    def __init__(self, config):
        if not isinstance(config, QuantConfig):
            raise TypeError(f"{type(self).__name__}: config must be a QuantConfig, got {type(config).__name__}")
        self._config = copy.deepcopy(config)

    def quantize(self, model, inplace=False):
        raise NotImplementedError

    def _prepare(self, model):
        self._config._specify(model)
        self._swap_quant_layers(model)
        self._insert_observers(model)
        return model

    def _swap_quant_layers(self, model):
        for name, child in list(model.named_children()):
            if self._config._is_quantifiable(child) and type(child) in self._config.qat_layer_mappings:
                model._sub_layers[name] = self._config._get_qat_layer(child)
            else:
                self._swap_quant_layers(child)

    def _insert_observers(self, model):
        quanted = set(self._config.qat_layer_mappings.values())
        for name, child in list(model.named_children()):
            if self._config._need_observe(child):
                model._sub_layers[name] = self._config._get_observe_wrapper(child)
            elif type(child) not in quanted:
                self._insert_observers(child)

    def convert(self, model, inplace=False, remain_weight=False):
        model = model if inplace else copy.deepcopy(model)
        for name, child in list(model.named_children()):
            if isinstance(child, ConvertibleQuantedLayer):
                if child.converted or (child.weight_quanter is None or child.weight_quanter.scales() is None
                                       if hasattr(child, "weight_quanter") else False):
                    continue
                child._convert(remain_weight=remain_weight)
            elif isinstance(child, BaseQuanter):
                model._sub_layers[name] = LinearQuanterDequanter.from_quanter(child)
            else:
                self.convert(child, inplace=True, remain_weight=remain_weight)
        return model

    def __str__(self):
        return self._config.details()

    __repr__ = __str__


class QAT(Quantization):
    def quantize(self, model, inplace=False):
        if not model.training:
            raise ValueError("QAT.quantize: quantization-aware training works on a model in training mode; call "
                             "model.train() first")
        return self._prepare(model if inplace else copy.deepcopy(model))


class PTQ(Quantization):
    def quantize(self, model, inplace=False):
        if model.training:
            raise ValueError("PTQ.quantize: post-training quantization works on a model in evaluation mode; call "
                             "model.eval() first")
        return self._prepare(model if inplace else copy.deepcopy(model))
