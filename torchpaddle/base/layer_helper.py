"""paddle.base.layer_helper.LayerHelper: how hand-written fluid layers create parameters and append ops.

In static mode ``append_op`` appends to the current block and infers the outputs' shapes and dtypes from the
op's kernel (as Paddle's InferShape does); in dygraph it runs the registered op at once and writes the
results into the output tensors, as Paddle's tracer does.
"""
import copy

import numpy as np

from ..framework import dtype as _dtype
from ..framework.mode import in_dynamic_mode
from ..framework.param_attr import ParamAttr
from ..framework.program import Variable, default_main_program, default_startup_program
from ..framework.tensor import Tensor
from ..ops.registry import get_op
from ..tensor.creation import _write_out
from ..utils import unique_name

__all__ = ["LayerHelper"]


def _as_list(value):
    if value is None:
        return []
    return list(value) if isinstance(value, (list, tuple)) else [value]


def _run_eager(op_type, inputs, outputs, attrs):
    d = get_op(op_type)
    args = []
    for slot in d.inputs:
        values = _as_list((inputs or {}).get(slot.name))
        if slot.is_list:
            args.append(values)
        elif len(values) > 1:
            raise ValueError(f"LayerHelper.append_op: {op_type} takes one tensor in input {slot.name}, got "
                             f"{len(values)}")
        else:
            args.append(values[0] if values else None)
    known = {k: v.proto if isinstance(v, _dtype.dtype) else v for k, v in (attrs or {}).items() if k in d.attrs}
    result = d.eager(*args, **known)
    results = [result] if len(d.outputs) == 1 else list(result)
    for slot, value in zip(d.outputs, results):
        targets = _as_list((outputs or {}).get(slot.name))
        values = value if slot.is_list else [value]
        for target, v in zip(targets, values):
            if target is not None and v is not None:
                _write_out(target, v, op_type)


def _infer_static(op_type, block, inputs, outputs, attrs):
    """Give the op's output variables the shapes and dtypes its kernel produces."""
    from ..ops.registry import REGISTRY
    from ..static.append import infer_outputs
    d = REGISTRY.get(op_type)
    if d is None:
        return

    def var(v):
        return block._find_var_recursive(v) if isinstance(v, str) else v
    args = []
    for slot in d.inputs:
        values = [var(v) for v in _as_list((inputs or {}).get(slot.name))]
        args.append(values if slot.is_list else (values[0] if values else None))
    known = {k: v.proto if isinstance(v, _dtype.dtype) else v for k, v in (attrs or {}).items() if k in d.attrs}
    kernel_attrs = dict(d.attrs)
    kernel_attrs.update(known)
    described = infer_outputs(d, args, kernel_attrs)
    described = [described] if len(d.outputs) == 1 else list(described)
    for slot, desc in zip(d.outputs, described):
        targets = [var(v) for v in _as_list((outputs or {}).get(slot.name))]
        descs = desc if slot.is_list else [desc]
        for target, one in zip(targets, descs):
            if isinstance(target, Variable) and one is not None:
                target.desc_shape = tuple(one[0])
                target._dtype = one[1]


class LayerHelper:
    def __init__(self, layer_type, **kwargs):
        self.kwargs = kwargs
        self.layer_type = layer_type
        if kwargs.get("name") is None:
            self.kwargs["name"] = unique_name.generate(layer_type)

    @property
    def name(self):
        return self.kwargs["name"]

    @property
    def main_program(self):
        return default_main_program()

    @property
    def startup_program(self):
        return default_startup_program()

    @property
    def param_attr(self):
        return ParamAttr._to_attr(self.kwargs.get("param_attr"))

    @property
    def bias_attr(self):
        return ParamAttr._to_attr(self.kwargs.get("bias_attr"))

    def to_variable(self, value, name=None):
        from ..tensor.creation import to_tensor
        return value if isinstance(value, Tensor) else to_tensor(np.asarray(value))

    # -- inputs ------------------------------------------------------------------------------------------
    def multiple_input(self, input_param_name="input"):
        inputs = self.kwargs.get(input_param_name, [])
        return list(inputs) if isinstance(inputs, (list, tuple)) else [inputs]

    def input(self, input_param_name="input"):
        inputs = self.multiple_input(input_param_name)
        if len(inputs) != 1:
            raise ValueError(f"{self.layer_type} layer only takes one input in {input_param_name}, got "
                             f"{len(inputs)}")
        return inputs[0]

    def multiple_param_attr(self, length):
        attr = self.param_attr
        if isinstance(attr, ParamAttr):
            attr = [attr]
        if len(attr) != 1 and len(attr) != length:
            raise ValueError(f"{self.layer_type}: param_attr holds {len(attr)} attributes for {length} inputs")
        if len(attr) == 1 and length != 1:
            attr = [copy.deepcopy(attr[0]) for _ in range(length)]
        return attr

    def iter_inputs_and_params(self, input_param_name="input"):
        inputs = self.multiple_input(input_param_name)
        yield from zip(inputs, self.multiple_param_attr(len(inputs)))

    def input_dtype(self, input_param_name="input"):
        dtype = None
        for each in self.multiple_input(input_param_name):
            if dtype is None:
                dtype = each.dtype
            elif dtype != each.dtype:
                raise ValueError(f"{self.layer_type}: all inputs must have the same dtype, got {dtype} and "
                                 f"{each.dtype}")
        return dtype

    def is_instance(self, param_name, cls):
        param = self.kwargs.get(param_name)
        if not isinstance(param, cls):
            raise TypeError(f"The input {param_name} parameter of method {self.layer_type} must be {cls}, in "
                            f"op {self.layer_type}")

    # -- parameters and variables ------------------------------------------------------------------------
    def create_parameter(self, attr, shape, dtype=None, is_bias=False, default_initializer=None,
                         stop_gradient=False, type=None):
        from ..nn.layer.layers import create_parameter_for
        attr = ParamAttr._to_attr(attr)
        if attr is False:
            return None
        param = create_parameter_for(shape, dtype, None, attr, is_bias, default_initializer,
                                     f"LayerHelper({self.layer_type}).create_parameter", name_prefix=self.name)
        if stop_gradient:
            param.stop_gradient = True
        return param

    def get_parameter(self, name):
        param = self.main_program.global_block()._find_var_recursive(name)
        if param is None or not hasattr(param, "trainable"):
            raise ValueError(f"no Parameter name {name} found")
        return param

    def create_variable_for_type_inference(self, dtype, stop_gradient=False, shape=None):
        name = unique_name.generate(f"{self.name}.tmp")
        dtype = _dtype.convert_dtype(dtype if dtype is not None else _dtype.get_default_dtype())
        if in_dynamic_mode():
            # an empty tensor the op's result replaces
            t = Tensor(np.zeros([0], dtype=dtype.numpy), name=unique_name.generate("dygraph_tmp"))
            if not stop_gradient and dtype.is_floating_point:
                t.stop_gradient = False
            return t
        return self.main_program.current_block().create_var(name=name, dtype=dtype, shape=shape,
                                                            persistable=False, stop_gradient=stop_gradient)

    create_sparse_variable_for_type_inference = create_variable_for_type_inference

    def create_variable(self, *args, **kwargs):
        if in_dynamic_mode():
            dtype = _dtype.convert_dtype(kwargs.get("dtype") or _dtype.get_default_dtype())
            return Tensor(np.zeros([0], dtype=dtype.numpy), name=kwargs.get("name"))
        return self.main_program.current_block().create_var(*args, **kwargs)

    def create_global_variable(self, persistable=False, *args, **kwargs):
        kwargs.setdefault("name", unique_name.generate(f"{self.name}.global"))
        if in_dynamic_mode():
            var = self.create_variable(**kwargs)
            var.persistable = persistable
            return var
        return self.main_program.global_block().create_var(*args, persistable=persistable, **kwargs)

    def create_or_get_global_variable(self, name, *args, **kwargs):
        """-> (variable, whether it was created)"""
        block = self.main_program.global_block()
        if not in_dynamic_mode() and block.has_var(name):
            return block.var(name), False
        return self.create_global_variable(*args, name=name, **kwargs), True

    def set_variable_initializer(self, var, initializer):
        if in_dynamic_mode():
            initializer(var)
            return var
        from ..static.param_init import append_init_op
        startup = self.startup_program.global_block()
        if not startup.has_var(var.name):
            startup.create_var(name=var.name, shape=list(var.shape), dtype=var.dtype, persistable=True)
        append_init_op(initializer, var.name, list(var.shape), var.dtype, startup)
        return var

    # -- ops -----------------------------------------------------------------------------------------------
    def append_op(self, type=None, inputs=None, outputs=None, attrs=None, **kwargs):
        if in_dynamic_mode():
            _run_eager(type, inputs, outputs, attrs)
            return None
        block = self.main_program.current_block()
        _infer_static(type, block, inputs, outputs, attrs)
        return block.append_op(type, inputs, outputs, attrs)

    def append_bias_op(self, input_var, dim_start=1, dim_end=None):
        size = list(input_var.shape[dim_start:dim_end])
        bias_attr = self.bias_attr
        if not bias_attr:
            return input_var
        bias = self.create_parameter(attr=bias_attr, shape=size, dtype=input_var.dtype, is_bias=True)
        out = self.create_variable_for_type_inference(dtype=input_var.dtype)
        self.append_op(type="elementwise_add", inputs={"X": [input_var], "Y": [bias]}, outputs={"Out": [out]},
                       attrs={"axis": dim_start})
        return out

    def append_activation(self, input_var):
        act = self.kwargs.get("act")
        if act is None:
            return input_var
        if isinstance(act, str):
            act = {"type": act}
        else:
            act = dict(act)
        act_type = act.pop("type")
        act.pop("use_cudnn", None)
        act.pop("use_mkldnn", None)
        out = self.create_variable_for_type_inference(dtype=input_var.dtype)
        self.append_op(type=act_type, inputs={"X": [input_var]}, outputs={"Out": [out]}, attrs=act)
        return out

    def get_default_dtype(self):
        return _dtype.get_default_dtype()
