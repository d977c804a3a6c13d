"""Program <-> Paddle 3's PIR program (the `.json` format of serialization.pir_json), op by op through the
table of pir_op_map.

Reading gives the legacy-IR Program the executor runs: ``builtin.parameter`` values become persistable
Variables of the parameter's name, ``pd_op.data`` a fed Variable (a ``feed`` op, column by order), ``pd_op.fetch``
a ``fetch`` op; PIR values get names like ``matmul_v2_0.tmp_0``. Operands that carry a legacy attribute (reshape's
shape, dropout's p) are read from the constant op making them, which is dropped when nothing else uses it. Each
op's declared result types are checked against what the op infers from its inputs, so a file lying about a
shape or dtype is refused at load time. An op with no row in the table, or a control-flow op, is a ValueError
naming every such op; nothing in a file is executed.

Writing gives what PaddlePaddle 3.3.1 writes and loads: parameters (sorted by name) first, a ``pd_op.data`` per
feed, the ops, a ``pd_op.fetch`` per fetch target; every attribute with the JSON type Paddle's op declares.
"""
import collections
import os
import warnings

from ..framework import dtype as _dtype
from ..framework.program import Block, Program, StaticParameter
from ..ops.registry import REGISTRY, REQUIRED
from . import pir_op_map as _map
from .append import infer_outputs
from .prune import _add_feed_fetch
from .serialization import pir_json as _pj

__all__ = ["program_from_pir", "program_from_pir_bytes", "program_to_pir", "program_to_pir_bytes", "pir_enabled",
           "is_pir_bytes", "model_file", "model_bytes", "NoPirForm", "MODEL_SUFFIXES"]

MODEL_SUFFIXES = (".json", ".pdmodel")

# PIR ops the reader handles itself (the graph's plumbing and its ends)
_PLUMBING = frozenset(["builtin.parameter", "builtin.combine", "builtin.split", "builtin.slice", "pd_op.data",
                       "pd_op.feed", "pd_op.fetch", "builtin.shadow_output"])
# attributes PIR ops may carry beside their own; never part of the translation
_ANNOTATIONS = frozenset(["struct_name", "op_callstack", "op_role", "chunk_id", "op_namescope", "is_persistable",
                          "stop_gradient", "persistable", "origin_id"])
# PIR ops whose result dtype the legacy op does not give: a cast follows it
_CAST_AFTER = {"pd_op.shape64": "int64"}
_CONTROL_FLOW = frozenset(["pd_op.if", "pd_op.while", "pd_op.pylayer", "cf.yield"])


class NoPirForm(ValueError):
    """The program holds what the table cannot write as PIR (an op with no row, control flow)."""


# -- which format ----------------------------------------------------------------------------------------------
def pir_enabled():
    """FLAGS_enable_pir_api (default True): saves write the `.json` program, as PaddlePaddle 3.3.1 does."""
    from ..framework.flags import get_flags
    return bool(get_flags("FLAGS_enable_pir_api")["FLAGS_enable_pir_api"])


def is_pir_bytes(data):
    """Whether model bytes are a `.json` PIR program (a ProgramDesc protobuf never starts with ``{``)."""
    return bytes(data[:64]).lstrip()[:1] == b"{"


def model_bytes(program, legacy_bytes, who):
    """(suffix, bytes) of the program file a save writes: ``.json`` when FLAGS_enable_pir_api is on, as Paddle;
    the legacy ``.pdmodel`` (``legacy_bytes()``) with it off, or, with a warning, when an op has no PIR form."""
    if pir_enabled():
        try:
            return ".json", program_to_pir_bytes(program)
        except NoPirForm as e:
            warnings.warn(f"{who}: {e}; writing the legacy .pdmodel program instead (the format of "
                          f"FLAGS_enable_pir_api=0, which Paddle 3.3.1 loads with that flag off)")
    return ".pdmodel", legacy_bytes()


def model_file(prefix):
    """The program file of a saved model: ``prefix.json`` or ``prefix.pdmodel``, whichever exists; with both, the
    one FLAGS_enable_pir_api picks (as Paddle, which reads only that one); with neither, that one too."""
    found = [prefix + s for s in MODEL_SUFFIXES if os.path.isfile(prefix + s)]
    if len(found) == 1:
        return found[0]
    return prefix + (".json" if pir_enabled() else ".pdmodel")


# -- reading -------------------------------------------------------------------------------------------------
def program_from_pir_bytes(data):
    """Bytes of a `.json` program -> Program (with feed/fetch ops)."""
    return program_from_pir(_pj.parse_program(data))


def program_from_pir(pir):
    if not isinstance(pir, _pj.PirProgram):
        raise TypeError(f"program_from_pir: expected a PirProgram, got {type(pir).__name__}")
    return _Reader(pir).run()


class _Reader:
    def __init__(self, pir):
        self.pir = pir
        self.program = Program()
        self.block = self.program.global_block()
        self.names = {}        # value id -> variable name
        self.vectors = {}      # value id -> [value ids] (builtin.combine) or [names] (a vector result)
        self.producers = {}    # value id -> Op
        self.types = {}        # value id -> PirType
        self.counts = collections.Counter()
        self.feeds, self.fetches = [], []
        self.unknown = {}

    def fail(self, index, op, message):
        raise ValueError(f"PIR program: op {index} ({op.name}): {message}")

    def run(self):
        block = self.pir.global_block()
        if block.args:
            raise ValueError("PIR program: the global block takes arguments; it is not a program")
        for index, op in enumerate(block.ops):
            for vid, t in op.results:
                self.producers[vid] = op
                self.types[vid] = t
            if op.regions or op.name in _CONTROL_FLOW:
                self.unknown.setdefault(op.name + " (control flow)", index)
            elif op.name not in _PLUMBING and op.name not in _EXPANDED and not (
                    op.name in _map.BY_PIR and _map.BY_PIR[op.name].legacy in REGISTRY):
                self.unknown.setdefault(op.name, index)
        if self.unknown:   # all of them at once, before anything is translated
            where = ", ".join(f"{name!r} (op {i})" for name, i in sorted(self.unknown.items()))
            raise ValueError(f"PIR program: torchpaddle cannot run these ops: {where}")
        for index, op in enumerate(block.ops):
            self.op(index, op)
        if not self.fetches:
            raise ValueError("PIR program: it has no pd_op.fetch (it is not an inference program)")
        fetch_names = [name for _, name in sorted(self.fetches, key=lambda p: p[0])]
        self.prune(fetch_names)
        _add_feed_fetch(self.program, self.feeds, fetch_names)
        self.program._invalidate()
        return self.program

    # values -> names ------------------------------------------------------------------------------------
    def name_of(self, index, op, vid):
        name = self.names.get(vid)
        if name is None:
            what = "a vector" if vid in self.vectors else "not a tensor this reader knows"
            self.fail(index, op, f"operand %{vid} is {what}")
        return name

    def vector_of(self, index, op, vid):
        items = self.vectors.get(vid)
        if items is None:
            self.fail(index, op, f"operand %{vid} is not a vector (made by builtin.combine)")
        return [self.name_of(index, op, v) if isinstance(v, int) else v for v in items]

    def new_name(self, prefix, k):
        n = self.counts[prefix]
        name = f"{prefix}_{n}.tmp_{k}"
        while name in self.block.vars:
            self.counts[prefix] += 1
            name = f"{prefix}_{self.counts[prefix]}.tmp_{k}"
        return name

    def new_var(self, name, pir_type, stop_gradient=True, **kwargs):
        if pir_type.kind != "dense":
            raise ValueError(f"PIR program: value {name!r} has type {pir_type!r}; only dense tensors are supported")
        return self.block.create_var(name=name, shape=pir_type.shape, dtype=pir_type.dtype,
                                     stop_gradient=stop_gradient, **kwargs)

    def constant(self, vid):
        """The value a constant op gives ``vid`` (a scalar, or a list), or None when it is computed."""
        producer = self.producers.get(vid)
        if producer is None:
            items = self.vectors.get(vid)
            if items is None or not all(isinstance(v, int) for v in items):
                return None
            values = [self.constant(v) for v in items]
            if any(v is None or isinstance(v, list) and len(v) != 1 for v in values):
                return None
            return [v[0] if isinstance(v, list) else v for v in values]
        if producer.name == "pd_op.full":
            shape = producer.attr("shape") or []
            numel = 1
            for d in shape:
                numel *= d
            value = producer.attr("value")
            return value if numel == 1 else [value] * numel if 0 <= numel <= 64 else None
        if producer.name == "pd_op.full_int_array":
            return list(producer.attr("value") or [])
        if producer.name in ("pd_op.assign_value", "pd_op.assign_value_"):
            return list(producer.attr("values") or [])
        if producer.name == "builtin.combine":
            return self.constant_vector(producer)
        return None

    def constant_vector(self, combine):
        values = [self.constant(v) for v in combine.operands]
        if any(v is None or isinstance(v, list) and len(v) != 1 for v in values):
            return None
        return [v[0] if isinstance(v, list) else v for v in values]

    # ops -------------------------------------------------------------------------------------------------
    def op(self, index, op):
        name = op.name
        if name in _EXPANDED:
            _EXPANDED[name](self, index, op)
        elif name == "builtin.parameter":
            self.parameter(index, op)
        elif name in ("pd_op.data", "pd_op.feed"):
            self.data(index, op)
        elif name in ("pd_op.fetch", "builtin.shadow_output"):
            if len(op.operands) != 1 or op.operands[0] == 0:
                self.fail(index, op, "a fetch takes one value")
            col = op.attr("col", len(self.fetches))
            self.fetches.append((col, self.name_of(index, op, op.operands[0])))
        elif name == "builtin.combine":
            (vid, _), = self.one_result(index, op)
            self.vectors[vid] = list(op.operands)
        elif name in ("builtin.split", "builtin.slice"):
            items = self.vector_of(index, op, op.operands[0]) if len(op.operands) == 1 else \
                self.fail(index, op, "takes one vector")
            picked = items if name == "builtin.split" else [items[op.attr("index", -1)]] \
                if 0 <= op.attr("index", -1) < len(items) else self.fail(index, op, "index out of range")
            if len(picked) != len(op.results):
                self.fail(index, op, f"gives {len(op.results)} values of a vector of {len(picked)}")
            for (vid, _), item in zip(op.results, picked):
                self.names[vid] = item
        else:
            self.translate(index, op, _map.BY_PIR[name])

    def one_result(self, index, op):
        if len(op.results) != 1:
            self.fail(index, op, f"expected one result, got {len(op.results)}")
        return op.results

    def parameter(self, index, op):
        (vid, t), = self.one_result(index, op)
        name = op.attr("parameter_name")
        if not name or name in self.block.vars:
            self.fail(index, op, f"parameter name {name!r} is empty or used twice")
        if t.kind != "dense" or any(d < 0 for d in t.shape):
            self.fail(index, op, f"parameter {name!r} must be a dense tensor of known shape, got {t!r}")
        if op.extra.get("DA"):
            self.fail(index, op, f"parameter {name!r} is distributed (auto-parallel), which is not supported")
        persistable = op.result_flag("persistable", default=True)
        if persistable:
            var = StaticParameter(self.block, t.shape, t.dtype, name=name,
                                  trainable=not op.result_flag("stop_gradient"))
            self.block.vars[name] = var
        else:
            # Paddle's rnn state: a parameter nothing loads (read by no op torchpaddle runs)
            self.new_var(name, t)
        self.names[vid] = name

    def data(self, index, op):
        (vid, t), = self.one_result(index, op)
        name = op.attr("name")
        if not isinstance(name, str) or not name or name in self.block.vars:
            self.fail(index, op, f"input name {name!r} is empty or used twice")
        if op.result_flag("persistable"):
            self.new_var(name, t, persistable=True)
        else:
            self.new_var(name, t, stop_gradient=op.result_flag("stop_gradient", default=True), is_data=True,
                         need_check_feed=True)
            self.feeds.append(name)
        self.names[vid] = name

    def translate(self, index, op, row):
        opdef = REGISTRY[row.legacy]
        operands, attr_tags, results, _ = _map.signature(row.pir)
        if len(op.operands) != len(operands) or len(op.results) != len(results):
            self.fail(index, op, f"has {len(op.operands)} operands and {len(op.results)} results; Paddle 3.3.1's "
                                 f"op has {len(operands)} ({', '.join(operands)}) and {len(results)}")
        inputs, attrs = {}, dict(row.requires)
        for spec, pir_name, vid in zip(row.operands, operands, op.operands):
            if spec in (_map.IGNORED, _map.STATE) or vid == 0:
                continue
            if isinstance(spec, _map.Folded):
                self.folded(index, op, row, spec, pir_name, vid, inputs, attrs)
            elif spec.endswith("[]"):
                inputs[spec[:-2]] = self.vector_of(index, op, vid)
            else:
                inputs[spec] = [self.name_of(index, op, vid)]
        for pir_attr, value in op.attrs.items():
            found = row.legacy_attr(pir_attr)
            if found is None:
                continue
            legacy, convert = found
            value = value.plain()
            try:
                attrs[legacy] = convert.to_legacy(value) if convert is not None else value
            except (TypeError, ValueError) as e:
                self.fail(index, op, f"attribute {pir_attr!r} = {value!r} is not a valid {row.legacy} "
                                     f"{legacy!r}: {e}")
        if row.derive is not None:
            attrs.update(row.derive(attrs))
        missing = [k for k, v in opdef.attrs.items() if v is REQUIRED and k not in attrs]
        if missing:
            self.fail(index, op, f"gives no value for {row.legacy}'s attribute(s) {missing}")
        for slot in opdef.inputs:
            if not slot.optional and slot.name not in inputs:
                self.fail(index, op, f"gives no value for {row.legacy}'s input {slot.name}")
        outputs = self.results(index, op, row, opdef, inputs)
        self.check_types(index, op, row, opdef, inputs, attrs, outputs)
        self.block.append_op(row.legacy, inputs, outputs, attrs)
        cast = _CAST_AFTER.get(op.name)
        if cast is not None:
            (vid, t), = op.results
            final = self.new_name("cast", 0)
            self.new_var(final, t)
            self.block.append_op("cast", {"X": outputs["Out"]}, {"Out": [final]},
                                 {"in_dtype": -1, "out_dtype": _dtype.DTYPES[cast].proto})
            self.names[vid] = final

    def folded(self, index, op, row, spec, pir_name, vid, inputs, attrs):
        value = self.constant(vid)
        if value is not None:
            if spec.kind == "ints":
                value = value if isinstance(value, list) else [value]
                if not all(isinstance(v, (int, float)) and v == v and abs(v) < 2 ** 63 for v in value):
                    self.fail(index, op, f"operand {pir_name!r} holds {value!r}, expected integers")
                value = [int(v) for v in value]
                if row.reduce and not value:
                    attrs["reduce_all"] = True
            else:
                if isinstance(value, list):
                    if len(value) != 1:
                        self.fail(index, op, f"operand {pir_name!r} holds {len(value)} values, expected one")
                    value = value[0]
                if not isinstance(value, (int, float)) or value != value and not spec.kind.startswith("float"):
                    self.fail(index, op, f"operand {pir_name!r} holds {value!r}, expected a number")
                value = float(value) if spec.kind.startswith("float") else int(value)
            attrs[spec.attr] = value
            return
        if vid in self.vectors and spec.tensors:
            inputs[spec.tensors] = self.vector_of(index, op, vid)
            size = len(inputs[spec.tensors])
        elif vid in self.names and spec.tensor:
            inputs[spec.tensor] = [self.name_of(index, op, vid)]
            dims = self.block.vars[inputs[spec.tensor][0]].desc_shape
            size = dims[0] if len(dims) == 1 and dims[0] >= 0 else 0
        else:
            self.fail(index, op, f"operand {pir_name!r} is computed at run time; torchpaddle's {row.legacy} takes "
                                 f"{spec.attr!r} only as a constant")
        if REGISTRY[row.legacy].attrs.get(spec.attr) is REQUIRED:
            attrs[spec.attr] = [-1] * size   # given by the tensors; the attribute says only how many

    def results(self, index, op, row, opdef, inputs):
        outputs = {}
        _, _, result_names, _ = _map.signature(row.pir)
        for k, (spec, pir_name, (vid, t)) in enumerate(zip(row.results, result_names, op.results)):
            if spec is None:
                continue
            slot = spec.rstrip("[]")
            if spec.endswith("[]"):
                if t.kind != "vector":
                    self.fail(index, op, f"result {pir_name!r} must be a vector, got {t!r}")
                names = []
                for j, item in enumerate(t.items):
                    name = self.new_name(row.legacy, len(names) + k)
                    self.new_var(name, item, stop_gradient=op.result_flag("stop_gradient", k, default=True))
                    names.append(name)
                self.vectors[vid] = names
                outputs[slot] = names
                continue
            in_place = row.inplace.get(slot)
            if in_place is not None and inputs.get(in_place):
                name = inputs[in_place][0]
            else:
                name = self.new_name(row.legacy, k)
                self.new_var(name, t, stop_gradient=op.result_flag("stop_gradient", k, default=True))
            self.names[vid] = name
            outputs[slot] = [name]
        for slot in opdef.outputs:
            if slot.name not in outputs and not slot.is_list:
                # a legacy output PIR does not have: a variable nothing reads
                first = next(iter(inputs.values()), [None])
                like = self.block.vars.get(first[0]) if first else None
                name = self.new_name(row.legacy, len(op.results) + len(outputs))
                self.block.create_var(name=name, shape=[-1], dtype=like.dtype if like is not None else None)
                outputs[slot.name] = [name]
        # a result the legacy op does not have gets no name: an op reading it is refused (name_of)
        return outputs

    def check_types(self, index, op, row, opdef, inputs, attrs, outputs):
        """The result types the file declares must agree with what the op infers from its inputs."""
        args = []
        for slot in opdef.inputs:
            names = inputs.get(slot.name)
            if names is None:
                args.append([] if slot.is_list else None)
            else:
                found = [self.block.vars[n] for n in names]
                args.append(found if slot.is_list else found[0])
        full = dict(opdef.attrs)
        full.update(attrs)
        try:
            described = infer_outputs(opdef, args, full)
        except Exception as e:  # noqa: BLE001 - whatever the kernel raises: the inputs do not fit the op
            self.fail(index, op, f"its inputs do not fit {row.legacy}: {type(e).__name__}: {e}")
        structured = [described] if len(opdef.outputs) == 1 else list(described)
        for k, (slot, desc) in enumerate(zip(opdef.outputs, structured)):
            names = outputs.get(slot.name, [])
            descs = desc if slot.is_list else [desc]
            # the op's results proper; kernels' side outputs (saved statistics, masks, reserve) differ in form
            if op.name in _CAST_AFTER or desc is None or (k > 0 and not slot.is_list):
                continue
            for name, d in zip(names, descs):
                if d is None or slot.name in row.inplace:
                    continue
                var = self.block.vars[name]
                shape, dtype = d
                declared = list(var.desc_shape)
                if len(shape) != len(declared) or any(a >= 0 and b >= 0 and a != b for a, b in zip(shape, declared)):
                    self.fail(index, op, f"the file says result {slot.name} has shape {declared}, but {row.legacy} "
                                         f"of these inputs gives {list(shape)}")
                if dtype is not None and dtype.name != var.dtype.name:
                    self.fail(index, op, f"the file says result {slot.name} is {var.dtype.name}, but {row.legacy} "
                                         f"of these inputs gives {dtype.name}")

    def pow(self, index, op):
        """pd_op.pow (a constant exponent): elementwise_pow with the exponent as a 0-D tensor of x's dtype."""
        if len(op.operands) != 1 or len(op.results) != 1 or op.operands[0] == 0:
            self.fail(index, op, "expected one operand and one result")
        x = self.name_of(index, op, op.operands[0])
        factor = op.attr("y", 1.0)
        if not isinstance(factor, float):
            self.fail(index, op, f"attribute 'y' must be a number, got {factor!r}")
        dtype = self.block.vars[x].dtype
        exponent = self.new_name("fill_constant", 0)
        self.block.create_var(name=exponent, shape=[], dtype=dtype)
        self.block.append_op("fill_constant", {}, {"Out": [exponent]},
                             {"shape": [], "value": factor, "dtype": dtype.proto})
        (vid, t), = op.results
        out = self.new_name("elementwise_pow", 0)
        self.new_var(out, t, stop_gradient=op.result_flag("stop_gradient", default=True))
        self.block.append_op("elementwise_pow", {"X": [x], "Y": [exponent]}, {"Out": [out]}, {"axis": -1})
        self.names[vid] = out

    def prune(self, fetch_names):
        """Drop ops nothing fetched depends on (constants folded into attributes), then unused variables."""
        needed = set(fetch_names)
        kept = []
        for op in reversed(self.block.ops):
            if any(n in needed for n in op.output_arg_names):
                kept.append(op)
                needed.update(op.input_arg_names)
        kept.reverse()
        self.block.ops = kept
        used = set(fetch_names) | set(self.feeds)
        for op in kept:
            used.update(op.input_arg_names)
            used.update(op.output_arg_names)
        for name in [n for n in self.block.vars if n not in used]:
            del self.block.vars[name]


# PIR ops with no single legacy op: the reader writes a few legacy ops for each
_EXPANDED = {"pd_op.pow": _Reader.pow}


# -- writing -------------------------------------------------------------------------------------------------
def program_to_pir_bytes(program):
    return _pj.serialize_program(program_to_pir(program))


def program_to_pir(program):
    """A normalized inference Program (feed/fetch ops, as normalize_program makes) -> PirProgram."""
    if not isinstance(program, Program):
        raise TypeError(f"program_to_pir: expected a Program, got {type(program).__name__}")
    return _Writer(program).run()


class _Writer:
    def __init__(self, program):
        self.program = program
        self.block = program.global_block()
        self.ops = []
        self.next_id = 1
        self.values = {}     # variable name -> value id holding it now
        self.types = {}      # value id -> PirType

    def value(self, type_):
        vid = self.next_id
        self.next_id += 1
        self.types[vid] = type_
        return vid

    def emit(self, name, operands, result_types, attrs=None, stop_gradient=None):
        results = [[self.value(t), t] for t in result_types]
        op = _pj.Op(name, operands, results, attrs or {})
        if name != "builtin.parameter":
            flags = stop_gradient if stop_gradient is not None else [True] * len(results)
            op.result_attrs["stop_gradient"] = _pj.make_attr("a_array:a_bool", [bool(f) for f in flags])
        self.ops.append(op)
        return [vid for vid, _ in results]

    def var_type(self, name):
        var = self.block._find_var_recursive(name)
        if var is None:
            raise ValueError(f"program_to_pir: variable {name!r} is not in the program")
        return _pj.PirType.dense(var.dtype.name, var.desc_shape)

    def read(self, name, where):
        vid = self.values.get(name)
        if vid is None:
            raise ValueError(f"program_to_pir: {where} reads variable {name!r}, which nothing writes before it "
                             "(not a parameter, a fed input or an earlier op's output)")
        return vid

    def run(self):
        if len(self.program.blocks) > 1 or any(isinstance(v, Block) or isinstance(v, list) and
                                               any(isinstance(b, Block) for b in v)
                                               for op in self.block.ops for v in op.attrs.values()):
            raise NoPirForm("program_to_pir: the program has sub-blocks (control flow), which torchpaddle cannot "
                            "write as PIR")
        feeds = sorted((op.attrs.get("col", 0), op.output("Out")[0]) for op in self.block.ops if op.type == "feed")
        fetches = sorted((op.attrs.get("col", 0), op.input("X")[0]) for op in self.block.ops if op.type == "fetch")
        for var in sorted((v for v in self.block.vars.values() if _is_value(v)), key=lambda v: v.name):
            self.parameter(var)
        for _, name in feeds:
            self.data(name)
        for op in self.block.ops:
            if op.type not in ("feed", "fetch"):
                self.op(op)
        for col, (_, name) in enumerate(fetches):
            t = self.types[self.read(name, "fetch")]
            self.emit("pd_op.fetch", [self.values[name]], [t],
                      {"name": _pj.make_attr("a_str", f"fetch_name_{col}"), "col": _pj.make_attr("a_i32", col)},
                      stop_gradient=[False])
            self.ops[-1].result_attrs = {"persistable": _pj.make_attr("a_array:a_bool", [True]),
                                         "stop_gradient": _pj.make_attr("a_array:a_bool", [False])}
        return _pj.PirProgram(_pj.Region([_pj.Block((), self.ops)]))

    def parameter(self, var):
        if any(d < 0 for d in var.desc_shape):
            raise ValueError(f"program_to_pir: persistable variable {var.name!r} has unknown dims "
                             f"{list(var.desc_shape)}")
        trainable = isinstance(var, StaticParameter) and var.trainable
        t = self.var_type(var.name)
        attrs = {"parameter_name": _pj.make_attr("a_str", var.name), "is_distributed": _pj.make_attr("a_bool", False),
                 "is_parameter": _pj.make_attr("a_bool", True), "need_clip": _pj.make_attr("a_bool", True)}
        (vid,) = self.emit("builtin.parameter", [], [t], attrs)
        self.ops[-1].result_attrs = {k: _pj.make_attr("a_array:a_bool", [v]) for k, v in
                                     (("persistable", True), ("stop_gradient", bool(var.stop_gradient)),
                                      ("trainable", trainable))}
        self.values[var.name] = vid

    def data(self, name):
        var = self.block.var(name)
        t = self.var_type(name)
        attrs = {"name": _pj.make_attr("a_str", name), "shape": _pj.make_attr("a_intarray", list(t.shape)),
                 "dtype": _pj.make_attr("a_dtype", t.dtype), "place": _pj.make_attr("a_place", [0, 0, ""])}
        (vid,) = self.emit("pd_op.data", [], [t], attrs, stop_gradient=[bool(var.stop_gradient)])
        self.values[name] = vid

    def state(self, op):
        """A non-persistable parameter for an op's internal state, named after the op's first output."""
        name = f"{op.output_arg_names[0]}.dropout_state__non_persistable"
        attrs = {"parameter_name": _pj.make_attr("a_str", name), "is_distributed": _pj.make_attr("a_bool", False),
                 "is_parameter": _pj.make_attr("a_bool", True), "need_clip": _pj.make_attr("a_bool", True)}
        (vid,) = self.emit("builtin.parameter", [], [_pj.PirType.dense("uint8", [])], attrs)
        self.ops[-1].result_attrs = {k: _pj.make_attr("a_array:a_bool", [v]) for k, v in
                                     (("persistable", False), ("stop_gradient", True), ("trainable", False))}
        return vid

    # constants PIR passes as operands ----------------------------------------------------------------------
    def constant(self, kind, value, where):
        if kind == "ints":
            values = [int(v) for v in (value if isinstance(value, (list, tuple)) else [value])]
            attrs = {"value": _pj.make_attr("a_array:a_i64", values), "dtype": _pj.make_attr("a_dtype", "int64"),
                     "place": _pj.make_attr("a_place", [1, 0, ""])}
            return self.emit("pd_op.full_int_array", [], [_pj.PirType.dense("int64", [len(values)])], attrs)[0]
        if isinstance(value, (list, tuple)):
            if len(value) != 1:
                raise ValueError(f"program_to_pir: {where} must be one number, got {value!r}")
            value = value[0]
        if not isinstance(value, (int, float)) or isinstance(value, bool) and kind.startswith("float"):
            raise ValueError(f"program_to_pir: {where} must be a number, got {value!r}")
        attrs = {"shape": _pj.make_attr("a_intarray", [1]), "value": _pj.make_attr("a_f64", float(value)),
                 "dtype": _pj.make_attr("a_dtype", kind), "place": _pj.make_attr("a_place", [1, 0, ""])}
        return self.emit("pd_op.full", [], [_pj.PirType.dense(kind, [1])], attrs)[0]

    def combine(self, names, where):
        ids = [self.read(n, where) for n in names]
        t = _pj.PirType.vector([self.types[i] for i in ids])
        return self.emit("builtin.combine", ids, [t])[0]

    # ops --------------------------------------------------------------------------------------------------
    def op(self, op):
        if op.type == "strided_slice" and all(s == 1 for s in op.attrs.get("strides", [])):
            op = _Shim(op, "slice", {k: op.attrs[k] for k in ("axes", "starts", "ends", "infer_flags",
                                                                "decrease_axis") if k in op.attrs})
        rows = [r for r in _map.BY_LEGACY.get(op.type, ()) if r.write]
        if not rows:
            raise NoPirForm(f"program_to_pir: op {op.type} has no PIR form in torchpaddle's table (pir_op_map)")
        overrides = self.broadcast_axis(op, rows[0])
        problems = []
        for row in rows:
            problem = self.misfit(row, op, overrides)
            if problem is None:
                return self.write(row, op, overrides)
            problems.append(f"{row.pir}: {problem}")
        raise NoPirForm(f"program_to_pir: op {op.type} cannot be written as PIR ({'; '.join(problems)})")

    def attr(self, op, name):
        value = op.attrs.get(name, REGISTRY[op.type].attrs.get(name) if op.type in REGISTRY else None)
        return None if value is REQUIRED else value

    def misfit(self, row, op, overrides):
        for name, wanted in row.requires.items():
            value = self.attr(op, name)
            if name in overrides.get("attrs", {}):
                value = overrides["attrs"][name]
            if _plain(value) != _plain(wanted):
                return f"needs {name}={wanted!r}, the op has {value!r}"
        covered = set()
        for spec in row.operands:
            if isinstance(spec, _map.Folded):
                covered.update(s for s in (spec.tensor, spec.tensors) if s)
            elif spec != _map.IGNORED:
                covered.add(spec.rstrip("[]"))
        extra = [slot for slot, names in op.inputs.items() if names and slot not in covered]
        if extra:
            return f"it has no operand for input(s) {extra}"
        return None

    def broadcast_axis(self, op, row):
        """A legacy elementwise op broadcasting Y at ``axis`` (not trailing): Y unsqueezed to X's rank first."""
        if row.requires.get("axis") != -1 or self.attr(op, "axis") in (-1, None):
            return {}
        x, y = (self.block._find_var_recursive(op.input(s)[0]) for s in ("X", "Y"))
        axis, rank_x, rank_y = self.attr(op, "axis"), len(x.desc_shape), len(y.desc_shape)
        axis = axis + rank_x if axis < 0 else axis
        if rank_y == rank_x or axis + rank_y == rank_x:
            return {"attrs": {"axis": -1}}
        if not 0 <= axis <= rank_x - rank_y:
            raise ValueError(f"program_to_pir: op {op.type}: axis={self.attr(op, 'axis')} does not fit X of rank "
                             f"{rank_x} and Y of rank {rank_y}")
        axes = list(range(axis)) + list(range(axis + rank_y, rank_x))
        shape = [1] * axis + list(y.desc_shape) + [1] * (rank_x - axis - rank_y)
        axes_id = self.constant("ints", axes, f"{op.type} axis")
        (vid,) = self.emit("pd_op.unsqueeze", [self.read(y.name, op.type), axes_id],
                           [_pj.PirType.dense(y.dtype.name, shape)], stop_gradient=[y.stop_gradient])
        return {"attrs": {"axis": -1}, "inputs": {"Y": vid}}

    def write(self, row, op, overrides):
        operand_names, attr_tags, result_names, result_dtypes = _map.signature(row.pir)
        where = f"op {op.type}"
        operands = []
        for spec, pir_name in zip(row.operands, operand_names):
            if spec == _map.IGNORED:
                operands.append(0)
            elif spec == _map.STATE:
                operands.append(self.state(op))
            elif isinstance(spec, _map.Folded):
                if spec.tensor and op.input(spec.tensor):
                    operands.append(self.read(op.input(spec.tensor)[0], where))
                elif spec.tensors and op.input(spec.tensors):
                    operands.append(self.combine(op.input(spec.tensors), where))
                else:
                    value = self.attr(op, spec.attr)
                    if row.reduce and self.attr(op, "reduce_all"):
                        value = []
                    if value is None:
                        raise ValueError(f"program_to_pir: {where} has no value for attribute {spec.attr!r}")
                    operands.append(self.constant(spec.kind, value, f"{where} attribute {spec.attr!r}"))
            else:
                slot = spec.rstrip("[]")
                names = op.input(slot)
                if slot in overrides.get("inputs", {}):
                    operands.append(overrides["inputs"][slot])
                elif spec.endswith("[]"):
                    operands.append(self.combine(names, where) if names else 0)
                else:
                    operands.append(self.read(names[0], where) if names else 0)
        attrs = {}
        for pir_attr, tag in attr_tags.items():
            if pir_attr in row.fixed:
                value = row.fixed[pir_attr]
            else:
                legacy, convert = row.legacy_attr(pir_attr)
                value = self.attr(op, legacy)
                if op.type == "fill_constant" and legacy == "value" and op.attrs.get("str_value"):
                    value = float(op.attrs["str_value"])
                if convert is not None:
                    try:
                        value = convert.to_pir(value)
                    except (TypeError, ValueError) as e:
                        raise ValueError(f"program_to_pir: {where} attribute {legacy!r} = {value!r}: {e}") from None
                if value is None:
                    raise ValueError(f"program_to_pir: {where} has no value for attribute {legacy!r}")
            attrs[pir_attr] = _attr(tag, value, f"{where} attribute {pir_attr!r}")
        first = self.types.get(operands[0]) if operands and operands[0] else None
        types, stops, outs = [], [], []
        for spec, pir_name, dtag in zip(row.results, result_names, result_dtypes):
            names = op.output(spec.rstrip("[]")) if spec else []
            if spec and spec.endswith("[]"):
                items = [self.var_type(n) for n in names]
                types.append(_pj.PirType.vector(items))
                stops.append(all(self.block._find_var_recursive(n).stop_gradient for n in names))
            elif names:
                types.append(self.var_type(names[0]))
                stops.append(self.block._find_var_recursive(names[0]).stop_gradient)
            else:
                dtype = first.dtype if dtag == "=" and first is not None and first.kind == "dense" else \
                    _pj.DTYPES.get(dtag, "float32")
                types.append(_pj.PirType.dense(dtype, [-1]))
                stops.append(True)
            outs.append(names if spec and spec.endswith("[]") else names[:1])
        ids = self.emit(row.pir, operands, types, attrs, stop_gradient=stops)
        for spec, vid, names, t in zip(row.results, ids, outs, types):
            if spec and spec.endswith("[]"):
                parts = self.emit("builtin.split", [vid], t.items, stop_gradient=[True] * len(t.items))
                for name, part in zip(names, parts):
                    self.values[name] = part
            elif names:
                self.values[names[0]] = vid


class _Shim:
    """An op seen as another legacy type (strided_slice with unit strides is Paddle's slice)."""

    def __init__(self, op, type_, attrs):
        self.type, self.attrs, self.inputs, self.outputs = type_, attrs, op.inputs, op.outputs

    def input(self, slot):
        return list(self.inputs.get(slot, ()))

    def output(self, slot):
        return list(self.outputs.get(slot, ()))


def _is_value(var):
    return var.persistable and str(var.var_type) not in ("FEED_MINIBATCH", "FETCH_LIST", "READER", "RAW")


def _plain(value):
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def _attr(tag, value, where):
    """A legacy value as the PIR attribute of ``tag`` (ints for int tags, floats for float ones...)."""
    try:
        if tag in ("a_f32", "a_f64"):
            value = float(value)
        elif tag in ("a_i32", "a_i64") and not isinstance(value, bool):
            value = int(value)
        elif tag == "a_bool":
            value = bool(value)
        elif tag.startswith("a_array:") or tag == "a_intarray":
            if tag == "a_array:":   # an array Paddle's sample left empty: the int64 lists (none_axes...) it is
                tag = "a_array:a_i64"
            element = tag.partition(":")[2]
            cast = float if element in ("a_f32", "a_f64") else bool if element == "a_bool" else int
            value = [cast(v) for v in (value if isinstance(value, (list, tuple)) else [value])]
        return _pj.make_attr(tag, value)
    except (TypeError, ValueError) as e:
        raise ValueError(f"program_to_pir: {where} = {value!r} cannot be written as {tag}: {e}") from None
