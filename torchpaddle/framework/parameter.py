"""Parameter (Paddle's ``EagerParamBase``): a persistable Tensor that optimizers update.

A Parameter is a Tensor whose wrapped torch tensor is a leaf; ``trainable`` is ``not stop_gradient``.
Results of ops on a Parameter are plain Tensors (``wrap`` builds Tensors), as in Paddle.
"""
import collections
import copy
import itertools

import torch

from . import dtype as _dtype
from .place import to_torch_device
from .printing import tensor_repr
from .tensor import Tensor

__all__ = ["Parameter"]

_COUNTERS = collections.defaultdict(itertools.count)


def _unique_name(key):
    """``key_N`` with a per-key counter, the way Paddle's unique_name.generate names parameters."""
    return f"{key}_{next(_COUNTERS[key])}"


def _check_shape(shape):
    for each in shape:
        if each < 0:
            raise ValueError(f"Parameter: each dimension of shape must be >= 0, but received {list(shape)}")


class Parameter(Tensor):
    """Parameter(shape, dtype, **attrs) or Parameter(data_tensor, requires_grad=True, **attrs).

    ``attrs``: name, trainable (shape form only), optimize_attr, regularizer, do_model_average, need_clip,
    is_distributed. The shape form starts zero-filled (Paddle leaves it uninitialized).
    """
    persistable = True

    def __init__(self, *args, **kwargs):
        if (args and isinstance(args[0], (list, tuple))) or "shape" in kwargs:
            self._init_by_shape(*args, **kwargs)
        else:
            self._init_by_tensor(*args, **kwargs)

    def _init_by_shape(self, shape, dtype, **kwargs):
        if shape is None:
            raise ValueError("Parameter: the shape of a Parameter should not be None")
        if dtype is None:
            raise ValueError("Parameter: the dtype of a Parameter should not be None")
        if isinstance(shape, Tensor):
            shape = shape.tolist()
        shape = [int(s) for s in shape]
        _check_shape(shape)
        self._t = torch.zeros(shape, dtype=_dtype.to_torch_dtype(dtype), device=to_torch_device(None))
        self._set_attrs(kwargs, kwargs.get("trainable", True))

    def _init_by_tensor(self, data=None, requires_grad=True, **kwargs):
        if data is None:
            data = torch.zeros([0], dtype=_dtype.default_float().torch, device=to_torch_device(None))
        elif isinstance(data, Tensor):
            data = data._t
        elif not isinstance(data, torch.Tensor):
            raise TypeError(f"Parameter: data must be a Tensor, got {type(data).__name__}")
        _check_shape(data.shape)
        # NOTE: like Paddle's _set_impl, the Parameter shares storage with ``data``.
        self._t = data.detach()
        self._set_attrs(kwargs, requires_grad)

    def _set_attrs(self, kwargs, trainable):
        name = kwargs.get("name")
        self._name = _unique_name("_eager_param_base") if name is None else name
        self.stop_gradient = not trainable
        self.optimize_attr = kwargs.get("optimize_attr", {"learning_rate": 1.0})
        self.regularizer = kwargs.get("regularizer", None)
        self.do_model_average = kwargs.get("do_model_average", None)
        self.need_clip = kwargs.get("need_clip", True)
        self.is_distributed = kwargs.get("is_distributed", False)
        # hooks for lazy initialization, as in Paddle
        self._init_func = None
        self._init_op_creator = None

    @classmethod
    def from_tensor(cls, tensor, **kwargs):
        """A Parameter sharing ``tensor``'s storage; ``trainable`` and the other attrs as keywords."""
        param = cls.__new__(cls)
        param._init_by_tensor(tensor, kwargs.pop("trainable", True), **kwargs)
        return param

    @property
    def trainable(self):
        return not self.stop_gradient

    @trainable.setter
    def trainable(self, trainable):
        if not isinstance(trainable, bool):
            raise ValueError(f"The type of trainable MUST be bool, but the type is {type(trainable)}")
        self.stop_gradient = not trainable

    def set_init_func(self, obj):
        self._init_func = obj

    def initialize(self):
        if self._init_func is None:
            raise AssertionError("Parameter.initialize: no init function was set (set_init_func)")
        self._init_func(self, None)
        self._init_func = None

    def _create_init_op(self, block):
        if self._init_op_creator is None:
            raise AssertionError("Parameter._create_init_op: no init op creator was set")
        self._init_op_creator(self, block)

    def __repr__(self):
        return "Parameter containing:\n" + tensor_repr(self)

    __str__ = __repr__

    def _clone_with(self, t, name):
        new = Parameter.__new__(Parameter)
        new._t = t
        new._name = name
        new.__dict__.update(copy.deepcopy(self.__dict__))
        if self._t.requires_grad:
            t.requires_grad_(True)
        return new

    def __deepcopy__(self, memo):
        new = self._clone_with(self._t.detach().clone(), self.name + _unique_name("_deepcopy"))
        memo[id(self)] = new
        return new

    def _copy_to(self, place, blocking=True):
        t = self._t.detach().to(to_torch_device(place), non_blocking=not blocking, copy=True)
        return self._clone_with(t, self.name)


EagerParamBase = Parameter


def create_parameter_from(torch_tensor, name=None, trainable=True, **attrs):
    """Wrap a torch tensor as a Parameter without copying (for nn layers and initializers).

    A leaf tensor is used as is; a non-leaf one is detached (same storage). ``attrs`` are the Parameter
    attributes (optimize_attr, regularizer, do_model_average, need_clip, is_distributed).
    """
    if not isinstance(torch_tensor, torch.Tensor):
        raise TypeError(f"create_parameter_from: expected a torch.Tensor, got {type(torch_tensor).__name__}")
    _check_shape(torch_tensor.shape)
    param = Parameter.__new__(Parameter)
    param._t = torch_tensor if torch_tensor.is_leaf else torch_tensor.detach()
    attrs["name"] = name
    param._set_attrs(attrs, trainable)
    return param
