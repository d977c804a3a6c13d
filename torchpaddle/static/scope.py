"""Scope: where static programs keep their values, by variable name (``paddle.static.global_scope()``)."""
import contextlib

import numpy as np
import torch

from ..framework import dtype as _dtype
from ..framework.place import to_torch_device
from ..framework.tensor import Tensor, wrap
from ..framework import hooks as _hooks
from .lod import check_lod, lengths_to_lod

__all__ = ["Scope", "LoDTensor", "global_scope", "scope_guard", "torch_value"]


def torch_value(value):
    """The (detached) torch tensor of a Tensor, LoDTensor or torch tensor; None for anything else."""
    if isinstance(value, Tensor):
        return value._t.detach()
    if isinstance(value, LoDTensor):
        return value._t
    if isinstance(value, torch.Tensor):
        return value.detach()
    return None


class LoDTensor:
    """The value of a scope variable (Paddle's ``DenseTensor``/``LoDTensor``): ``set``, ``np.array(t)``,
    ``shape()``, ``lod()``."""

    def __init__(self, holder=None):
        self._holder = holder if holder is not None else _ScopeVar("")

    @property
    def _t(self):
        return self._holder._value

    def set(self, array, place=None):
        t = torch_value(array)
        if t is None:
            t = torch.from_numpy(np.array(array, copy=True))
            if place is None:  # host data without a place: where the variable lives, else the current place
                old = self._t
                t = t.to(old.device if isinstance(old, torch.Tensor) else to_torch_device(None))
        device = to_torch_device(place) if place is not None else t.device
        self._holder._value = t.to(device)

    def _as_tensor(self):
        if self._t is None:
            raise RuntimeError(f"variable {self._holder.name} holds no value yet (run the startup program?)")
        return wrap(self._t)

    def __array__(self, dtype=None, copy=None):
        array = self._as_tensor().numpy()
        return array if dtype is None else array.astype(dtype)

    def numpy(self):
        return self._as_tensor().numpy()

    def shape(self):
        return [] if self._t is None else list(self._t.shape)

    def _dtype(self):
        return _dtype.from_torch_dtype(self._t.dtype)

    def _is_initialized(self):
        return self._t is not None

    def _numel(self):
        return 0 if self._t is None else self._t.numel()

    def lod(self):
        return list(self._holder.lod)

    def set_lod(self, lod):
        """Offsets per level; ValueError unless they start at 0, never decrease and end at the batch size."""
        self._holder.lod = check_lod(lod, self._rows(), "LoDTensor.set_lod")

    def _rows(self):
        t = self._t
        return t.shape[0] if isinstance(t, torch.Tensor) and t.dim() else None

    def recursive_sequence_lengths(self):
        return [[b - a for a, b in zip(level[:-1], level[1:])] for level in self._holder.lod]

    def set_recursive_sequence_lengths(self, lengths):
        self.set_lod(lengths_to_lod(lengths))

    def has_valid_recursive_sequence_lengths(self):
        try:
            check_lod(self._holder.lod, self._rows(), "")
        except (TypeError, ValueError):
            return False
        return True

    def _place(self):
        return self._as_tensor().place

    def __repr__(self):
        return f"LoDTensor({self._holder.name}, shape={self.shape()})"


class _ScopeVar:
    __slots__ = ("name", "_value", "lod")

    def __init__(self, name):
        self.name = name
        self._value = None
        self.lod = []

    def get_tensor(self):
        return LoDTensor(self)

    def is_initialized(self):
        return self._value is not None

    def set_value(self, value):
        LoDTensor(self).set(value)


class Scope:
    def __init__(self, parent=None):
        self._vars = {}
        self._parent = parent
        self._kids = []

    def var(self, name):
        """The variable named ``name`` in this scope, created when missing."""
        if not isinstance(name, str):
            raise TypeError(f"Scope.var: name must be a str, got {type(name).__name__}")
        found = self._vars.get(name)
        if found is None:
            found = self._vars[name] = _ScopeVar(name)
        return found

    def find_var(self, name):
        scope = self
        while scope is not None:
            found = scope._vars.get(name)
            if found is not None:
                return found
            scope = scope._parent
        return None

    def erase(self, names):
        for name in names:
            self._vars.pop(name, None)

    def local_var_names(self):
        return list(self._vars)

    def new_scope(self):
        kid = Scope(self)
        self._kids.append(kid)
        return kid

    def drop_kids(self):
        self._kids.clear()

    # -- fast paths for the executor ---------------------------------------------------------------------
    def _get(self, name):
        found = self.find_var(name)
        return None if found is None else found._value

    def _set(self, name, value):
        found = self.find_var(name)
        if found is None:
            found = self._vars[name] = _ScopeVar(name)
        found._value = value


_GLOBAL = [Scope()]


def global_scope():
    return _GLOBAL[0]


@contextlib.contextmanager
def scope_guard(scope):
    if not isinstance(scope, Scope):
        raise TypeError(f"scope_guard: scope must be a Scope, got {type(scope).__name__}")
    old, _GLOBAL[0] = _GLOBAL[0], scope
    try:
        yield
    finally:
        _GLOBAL[0] = old


_hooks.provide("global_scope", global_scope)   # Program.state_dict / set_state_dict
