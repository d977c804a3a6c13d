"""nn.Layer: Paddle's module base class (parameters, buffers, sublayers, hooks, state_dict, modes)."""
import collections
import re
import warnings

import numpy as np
import torch

from ...framework import dtype as _dtype
from ...framework.param_attr import ParamAttr
from ...framework.parameter import Parameter
from ...framework.place import to_torch_device
from ...framework.tensor import Tensor, wrap
from ...utils import unique_name
from .. import initializer as _init
from ..initializer.initializers import global_initializer

__all__ = ["Layer", "HookRemoveHelper"]


def _camel_to_snake(name):
    # Paddle's rule, which parameter names ("batch_norm2d_0.w_0") depend on.
    s = re.sub("(.)([A-Z][a-z]+)", r"\1_\2", name)
    return re.sub("([a-z])([A-Z])", r"\1_\2", s).lower()


class HookRemoveHelper:
    """Handle returned by register_forward_*_hook; ``remove()`` unregisters the hook."""
    _next_id = 0

    def __init__(self, hooks):
        self._hooks = hooks
        self._id = HookRemoveHelper._next_id
        HookRemoveHelper._next_id += 1

    def remove(self):
        self._hooks.pop(self._id, None)


class Layer:
    """Base class of every layer. Subclasses create parameters in ``__init__`` and compute in ``forward``."""

    def __init__(self, name_scope=None, dtype="float32"):
        self.training = True
        prefix = name_scope if name_scope else _camel_to_snake(type(self).__name__)
        self._full_name = unique_name.generate(prefix)
        self._dtype = dtype.name if isinstance(dtype, _dtype.dtype) else dtype
        self._parameters = collections.OrderedDict()
        self._buffers = collections.OrderedDict()
        self._non_persistable_buffer_names_set = set()
        self._sub_layers = collections.OrderedDict()
        self._forward_pre_hooks = collections.OrderedDict()
        self._forward_post_hooks = collections.OrderedDict()
        self._casted_by_pure_fp16 = False

    # -- naming -------------------------------------------------------------------------------------
    def full_name(self):
        return self._full_name

    # -- forward --------------------------------------------------------------------------------------
    def forward(self, *inputs, **kwargs):
        raise NotImplementedError(f"{type(self).__name__}.forward is not implemented")

    def __call__(self, *inputs, **kwargs):
        if self._forward_pre_hooks:
            for hook in list(self._forward_pre_hooks.values()):
                result = hook(self, inputs)
                if result is not None:
                    inputs = result if isinstance(result, tuple) else (result,)
        outputs = self.forward(*inputs, **kwargs)
        if self._forward_post_hooks:
            for hook in list(self._forward_post_hooks.values()):
                result = hook(self, inputs, outputs)
                if result is not None:
                    outputs = result
        return outputs

    def register_forward_pre_hook(self, hook):
        handle = HookRemoveHelper(self._forward_pre_hooks)
        self._forward_pre_hooks[handle._id] = hook
        return handle

    def register_forward_post_hook(self, hook):
        handle = HookRemoveHelper(self._forward_post_hooks)
        self._forward_post_hooks[handle._id] = hook
        return handle

    # -- parameters -----------------------------------------------------------------------------------
    def create_parameter(self, shape, attr=None, dtype=None, is_bias=False, default_initializer=None):
        """A new Parameter named after this layer (``linear_0.w_0``), filled by the attr's initializer,
        else ``default_initializer``, else the global one, else XavierUniform (weights) / zeros (biases)."""
        attr = ParamAttr._to_attr(attr)
        if attr is False:
            return None
        shape = [int(s) for s in (shape.tolist() if isinstance(shape, Tensor) else shape)]
        for s in shape:
            if s < 0:
                raise ValueError(f"{type(self).__name__}.create_parameter: every dimension of shape must be "
                                 f">= 0, got {shape}")
        dtype = _dtype.convert_dtype(self._dtype if dtype is None else dtype)
        name = attr.name if attr.name is not None else \
            unique_name.generate(f"{self._full_name}.{'b' if is_bias else 'w'}")
        param = Parameter(shape, dtype, name=name, trainable=attr.trainable,
                          optimize_attr={"learning_rate": attr.learning_rate}, regularizer=attr.regularizer,
                          do_model_average=attr.do_model_average, need_clip=attr.need_clip)
        initializer = attr.initializer or default_initializer or global_initializer(is_bias)
        if initializer is None:
            initializer = _init.Constant(0.0) if is_bias else _init.XavierUniform()
        initializer(param)
        return param

    def create_variable(self, name=None, persistable=None, dtype=None):
        t = wrap(torch.zeros([0], dtype=_dtype.to_torch_dtype(dtype or self._dtype)))
        t.name = name or unique_name.generate(f"{self._full_name}.var")
        t.persistable = bool(persistable)
        return t

    create_tensor = create_variable

    def add_parameter(self, name, parameter):
        if "." in name:
            raise KeyError(f"add_parameter: the parameter name cannot contain '.', got {name!r}")
        if parameter is not None and not isinstance(parameter, Parameter):
            raise TypeError(f"add_parameter: parameter must be a Parameter, got {type(parameter).__name__}")
        if hasattr(self, name) and name not in self._parameters:
            raise KeyError(f"add_parameter: the attribute {name!r} already exists")
        self._parameters[name] = parameter
        return parameter

    def add_sublayer(self, name, sublayer):
        if sublayer is not None and not isinstance(sublayer, Layer):
            raise TypeError(f"add_sublayer: sublayer must be a Layer, got {type(sublayer).__name__}")
        self._sub_layers[str(name)] = sublayer
        return sublayer

    def register_buffer(self, name, tensor, persistable=True):
        if "_buffers" not in self.__dict__:
            raise ValueError("register_buffer: call super().__init__() before registering buffers")
        if not isinstance(name, str):
            raise TypeError(f"register_buffer: name must be a str, got {type(name).__name__}")
        if "." in name or name == "":
            raise KeyError(f"register_buffer: invalid buffer name {name!r}")
        if hasattr(self, name) and name not in self._buffers:
            raise KeyError(f"register_buffer: the attribute {name!r} already exists")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"register_buffer: tensor must be a Tensor or None, got {type(tensor).__name__}")
        self._buffers[name] = tensor
        if persistable:
            self._non_persistable_buffer_names_set.discard(name)
        else:
            self._non_persistable_buffer_names_set.add(name)

    # -- traversal -----------------------------------------------------------------------------------
    def parameters(self, include_sublayers=True):
        return [p for _, p in self.named_parameters(include_sublayers=include_sublayers)]

    def named_parameters(self, prefix="", include_sublayers=True):
        seen = set()
        layers = self.named_sublayers(prefix=prefix, include_self=True) if include_sublayers else [(prefix, self)]
        for layer_prefix, layer in layers:
            for name, p in layer._parameters.items():
                if p is None or id(p) in seen:
                    continue
                seen.add(id(p))
                yield (layer_prefix + "." + name if layer_prefix else name), p

    def buffers(self, include_sublayers=True):
        return [b for _, b in self.named_buffers(include_sublayers=include_sublayers)]

    def named_buffers(self, prefix="", include_sublayers=True):
        seen = set()
        layers = self.named_sublayers(prefix=prefix, include_self=True) if include_sublayers else [(prefix, self)]
        for layer_prefix, layer in layers:
            for name, b in layer._buffers.items():
                if b is None or id(b) in seen:
                    continue
                seen.add(id(b))
                yield (layer_prefix + "." + name if layer_prefix else name), b

    def children(self):
        return [layer for _, layer in self.named_children()]

    def named_children(self):
        seen = set()
        for name, layer in self._sub_layers.items():
            if layer is not None and id(layer) not in seen:
                seen.add(id(layer))
                yield name, layer

    def sublayers(self, include_self=False):
        return [layer for _, layer in self.named_sublayers(include_self=include_self)]

    def named_sublayers(self, prefix="", include_self=False, layers_set=None):
        if layers_set is None:
            layers_set = set()
        if include_self and id(self) not in layers_set:
            layers_set.add(id(self))
            yield prefix, self
        for name, layer in self._sub_layers.items():
            if layer is None or id(layer) in layers_set:
                continue
            sub_prefix = prefix + "." + name if prefix else name
            layers_set.add(id(layer))
            yield sub_prefix, layer
            yield from layer.named_sublayers(prefix=sub_prefix, include_self=False, layers_set=layers_set)

    # -- modes ----------------------------------------------------------------------------------------
    def train(self):
        for layer in self.sublayers(include_self=True):
            layer.training = True
        return self

    def eval(self):
        for layer in self.sublayers(include_self=True):
            layer.training = False
        return self

    def apply(self, fn):
        for layer in self.children():
            layer.apply(fn)
        fn(self)
        return self

    def clear_gradients(self, set_to_zero=True):
        for p in self.parameters():
            if p.trainable:
                p.clear_gradient(set_to_zero)

    # -- state ----------------------------------------------------------------------------------------
    def _state_items(self, prefix, include_sublayers):
        for name, p in self._parameters.items():
            if p is not None:
                yield prefix + name, p
        for name, b in self._buffers.items():
            if b is not None and name not in self._non_persistable_buffer_names_set:
                yield prefix + name, b
        if include_sublayers:
            for name, layer in self._sub_layers.items():
                if layer is not None:
                    yield from layer._state_items(prefix + name + ".", True)

    def state_dict(self, destination=None, include_sublayers=True, structured_name_prefix="", use_hook=True,
                   keep_vars=True):
        """Structured names (``fc.weight``) -> the Parameters and persistable buffers themselves."""
        out = collections.OrderedDict() if destination is None else destination
        for name, value in self._state_items(structured_name_prefix, include_sublayers):
            out[name] = value
        return out

    def set_state_dict(self, state_dict, use_structured_name=True):
        """Copy values in by structured name (or by parameter name); returns (missing_keys, unexpected_keys).
        A shape mismatch is warned about and the entry counted as both missing and unexpected, like Paddle."""
        if not isinstance(state_dict, dict):
            raise TypeError(f"set_state_dict: state_dict must be a dict, got {type(state_dict).__name__}")
        own = list(self._state_items("", True))
        missing, matched = [], set()
        for key, target in own:
            lookup = key if use_structured_name else target.name
            if lookup not in state_dict:
                missing.append(key)
                continue
            value = state_dict[lookup]
            source = value._t if isinstance(value, Tensor) else torch.as_tensor(np.asarray(value))
            if list(source.shape) != list(target._t.shape):
                warnings.warn(f"Skip loading for {key}: its shape {list(source.shape)} does not match the "
                              f"layer's {list(target._t.shape)}")
                missing.append(key)
                continue
            matched.add(lookup)
            with torch.no_grad():
                target._t.copy_(source.to(device=target._t.device, dtype=target._t.dtype))
        unexpected = [k for k in state_dict if k not in matched]
        return missing, unexpected

    set_dict = load_dict = set_state_dict

    # -- conversion -----------------------------------------------------------------------------------
    def to(self, device=None, dtype=None, blocking=None):
        target_device = None if device is None else to_torch_device(device)
        target_dtype = None if dtype is None else _dtype.to_torch_dtype(dtype)
        for t in self._all_tensors():
            with torch.no_grad():
                new = t._t
                if target_device is not None:
                    new = new.to(target_device)
                if target_dtype is not None and new.is_floating_point():
                    new = new.to(target_dtype)
                if new is not t._t:
                    requires = t._t.requires_grad
                    t._t = new.detach().requires_grad_(requires)
        if target_dtype is not None:
            for layer in self.sublayers(include_self=True):
                layer._dtype = _dtype.from_torch_dtype(target_dtype).name
        return self

    def _all_tensors(self):
        for layer in self.sublayers(include_self=True):
            for t in list(layer._parameters.values()) + list(layer._buffers.values()):
                if t is not None:
                    yield t

    def astype(self, dtype=None):
        return self.to(dtype=dtype)

    def float(self, excluded_layers=None):
        return self.to(dtype="float32")

    def double(self, excluded_layers=None):
        return self.to(dtype="float64")

    def float16(self, excluded_layers=None):
        return self.to(dtype="float16")

    half = float16

    def bfloat16(self, excluded_layers=None):
        return self.to(dtype="bfloat16")

    # -- attribute plumbing ----------------------------------------------------------------------------
    def __setattr__(self, name, value):
        d = self.__dict__
        params = d.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise ValueError("Layer: call super().__init__() before assigning parameters")
            d["_sub_layers"].pop(name, None)
            d["_buffers"].pop(name, None)
            d.pop(name, None)
            params[name] = value
        elif params is not None and name in params:
            if value is not None and not isinstance(value, Parameter):
                raise TypeError(f"cannot assign a {type(value).__name__} to parameter '{name}' "
                                "(a Parameter or None is expected)")
            params[name] = value
        elif isinstance(value, Layer):
            if params is None:
                raise ValueError("Layer: call super().__init__() before assigning sublayers")
            params.pop(name, None)
            d["_buffers"].pop(name, None)
            d.pop(name, None)
            d["_sub_layers"][name] = value
        elif d.get("_sub_layers") is not None and name in d["_sub_layers"]:
            if value is not None:
                raise TypeError(f"cannot assign a {type(value).__name__} to sublayer '{name}' (a Layer or None "
                                "is expected)")
            d["_sub_layers"][name] = None
        elif d.get("_buffers") is not None and name in d["_buffers"]:
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(f"cannot assign a {type(value).__name__} to buffer '{name}' (a Tensor or None "
                                "is expected)")
            d["_buffers"][name] = value
        else:
            object.__setattr__(self, name, value)

    def __getattr__(self, name):
        d = self.__dict__
        for table in ("_parameters", "_sub_layers", "_buffers"):
            found = d.get(table)
            if found is not None and name in found:
                return found[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name):
        for table in ("_parameters", "_sub_layers", "_buffers"):
            if name in self.__dict__.get(table, {}):
                del self.__dict__[table][name]
                return
        object.__delattr__(self, name)

    def __dir__(self):
        return sorted(set(object.__dir__(self)) | set(self._parameters) | set(self._sub_layers) |
                      set(self._buffers))

    # -- printing --------------------------------------------------------------------------------------
    def extra_repr(self):
        return ""

    def __repr__(self):
        extra = self.extra_repr()
        children = [f"({name}): " + repr(layer).replace("\n", "\n  ")
                    for name, layer in self._sub_layers.items() if layer is not None]
        if not children:
            return f"{type(self).__name__}({extra})"
        lines = ([extra] if extra else []) + children
        return f"{type(self).__name__}(\n  " + "\n  ".join(lines) + "\n)"
