"""Containers: Sequential, LayerList, LayerDict, ParameterList."""
import collections

from ...framework.parameter import Parameter
from .layers import Layer

__all__ = ["Sequential", "LayerList", "LayerDict", "ParameterList"]


def _index(index, length, what):
    if not isinstance(index, int) or isinstance(index, bool):
        raise TypeError(f"{what} indices must be integers or slices, got {type(index).__name__}")
    if not -length <= index < length:
        raise IndexError(f"{what} index {index} is out of range for length {length}")
    return index + length if index < 0 else index


class Sequential(Layer):
    """Sequential(layer, ...) or Sequential((name, layer), ...) or Sequential(OrderedDict)."""

    def __init__(self, *layers):
        super().__init__()
        if len(layers) == 1 and isinstance(layers[0], collections.OrderedDict):
            layers = tuple(layers[0].items())
        if layers and isinstance(layers[0], (list, tuple)):
            for name, layer in layers:
                self.add_sublayer(name, layer)
        else:
            for i, layer in enumerate(layers):
                self.add_sublayer(str(i), layer)

    def __getitem__(self, name):
        if isinstance(name, slice):
            return self.__class__(*list(self._sub_layers.values())[name])
        if isinstance(name, str):
            return self._sub_layers[name]
        keys = list(self._sub_layers)
        return self._sub_layers[keys[_index(name, len(keys), "Sequential")]]

    def __setitem__(self, name, layer):
        keys = list(self._sub_layers)
        key = name if isinstance(name, str) else keys[_index(name, len(keys), "Sequential")]
        self.add_sublayer(key, layer)

    def __delitem__(self, name):
        keys = list(self._sub_layers)
        key = name if isinstance(name, str) else keys[_index(name, len(keys), "Sequential")]
        del self._sub_layers[key]

    def __len__(self):
        return len(self._sub_layers)

    def __iter__(self):
        return iter(self._sub_layers.values())

    def forward(self, input):
        for layer in self._sub_layers.values():
            input = layer(input)
        return input


class LayerList(Layer):
    def __init__(self, sublayers=None):
        super().__init__()
        if sublayers is not None:
            for i, layer in enumerate(sublayers):
                self.add_sublayer(str(i), layer)

    def _abs(self, index):
        return _index(index, len(self), "LayerList")

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return self.__class__(list(self._sub_layers.values())[idx])
        return self._sub_layers[str(self._abs(idx))]

    def __setitem__(self, idx, sublayer):
        self.add_sublayer(str(self._abs(idx)), sublayer)

    def __delitem__(self, idx):
        if isinstance(idx, slice):
            for k in range(len(self._sub_layers))[idx]:
                del self._sub_layers[str(k)]
        else:
            del self._sub_layers[str(self._abs(idx))]
        values = list(self._sub_layers.values())
        self._sub_layers.clear()
        for i, layer in enumerate(values):
            self._sub_layers[str(i)] = layer

    def __len__(self):
        return len(self._sub_layers)

    def __iter__(self):
        return iter(self._sub_layers.values())

    def append(self, sublayer):
        self.add_sublayer(str(len(self)), sublayer)
        return self

    def insert(self, index, sublayer):
        if not -len(self) <= index <= len(self):
            raise IndexError(f"LayerList.insert: index {index} is out of range for length {len(self)}")
        index = index + len(self) if index < 0 else index
        values = list(self._sub_layers.values())
        values.insert(index, sublayer)
        self._sub_layers.clear()
        for i, layer in enumerate(values):
            self.add_sublayer(str(i), layer)

    def extend(self, sublayers):
        for layer in sublayers:
            self.append(layer)
        return self


class LayerDict(Layer):
    def __init__(self, sublayers=None):
        super().__init__()
        if sublayers is not None:
            self.update(sublayers)

    def __getitem__(self, key):
        return self._sub_layers[key]

    def __setitem__(self, key, sublayer):
        self.add_sublayer(key, sublayer)

    def __delitem__(self, key):
        del self._sub_layers[key]

    def __len__(self):
        return len(self._sub_layers)

    def __iter__(self):
        return iter(self._sub_layers)

    def __contains__(self, key):
        return key in self._sub_layers

    def clear(self):
        self._sub_layers.clear()

    def pop(self, key):
        return self._sub_layers.pop(key)

    def keys(self):
        return self._sub_layers.keys()

    def items(self):
        return self._sub_layers.items()

    def values(self):
        return self._sub_layers.values()

    def update(self, sublayers):
        if isinstance(sublayers, (dict, LayerDict)):
            items = sublayers.items()
        else:
            items = []
            for i, kv in enumerate(sublayers):
                if not isinstance(kv, (list, tuple)) or len(kv) != 2:
                    raise ValueError(f"LayerDict.update: element {i} must be a (key, layer) pair")
                items.append(kv)
        for key, layer in items:
            self.add_sublayer(key, layer)


class ParameterList(Layer):
    def __init__(self, parameters=None):
        super().__init__()
        if parameters is not None:
            for i, p in enumerate(parameters):
                self.add_parameter(str(i), p)

    def __getitem__(self, idx):
        return self._parameters[str(_index(idx, len(self), "ParameterList"))]

    def __setitem__(self, idx, param):
        if not isinstance(param, Parameter):
            raise TypeError(f"ParameterList: items must be Parameters, got {type(param).__name__}")
        self._parameters[str(_index(idx, len(self), "ParameterList"))] = param

    def __len__(self):
        return len(self._parameters)

    def __iter__(self):
        return iter(self._parameters.values())

    def append(self, parameter):
        self.add_parameter(str(len(self)), parameter)
        return self
