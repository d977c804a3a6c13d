"""Containers: Sequential, LayerList, LayerDict, ParameterList, ParameterDict."""
import collections
import collections.abc
import itertools

import torch

from ...framework.parameter import Parameter
from ...framework.tensor import PaddleAssertionError, Tensor
from .layers import Layer

__all__ = ["Sequential", "LayerList", "LayerDict", "ParameterList", "ParameterDict", "ModuleList", "ModuleDict"]


def _torch_name(value, kwargs, alias, where):
    """Paddle 3 accepts torch's keyword names here (``modules`` for ``sublayers``)."""
    if alias in kwargs:
        value = kwargs.pop(alias)
    if kwargs:
        raise TypeError(f"{where}() got unexpected keyword arguments {sorted(kwargs)}")
    return value


def _pairs(items, what):
    if not isinstance(items, collections.abc.Iterable):
        raise PaddleAssertionError(f"{what}: expected an iterable of key/value pairs, got {type(items).__name__}")
    if isinstance(items, (collections.abc.Mapping, LayerDict, ParameterDict)):
        return list(items.items())
    pairs = []
    for i, kv in enumerate(items):
        if len(kv) != 2:
            raise ValueError(f"{what}: element {i} has length {len(kv)}, but a (key, value) pair is expected")
        pairs.append((kv[0], kv[1]))
    return pairs


class Sequential(Layer):
    """Sequential(layer, ...) or Sequential((name, layer), ...) or Sequential(OrderedDict)."""

    def __init__(self, *layers):
        super().__init__()
        if len(layers) == 1 and isinstance(layers[0], collections.OrderedDict):
            for name, layer in layers[0].items():
                self.add_sublayer(name, layer)
        elif layers and isinstance(layers[0], (list, tuple)):
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
        if not isinstance(name, int):
            raise TypeError(f"Sequential indices must be integers, slices or str, got {type(name).__name__}")
        n = len(self._sub_layers)
        if not -n <= name < n:
            raise IndexError(f"Sequential: index {name} is out of range for length {n}")
        return list(self._sub_layers.values())[name]

    def __setitem__(self, name, layer):
        # NOTE: as in Paddle, an int index is a key ("0"), not a position.
        if not isinstance(layer, Layer):
            raise PaddleAssertionError(f"Sequential: only Layers can be stored, got {type(layer).__name__}")
        setattr(self, str(name), layer)

    def __delitem__(self, name):
        name = str(name)
        if name not in self._sub_layers:
            raise PaddleAssertionError(f"Sequential: no sublayer named {name!r}")
        del self._sub_layers[name]

    def __len__(self):
        return len(self._sub_layers)

    def __iter__(self):
        return iter(self._sub_layers.values())

    def forward(self, input):
        for layer in self._sub_layers.values():
            input = layer(input)
        return input

    def append(self, module):
        self.add_sublayer(str(len(self)), module)
        return self

    def insert(self, index, module):
        if not isinstance(module, Layer):
            raise PaddleAssertionError(f"Sequential.insert: module should be a Layer, got {type(module).__name__}")
        n = len(self._sub_layers)
        if not -n <= index <= n:
            raise IndexError(f"Sequential.insert: index {index} is out of range for length {n}")
        if index < 0:
            index += n
        for i in range(n, index, -1):
            self._sub_layers[str(i)] = self._sub_layers[str(i - 1)]
        self._sub_layers[str(index)] = module
        return self

    def extend(self, sequential):
        for layer in sequential:
            self.append(layer)
        return self


class LayerList(Layer):
    def __init__(self, sublayers=None, **kwargs):
        sublayers = _torch_name(sublayers, kwargs, "modules", "LayerList")
        super().__init__()
        if sublayers is not None:
            for i, layer in enumerate(sublayers):
                self.add_sublayer(str(i), layer)

    def _abs(self, idx):
        if isinstance(idx, int):
            if not -len(self) <= idx < len(self):
                raise IndexError(f"LayerList: index {idx} is out of range, should be an integer in range "
                                 f"[{-len(self)}, {len(self)})")
            if idx < 0:
                idx += len(self)
        return idx

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return self.__class__(list(self._sub_layers.values())[idx])
        return self._sub_layers[str(self._abs(idx))]

    def __setitem__(self, idx, sublayer):
        setattr(self, str(self._abs(idx)), sublayer)

    def __delitem__(self, idx):
        if isinstance(idx, slice):
            for k in range(len(self._sub_layers))[idx]:
                delattr(self, str(k))
        else:
            delattr(self, str(self._abs(idx)))
        values = list(self._sub_layers.values())
        self._sub_layers.clear()
        self._sub_layers.update((str(i), layer) for i, layer in enumerate(values))

    def __len__(self):
        return len(self._sub_layers)

    def __iter__(self):
        return iter(self._sub_layers.values())

    def __iadd__(self, modules):
        return self.extend(modules)

    def __add__(self, other):
        combined = LayerList()
        for i, module in enumerate(itertools.chain(self, other)):
            combined.add_module(str(i), module)
        return combined

    def __dir__(self):
        return [key for key in super().__dir__() if not key.isdigit()]

    def append(self, sublayer=None, **kwargs):
        sublayer = _torch_name(sublayer, kwargs, "module", "LayerList.append")
        self.add_sublayer(str(len(self)), sublayer)
        return self

    def insert(self, index, sublayer=None, **kwargs):
        sublayer = _torch_name(sublayer, kwargs, "module", "LayerList.insert")
        n = len(self._sub_layers)
        if not (isinstance(index, int) and -n <= index <= n):
            raise PaddleAssertionError(f"LayerList.insert: index should be an integer in range [{-n}, {n}], "
                                       f"got {index!r}")
        if index < 0:
            index += n
        for i in range(n, index, -1):
            self._sub_layers[str(i)] = self._sub_layers[str(i - 1)]
        self._sub_layers[str(index)] = sublayer

    def extend(self, sublayers=None, **kwargs):
        sublayers = _torch_name(sublayers, kwargs, "modules", "LayerList.extend")
        offset = len(self)
        for i, sublayer in enumerate(sublayers):
            self.add_sublayer(str(offset + i), sublayer)
        return self

    def pop(self, key):
        value = self[key]
        del self[key]
        return value


class LayerDict(Layer):
    def __init__(self, sublayers=None, **kwargs):
        sublayers = _torch_name(sublayers, kwargs, "modules", "LayerDict")
        super().__init__()
        if sublayers is not None:
            self.update(sublayers)

    def __getitem__(self, key):
        return self._sub_layers[key]

    def __setitem__(self, key, sublayer):
        return self.add_sublayer(key, sublayer)

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
        value = self[key]
        del self[key]
        return value

    def keys(self):
        return self._sub_layers.keys()

    def items(self):
        return self._sub_layers.items()

    def values(self):
        return self._sub_layers.values()

    def update(self, sublayers=None, **kwargs):
        sublayers = _torch_name(sublayers, kwargs, "modules", "LayerDict.update")
        for key, layer in _pairs(sublayers, "LayerDict.update"):
            self.add_sublayer(key, layer)


class ParameterList(Layer):
    def __init__(self, parameters=None):
        super().__init__()
        if parameters is not None:
            for i, p in enumerate(parameters):
                if not isinstance(p, Parameter):
                    raise PaddleAssertionError(f"ParameterList: element {i} must be a Parameter, got "
                                               f"{type(p).__name__}")
                self.add_parameter(str(i), p)

    def __getitem__(self, idx):
        return self._parameters[str(idx)]

    def __setitem__(self, idx, param):
        # Paddle copies the value into the stored Parameter (paddle.assign), keeping its identity.
        if not isinstance(param, Tensor):
            raise TypeError(f"ParameterList: param should be a Parameter or Tensor, but received {type(param)}")
        target = getattr(self, str(idx))
        if list(target.shape) != list(param.shape):
            raise ValueError(f"ParameterList: cannot assign a value of shape {list(param.shape)} to the parameter "
                             f"{idx} of shape {list(target.shape)}")
        with torch.no_grad():
            target._t.copy_(param._t)

    def __len__(self):
        return len(self._parameters)

    def __iter__(self):
        return iter(self._parameters.values())

    def append(self, parameter):
        self.add_parameter(str(len(self._parameters)), parameter)
        return self


class ParameterDict(Layer):
    def __init__(self, parameters=None):
        super().__init__()
        if parameters is not None:
            self.update(parameters)

    def __getitem__(self, key):
        return self._parameters[key]

    def __setitem__(self, key, param):
        if not isinstance(param, Parameter):
            raise PaddleAssertionError(f"ParameterDict: values must be Parameters, got {type(param).__name__}")
        setattr(self, key, param)

    def __len__(self):
        return len(self._parameters)

    def __iter__(self):
        return iter(self._parameters)

    def update(self, parameters):
        for key, param in _pairs(parameters, "ParameterDict.update"):
            self.add_parameter(key, param)


# torch-style names, the same classes in Paddle 3
ModuleList, ModuleDict = LayerList, LayerDict
