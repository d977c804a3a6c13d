"""paddle.base.framework: mode queries, the static IR classes and the helpers legacy code imports from here."""
import functools

import numpy as np
import torch

from ..framework import dtype as _dtype
from ..framework.mode import in_dynamic_mode
from ..framework.parameter import Parameter as EagerParamBase  # noqa: F401
from ..framework.place import _STATE as _PLACE_STATE
from ..framework.program import (Block, Operator, Program, Variable, default_main_program,  # noqa: F401
                                 default_startup_program, device_guard, grad_var_name, name_scope, program_guard)
from ..framework.program import StaticParameter as Parameter  # noqa: F401
from ..framework.tensor import Tensor
from . import core

__all__ = ["in_dygraph_mode", "in_dynamic_or_pir_mode", "in_pir_mode", "Program", "Block", "Operator", "Variable",
           "Parameter", "EagerParamBase", "default_main_program", "default_startup_program", "program_guard",
           "name_scope", "device_guard", "grad_var_name", "convert_np_dtype_to_dtype_", "dygraph_only",
           "static_only", "OpProtoHolder"]


def in_dygraph_mode():
    return in_dynamic_mode()


# torchpaddle builds the 2.x-style Program IR in static mode, never PIR
in_dynamic_or_pir_mode = in_dygraph_mode
_non_static_mode = in_dygraph_mode


def in_pir_mode():
    return False


def use_pir_api():
    return False


class Tracer:
    """What ``_dygraph_tracer()`` gives: grad recording (``_has_grad``), the train flag and the place."""

    @property
    def _has_grad(self):
        return torch.is_grad_enabled()

    @_has_grad.setter
    def _has_grad(self, value):
        torch.set_grad_enabled(bool(value))

    _train_mode = True
    _amp_level = "O0"
    _amp_dtype = "float32"

    @property
    def _expected_place(self):
        return _PLACE_STATE.place

    def _get_amp_op_list(self):
        return set(), set()


_TRACER = Tracer()


def _dygraph_tracer():
    """The dygraph tracer in dygraph mode, None in static mode (code tests it to tell the modes apart)."""
    return _TRACER if in_dynamic_mode() else None


def _current_expected_place():
    return _PLACE_STATE.place


_current_expected_place_ = _current_expected_place


def convert_np_dtype_to_dtype_(np_dtype):
    """A NumPy dtype (or its name) -> the Paddle dtype."""
    return _dtype.convert_dtype(np_dtype.name if isinstance(np_dtype, np.dtype) else np_dtype)


def _mode_only(dygraph, func):
    wanted = "dygraph" if dygraph else "static graph"

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        if in_dynamic_mode() != dygraph:
            raise AssertionError(f"We only support '{func.__name__}()' in {wanted} mode, please call "
                                 f"'paddle.{'disable' if dygraph else 'enable'}_static()' to enter {wanted} mode.")
        return func(*args, **kwargs)
    return wrapper


def dygraph_only(func):
    return _mode_only(True, func)


def static_only(func):
    return _mode_only(False, func)


def _create_tensor(type=None, name=None, shape=None, dtype=None, persistable=None, **kwargs):
    """An empty eager Tensor holding only a name, dtype and persistable flag (filled later by an op)."""
    t = Tensor(np.zeros([0], dtype=_dtype.convert_dtype(dtype or "float32").numpy), name=name)
    if persistable:
        t.persistable = True
    return t


class _Slot:
    def __init__(self, name, duplicable, dispensable):
        self.name, self.duplicable, self.dispensable = name, duplicable, dispensable
        self.intermediate = False
        self.comment = ""


class _Attr:
    def __init__(self, name, default):
        self.name, self.default = name, default
        self.generated = False
        self.comment = ""


class _OpProto:
    """The slots and attributes of one registered op, shaped like Paddle's OpProto."""

    def __init__(self, opdef):
        self.type = opdef.type
        self.inputs = [_Slot(s.name, s.is_list, s.optional) for s in opdef.inputs]
        self.outputs = [_Slot(s.name, s.is_list, False) for s in opdef.outputs]
        self.attrs = [_Attr(k, v) for k, v in opdef.attrs.items()]
        self.comment = opdef.doc or ""


class OpProtoHolder:
    """``OpProtoHolder.instance().get_op_proto(type)``: op protos from the op registry."""
    _instance = None

    @classmethod
    def instance(cls):
        if cls._instance is None:
            cls._instance = cls()
        return cls._instance

    def get_op_proto(self, type):
        from ..ops.registry import REGISTRY
        if type not in REGISTRY:
            raise ValueError(f'Operator "{type}" has not been registered.')
        return _OpProto(REGISTRY[type])

    def has_op_proto(self, type):
        from ..ops.registry import REGISTRY
        return type in REGISTRY

    @staticmethod
    def generated_op_attr_names():
        return {"op_role", "op_role_var", "op_namescope", "op_callstack", "op_device", "with_quant_attr"}


_global_flags_ = core.globals()


def _global_flags():
    return _global_flags_
