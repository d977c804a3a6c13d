"""``QuantConfig``: which quanter each layer of a model gets, by layer, by name prefix, by type, or globally."""
import copy

from .. import nn
from .layers import ObserveWrapper, QuantedConv2D, QuantedLinear

__all__ = ["QuantConfig", "SingleLayerConfig"]

DEFAULT_QAT_LAYER_MAPPINGS = {nn.Linear: QuantedLinear, nn.Conv2D: QuantedConv2D}
# layers with children that are still observed as one layer
DEFAULT_LEAVES = [nn.ReLU, nn.AvgPool2D]


class SingleLayerConfig:
    def __init__(self, activation, weight):
        self._activation, self._weight = activation, weight

    @property
    def activation(self):
        return self._activation

    @property
    def weight(self):
        return self._weight

    def __str__(self):
        return f"activation: {self._activation}\nweight: {self._weight}"


class QuantConfig:
    def __init__(self, activation, weight):
        self._global_config = None if activation is None and weight is None else SingleLayerConfig(activation,
                                                                                                   weight)
        self._layer2config = {}
        self._prefix2config = {}
        self._type2config = {}
        self._model = None
        self._qat_layer_mapping = dict(DEFAULT_QAT_LAYER_MAPPINGS)
        self._customized_qat_layer_mapping = {}
        self._customized_leaves = []

    # -- what the user sets ------------------------------------------------------------------------------------
    def add_layer_config(self, layer, activation=None, weight=None):
        for one in layer if isinstance(layer, list) else [layer]:
            if not isinstance(one, nn.Layer):
                raise TypeError(f"add_layer_config: layer must be a Layer or a list of them, got "
                                f"{type(one).__name__}")
            self.add_name_config(one.full_name(), activation=activation, weight=weight)

    def add_name_config(self, layer_name, activation=None, weight=None):
        for name in layer_name if isinstance(layer_name, list) else [layer_name]:
            if not isinstance(name, str):
                raise TypeError(f"add_name_config: layer_name must be a str or a list of them, got {name!r}")
            self._prefix2config[name] = SingleLayerConfig(activation, weight)

    def add_type_config(self, layer_type, activation=None, weight=None):
        for t in layer_type if isinstance(layer_type, list) else [layer_type]:
            if not (isinstance(t, type) and issubclass(t, nn.Layer)):
                raise TypeError(f"add_type_config: layer_type must be a Layer subclass or a list of them, got {t!r}")
            self._type2config[t] = SingleLayerConfig(activation, weight)

    def add_qat_layer_mapping(self, source, target):
        for what, t in (("source", source), ("target", target)):
            if not (isinstance(t, type) and issubclass(t, nn.Layer)):
                raise TypeError(f"add_qat_layer_mapping: {what} must be a Layer subclass, got {t!r}")
        self._qat_layer_mapping[source] = target
        self._customized_qat_layer_mapping[source] = target

    def add_customized_leaf(self, layer_type):
        self._customized_leaves.append(layer_type)

    @property
    def customized_leaves(self):
        return self._customized_leaves

    @property
    def qat_layer_mappings(self):
        return self._qat_layer_mapping

    @property
    def default_qat_layer_mapping(self):
        return DEFAULT_QAT_LAYER_MAPPINGS

    @property
    def global_config(self):
        return self._global_config

    # -- what QAT / PTQ ask ------------------------------------------------------------------------------------
    def _specify(self, model):
        """Give every sublayer its config: a parent's (or the global one), overridden by type, then by name."""
        self._model = model
        self._layer2config = {}

        def walk(layer):
            for child in layer.children():
                config = self._layer2config.get(id(layer), (None, self._global_config))[1]
                config = self._type2config.get(type(child), config)
                config = self._prefix2config.get(child.full_name(), config)
                if config is not None:
                    self._layer2config[id(child)] = (child, config)
                walk(child)
        walk(model)

    def _config_of(self, layer):
        found = self._layer2config.get(id(layer))
        return None if found is None else found[1]

    def _is_quantifiable(self, layer):
        return id(layer) in self._layer2config

    def _get_qat_layer(self, layer):
        return self._qat_layer_mapping[type(layer)](layer, self._config_of(layer))

    def _is_leaf(self, layer):
        return type(layer) in DEFAULT_LEAVES or not layer._sub_layers or type(layer) in self._customized_leaves

    def _need_observe(self, layer):
        config = self._config_of(layer)
        return self._is_leaf(layer) and config is not None and config.activation is not None

    def _get_observe_wrapper(self, layer):
        return ObserveWrapper(self._config_of(layer).activation._instance(layer), layer)

    def details(self):
        if self._model is None:
            return str(self)

        def text(layer):
            lines = []
            for name, child in layer.named_children():
                inner = text(child).split("\n")
                inner = inner[0] + "".join("\n  " + line for line in inner[1:])
                if self._is_quantifiable(child):
                    lines.append(f"({name}): {inner}, {self._config_of(child)}")
            return type(layer).__name__ + "(" + ("\n  " + "\n  ".join(lines) + "\n" if lines else "") + ")"
        return text(self._model)

    def __str__(self):
        out = f"Global config:\n{self._global_config}\n"
        if self._type2config:
            out += f"Layer type config:\n{self._type2config}\n"
        if self._prefix2config:
            out += f"Layer prefix config: \n{self._prefix2config}\n"
        return out

    def __deepcopy__(self, memo):
        new = copy.copy(self)
        new._layer2config, new._model = {}, None
        new._qat_layer_mapping = dict(self._qat_layer_mapping)
        new._customized_qat_layer_mapping = dict(self._customized_qat_layer_mapping)
        new._customized_leaves = list(self._customized_leaves)
        return new
