"""Program <-> ProgramDesc protobuf (the `.pdmodel` format), as PaddlePaddle 3.3.1's legacy IR writes it.

Writing gives every attribute the AttrType Paddle's OpProto declares (``paddle_op_protos``, generated
from real Paddle): Paddle refuses an op whose attribute has another type, and Python values alone cannot
tell INT from LONG or FLOAT from FLOAT64. Ops whose Paddle form has an output the registry leaves out
(reshape2's ``XShape``) get that variable in the file, so that real Paddle can run what we save.

Reading builds Variables, StaticParameters (``is_parameter``), Operators with decoded attributes and
sub-block attributes as Blocks. As in Paddle, any op type parses (a program can be inspected whatever it
holds); ``check_op_types`` names the ones torchpaddle cannot run, and the executor refuses them.
"""
import numbers

import numpy as np

from ..framework import dtype as _dtype
from ..framework.program import Block, Operator, Program, StaticParameter, Variable
from ..ops.registry import REGISTRY
from ..ops import paddle_op_protos as _protos
from .serialization import framework_pb2 as _pb
from .serialization import decode_attr, encode_attr, make_var_desc, parse_program, serialize_program, var_kind
from ..framework import hooks as _hooks

__all__ = ["program_to_desc", "program_to_desc_bytes", "program_from_desc", "program_from_desc_bytes",
           "check_op_types", "known_op_type", "table_op_types", "feed_target_names", "fetch_target_names"]

_A = _pb.AttrType
_V = _pb.VarType
# ops the executor handles itself: a program may hold them although no kernel is registered (the control-flow
# ops run their sub-blocks: static/control_flow_exec.py)
HANDLED_OPS = frozenset(["feed", "fetch", "conditional_block", "while", "pylayer"])
# var kinds by number, with the 2.x names our Variables use (the proto keeps them as aliases)
_KIND_NAMES = {_V.DENSE_TENSOR: "LOD_TENSOR", _V.DENSE_TENSOR_ARRAY: "LOD_TENSOR_ARRAY"}
_TENSOR_KINDS = frozenset([_V.DENSE_TENSOR, _V.DENSE_TENSOR_ARRAY, _V.SELECTED_ROWS])
# attributes Paddle's clip_extra drops from every op of a saved inference model
_CLIPPED_ALWAYS = frozenset(["op_callstack", "with_quant_attr"])


def table_op_types():
    """The op types the generated OpProto table should cover (for make_op_table.py)."""
    return sorted(set(REGISTRY) | HANDLED_OPS)


def known_op_type(op_type):
    """Whether the executor can run ``op_type`` (a registered op, feed/fetch, or the grad op of one)."""
    if op_type in REGISTRY or op_type in HANDLED_OPS:
        return True
    return op_type.endswith("_grad") and op_type[:-5] in REGISTRY


def _proto(op_type):
    """(attr types, extra attrs, inputs, outputs) of Paddle's OpProto; a grad op borrows its forward's."""
    found = _protos.OPS.get(op_type)
    if found is None and op_type.endswith("_grad"):
        found = _protos.OPS.get(op_type[:-5])
        if found is not None:
            return found[0], found[1], None, None
    return found


def _kind_code(var_type):
    return var_kind(getattr(var_type, "value", var_type))


def _kind_name(code):
    return _KIND_NAMES.get(code) or _V.Type.Name(code)


# -- Program -> ProgramDesc -------------------------------------------------------------------------------
def program_to_desc(program, clip_extra=False, training_info=True):
    """A ProgramDesc of ``program``. ``clip_extra`` drops what Paddle's inference save drops (attributes
    and empty slots its OpProto does not declare, extra attributes, call stacks); ``training_info=False``
    leaves out ``stop_gradient`` and ``is_parameter``, as Paddle's ``_remove_training_info`` does."""
    if not isinstance(program, Program):
        raise TypeError(f"program_to_desc: expected a Program, got {type(program).__name__}")
    desc = _pb.ProgramDesc()
    for block in program.blocks:
        bdesc = desc.blocks.add(idx=block.idx, parent_idx=block.parent_idx)
        if block.forward_block_idx != -1:
            bdesc.forward_block_idx = block.forward_block_idx
        for var in block.vars.values():
            bdesc.vars.append(_var_desc(var, training_info))
        extra_vars = {}
        for op in block.ops:
            bdesc.ops.append(_op_desc(op, block, clip_extra, extra_vars))
        for var_desc in extra_vars.values():
            bdesc.vars.append(var_desc)
    desc.version.version = _protos.PROGRAM_VERSION
    for name, version in _protos.OP_VERSIONS.items():
        desc.op_version_map.pair.add(op_name=name).op_version.version = version
    return desc


def program_to_desc_bytes(program, clip_extra=False, training_info=True):
    return serialize_program(program_to_desc(program, clip_extra, training_info))


def _var_desc(var, training_info):
    kind = _kind_code(var.var_type)
    tensor = kind in _TENSOR_KINDS
    is_param = training_info and isinstance(var, StaticParameter)
    return make_var_desc(
        var.name, list(var.desc_shape) if tensor else None, var.dtype.name if tensor else None, type=kind,
        persistable=var.persistable,
        # Paddle records the LoD level of computed tensors, not of persistable ones
        lod_level=int(var.lod_level or 0) if tensor and kind != _V.SELECTED_ROWS and not var.persistable else None,
        need_check_feed=bool(var.need_check_feed), stop_gradient=training_info and var.stop_gradient,
        is_parameter=is_param)


def _op_desc(op, block, clip_extra, extra_vars):
    proto = _proto(op.type)
    desc = _pb.OpDesc(type=op.type)
    declared_in = {s.rstrip("[]?") for s in proto[2]} if proto and proto[2] is not None else None
    declared_out = {s.rstrip("[]?") for s in proto[3]} if proto and proto[3] is not None else None
    outputs = _paddle_inplace(op)
    for field, slots, declared in ((desc.inputs, op.inputs, declared_in), (desc.outputs, outputs, declared_out)):
        for slot, names in slots.items():
            # an undeclared slot that holds variables stays: dropping it would change what the op computes
            if clip_extra and declared is not None and slot not in declared and not names:
                continue
            field.add(parameter=slot, arguments=list(names))
    if declared_out is not None:
        _add_required_outputs(op, block, desc, proto[3], extra_vars)
    types = dict(_protos.COMMON_ATTRS)
    extra = ()
    if proto:
        types.update(proto[0])
        extra = proto[1]
    # types a loaded file gave attributes Paddle's table does not know (ops of other versions, custom ops)
    from_file = getattr(op, "_attr_types", {})
    for name, value in op.attrs.items():
        if value is None:
            continue  # no attribute; a reader falls back to the op's default, which is None too
        if clip_extra and (name in _CLIPPED_ALWAYS or name in extra or
                           (declared_in is not None and name not in types)):
            continue
        desc.attrs.append(_encode(op, name, value, types.get(name, from_file.get(name))))
    if op.type.endswith("_grad"):
        # Paddle fills in a forward op's missing attributes when it loads it, not a grad op's (reduce_mean_grad
        # needs out_dtype): give the grad op what the forward op has in Paddle
        for name, value in _protos.DEFAULTS.get(op.type[:-5], {}).items():
            if name not in op.attrs:
                desc.attrs.append(_encode(op, name, value, types.get(name)))
    return desc


# outputs Paddle's kernels require to be the very variable of an input (running statistics updated in place)
_INPLACE = {"batch_norm": (("MeanOut", "Mean"), ("VarianceOut", "Variance"))}


def _paddle_inplace(op):
    pairs = _INPLACE.get(op.type)
    if not pairs:
        return op.outputs
    outputs = dict(op.outputs)
    for out_slot, in_slot in pairs:
        if op.inputs.get(in_slot) and out_slot in outputs:
            outputs[out_slot] = list(op.inputs[in_slot])
    return outputs


def _add_required_outputs(op, block, desc, declared, extra_vars):
    """Outputs Paddle's op must have but the registry's leaves out (reshape2's XShape, layer_norm's Mean and
    Variance) get variables in the file; Paddle computes them, nothing here reads them."""
    inputs = [n for names in op.inputs.values() for n in names]
    outs = [n for names in op.outputs.values() for n in names]
    x = block._find_var_recursive(inputs[0]) if inputs else None
    if x is None or not outs:
        return
    for spec in declared:
        slot = spec.rstrip("[]?")
        if spec.endswith("?") or slot in op.outputs:
            continue
        name = f"{outs[0]}.{slot.lower()}"
        # XShape holds the input's shape behind a 0; other shapes Paddle infers when it runs
        shape = [0] + list(x.desc_shape) if slot == "XShape" else [-1]
        desc.outputs.add(parameter=slot, arguments=[name])
        extra_vars[name] = make_var_desc(name, shape, x.dtype.name, lod_level=0)


def _plain(value):
    if isinstance(value, Block):
        return value.idx
    if isinstance(value, _dtype.dtype):
        return value.proto
    if isinstance(value, np.ndarray):
        return value.reshape(-1).tolist()
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def _coerce(value, code):
    """Make a Python value fit the AttrType Paddle declares (2 for 2.0, 0/1 for a bool...)."""
    scalar = {_A.FLOAT: float, _A.FLOAT64: float, _A.INT: int, _A.LONG: int, _A.BOOLEAN: bool}.get(code)
    if scalar is not None and isinstance(value, numbers.Number) and not isinstance(value, complex):
        return scalar(value)
    each = {_A.FLOATS: float, _A.FLOAT64S: float, _A.INTS: int, _A.LONGS: int, _A.BOOLEANS: bool}.get(code)
    if each is not None and isinstance(value, list) and all(isinstance(v, numbers.Real) for v in value):
        return [each(v) for v in value]
    if code == _A.SCALAR and isinstance(value, list) and len(value) == 1:
        return value[0]
    if code == _A.STRING and isinstance(value, numbers.Real) and not isinstance(value, bool):
        return str(value)   # Paddle keeps some tolerances (isclose's rtol/atol) as strings
    return value


def _encode(op, name, value, code):
    if isinstance(value, Block):
        code = _A.BLOCK
    elif isinstance(value, (list, tuple)) and value and all(isinstance(v, Block) for v in value):
        code = _A.BLOCKS
    value = _plain(value)
    if code is None and isinstance(value, list) and not value:
        code = _A.INTS  # nothing tells the type of an empty list; Paddle's front end picks INTS too
    if code is not None:
        value = _coerce(value, code)
    try:
        return encode_attr(name, value, code)
    except (TypeError, ValueError) as e:
        raise ValueError(f"op {op.type}: attribute {name!r} = {value!r} cannot be saved"
                         f"{' as ' + _A.Name(code) if code is not None else ''}: {e}") from None


# -- ProgramDesc -> Program -------------------------------------------------------------------------------
def program_from_desc_bytes(data):
    """``Program.parse_from_string``: bytes of a `.pdmodel` -> Program."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise TypeError(f"Program.parse_from_string: expected bytes, got {type(data).__name__}")
    return program_from_desc(parse_program(bytes(data)))


def program_from_desc(desc):
    program = Program()
    program.blocks = [Block(program, b.idx, b.parent_idx) for b in desc.blocks]
    for block, bdesc in zip(program.blocks, desc.blocks):
        block.forward_block_idx = bdesc.forward_block_idx
        for vdesc in bdesc.vars:
            block.vars[vdesc.name] = _variable(block, vdesc)
    for block, bdesc in zip(program.blocks, desc.blocks):
        for odesc in bdesc.ops:
            attrs = {}
            defaults = REGISTRY[odesc.type].attrs if odesc.type in REGISTRY else {}
            for a in odesc.attrs:
                value = decode_attr(a)
                if a.type == _A.BLOCK:
                    value = program.blocks[value]
                elif a.type == _A.BLOCKS:
                    value = [program.blocks[i] for i in value]
                elif a.type == _A.STRING and isinstance(defaults.get(a.name), float):
                    value = _float_text(odesc.type, a.name, value)
                attrs[a.name] = value
            op = Operator(block, odesc.type, {s.parameter: list(s.arguments) for s in odesc.inputs},
                          {s.parameter: list(s.arguments) for s in odesc.outputs}, attrs)
            op._attr_types = {a.name: a.type for a in odesc.attrs}
            block.ops.append(op)
            for name in op.output_arg_names:
                var = block._find_var_recursive(name)
                if var is not None:
                    var.op = op
    program._desc_version = desc.version.version if desc.HasField("version") else 0
    program._current_block_idx = 0
    program._invalidate()
    return program


def _float_text(op_type, name, value):
    try:
        return float(value)
    except ValueError:
        raise ValueError(f"ProgramDesc: op {op_type}: attribute {name!r} = {value!r} is not a number") from None


def _variable(block, vdesc):
    kind = vdesc.type.type
    tensor = None
    if kind == _V.DENSE_TENSOR and vdesc.type.HasField("dense_tensor"):
        holder = vdesc.type.dense_tensor
        tensor = holder.tensor
    elif kind == _V.DENSE_TENSOR_ARRAY and vdesc.type.HasField("tensor_array"):
        holder = vdesc.type.tensor_array
        tensor = holder.tensor
    elif kind == _V.SELECTED_ROWS and vdesc.type.HasField("selected_rows"):
        holder, tensor = None, vdesc.type.selected_rows
    else:
        holder = None
    if tensor is not None:
        try:
            dtype = _dtype.convert_dtype(tensor.data_type)
        except (TypeError, ValueError):
            raise ValueError(f"ProgramDesc: variable {vdesc.name!r} has element type "
                             f"{_V.Type.Name(tensor.data_type)}, which torchpaddle does not support") from None
        shape = list(tensor.dims)
    else:
        dtype, shape = _dtype.DTYPES["float32"], []
    lod_level = holder.legacy_lod_level if holder is not None else 0
    common = dict(name=vdesc.name, shape=shape, dtype=dtype)
    if vdesc.is_parameter:
        if any(d < 0 for d in shape):
            raise ValueError(f"ProgramDesc: parameter {vdesc.name!r} has unknown dims {shape}")
        var = StaticParameter(block, trainable=not vdesc.stop_gradient, lod_level=lod_level,
                              type=_kind_name(kind), **common)
        var.persistable = vdesc.persistable
    else:
        var = Variable(block, persistable=vdesc.persistable, stop_gradient=vdesc.stop_gradient,
                       lod_level=lod_level, type=_kind_name(kind), is_data=vdesc.need_check_feed,
                       need_check_feed=vdesc.need_check_feed, **common)
    return var


def check_op_types(program):
    """ValueError naming every op type of ``program`` that torchpaddle cannot run."""
    unknown = {}
    for block in program.blocks:
        for i, op in enumerate(block.ops):
            if not known_op_type(op.type):
                unknown.setdefault(op.type, (block.idx, i))
    if unknown:
        where = ", ".join(f"{t!r} (block {b}, op {i})" for t, (b, i) in sorted(unknown.items()))
        raise ValueError(f"the program uses op types that are not registered in torchpaddle: {where}")


# -- feed / fetch ops ---------------------------------------------------------------------------------------
def _targets(program, op_type, slot):
    found = []
    for op in program.global_block().ops:
        if op.type == op_type:
            names = op.outputs.get(slot) if op_type == "feed" else op.inputs.get(slot)
            if names:
                found.append((op.attrs.get("col", len(found)), names[0]))
    return [name for _, name in sorted(found, key=lambda p: p[0])]


def feed_target_names(program):
    """Names fed by the program's feed ops, by column (Paddle's ``desc.get_feed_target_names()``)."""
    return _targets(program, "feed", "Out")


def fetch_target_names(program):
    return _targets(program, "fetch", "X")


_hooks.provide("program_from_desc_bytes", program_from_desc_bytes)   # Program.parse_from_string
_hooks.provide("program_to_desc_bytes", program_to_desc_bytes)   # Program.desc_bytes
