"""Paddle 3's PIR program format (`<prefix>.json`): parse, check and serialize, and a plain-Python model of it.

What PaddlePaddle 3.3.1's ``WriteModule`` writes (compact JSON, keys sorted)::

    {"base_code": {"magic": "pir", "trainable": true, "version": 4},
     "program": {"regions": [{"#": "region_0", "blocks": [{"#": "block_0", "args": [], "ops": [...]}]}]}}

An op is ``{"#": "<dialect id>.<op>", "A": [attrs], "I": [{"%": id}], "O": [{"%": id, "TT": type}],
"OA": [result attrs], "regions": [...]}`` with dialect ids 0 builtin, 1 pd_op, 2 cf. Value ids are positive
for op results, negative for block arguments and 0 for an absent optional operand. An attribute is
``{"N": name, "AT": {"#": "<dialect>.<tag>", "D": data}}`` (``"VD": "INF" | "-INF" | "NaN"`` instead of
``D`` for a non-finite float); a dense tensor type is ``{"#": "0.t_dtensor", "D": [{"#": "0.t_f32"}, dims,
layout, lod, offset]}``. ``builtin.parameter`` is written short: ``{"#": "p", "A": [is_distributed,
is_parameter, need_clip, name], "O": {...}, "OA": [persistable, stop_gradient, trainable], "DA": [],
"QA": []}``. A sharded program's dist types and ``op_dist_attr`` attributes (dialect 4) are parsed into
pir_dist's tuples. Parsing checks the whole structure and that every operand names a value defined before it
(in the block or an enclosing one); anything else is a ValueError naming the place. Nothing in a file runs.
"""
import json
import math
import numbers
import struct
import sys

from . import pir_dist as _dist

__all__ = ["VERSION", "DTYPES", "PirType", "Attr", "make_attr", "Op", "Block", "Region", "PirProgram",
           "parse_program", "serialize_program"]

MAGIC = "pir"
VERSION = 4          # the format version PaddlePaddle 3.3.1 writes and reads
DIALECTS = {"0": "builtin", "1": "pd_op", "2": "cf"}
_DIALECT_IDS = {name: key for key, name in DIALECTS.items()}
_PARAMETER = "builtin.parameter"

# element type tag -> Paddle dtype name
DTYPES = {"t_bool": "bool", "t_i8": "int8", "t_ui8": "uint8", "t_i16": "int16", "t_i32": "int32",
          "t_i64": "int64", "t_f16": "float16", "t_bf16": "bfloat16", "t_f32": "float32", "t_f64": "float64",
          "t_c64": "complex64", "t_c128": "complex128", "t_f8e4m3fn": "float8_e4m3fn", "t_f8e5m2": "float8_e5m2"}
_DTYPE_TAGS = {name: tag for tag, name in DTYPES.items()}
_INT64 = (-2 ** 63, 2 ** 63 - 1)
_NONFINITE = {"INF": math.inf, "-INF": -math.inf, "NaN": math.nan}
# attribute tags whose data is checked here; others are kept as they are, for the op mapping to judge
_SCALAR_ATTRS = {"a_bool": bool, "a_i32": int, "a_i64": int, "a_index": int, "a_f32": float, "a_f64": float,
                 "a_str": str, "a_dtype": str, "a_layout": str}
_INT32 = (-2 ** 31, 2 ** 31 - 1)
_F32_MAX = 3.4028234663852886e38


class PirType:
    """A value's type: ``dense`` (dtype name, dims with -1 unknown, layout, lod, offset), ``vector`` of types,
    or another kind kept by its tag (``t_selected_rows``...) with its raw data. A dense tensor of a sharded
    program also has ``dist`` (a pir_dist.TensorDist) and ``local_shape`` (``4.t_dist_dtensor``)."""
    __slots__ = ("kind", "dtype", "shape", "layout", "lod", "offset", "items", "raw", "dist", "local_shape")

    def __init__(self, kind, dtype=None, shape=None, layout="NCHW", lod=(), offset=0, items=(), raw=None):
        self.kind, self.dtype, self.shape, self.layout = kind, dtype, shape, layout
        self.lod, self.offset, self.items, self.raw = list(lod), offset, list(items), raw
        self.dist = self.local_shape = None

    @classmethod
    def dense(cls, dtype, shape, layout="NCHW"):
        return cls("dense", dtype, [int(d) for d in shape], layout)

    @classmethod
    def vector(cls, items):
        return cls("vector", items=items)

    def __eq__(self, other):
        return isinstance(other, PirType) and all(getattr(self, s) == getattr(other, s) for s in self.__slots__)

    def __repr__(self):
        if self.kind == "dense":
            return f"{self.dtype}{self.shape}"
        if self.kind == "vector":
            return f"vec{self.items}"
        return self.kind


class Attr:
    """One attribute: its tag without the dialect (``a_i32``, ``a_array``, ``a_intarray``...) and its data;
    an ``a_array`` holds a list of Attr."""
    __slots__ = ("tag", "value", "dialect")

    def __init__(self, tag, value, dialect=None):
        self.tag, self.value = tag, value
        self.dialect = dialect if dialect is not None else ("1" if tag in _PD_ATTRS else
                                                            _dist.DIALECT if tag in _dist.ATTR_TAGS else "0")

    def plain(self):
        """The Python value (arrays as lists)."""
        if self.tag == "a_array":
            return [a.plain() for a in self.value]
        return self.value

    def __eq__(self, other):
        return isinstance(other, Attr) and (self.tag, self.value, self.dialect) == (other.tag, other.value,
                                                                                    other.dialect)

    def __repr__(self):
        return f"{self.tag}({self.value!r})"


_PD_ATTRS = frozenset(["a_intarray", "a_dtype", "a_place", "a_scalar", "a_layout"])


def make_attr(tag, value):
    """A Python value as an Attr of ``tag``; ``a_array:a_i64`` is an array of ``a_i64`` elements."""
    if tag.startswith("a_array"):
        element = tag.partition(":")[2]
        if not isinstance(value, (list, tuple)):
            raise TypeError(f"PIR attribute {tag}: expected a list, got {value!r}")
        if value and not element:
            raise ValueError(f"PIR attribute {tag}: the element type of a non-empty array must be given")
        return Attr("a_array", [make_attr(element, v) for v in value])
    kind = _SCALAR_ATTRS.get(tag)
    if kind is int:
        if isinstance(value, bool) or not isinstance(value, numbers.Integral):
            raise TypeError(f"PIR attribute {tag}: expected an int, got {value!r}")
        value = int(value)
        lo, hi = _INT32 if tag == "a_i32" else _INT64
        if not lo <= value <= hi:
            raise ValueError(f"PIR attribute {tag}: {value} is out of range")
    elif kind is float:
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            raise TypeError(f"PIR attribute {tag}: expected a number, got {value!r}")
        # an a_f32 holds a float32, which Paddle writes widened to a double (0.9 -> 0.8999999761581421)
        value = float(struct.unpack("<f", struct.pack("<f", value))[0]) if tag == "a_f32" and \
            abs(value) <= _F32_MAX else float(value)
    elif kind is not None and not isinstance(value, kind):
        raise TypeError(f"PIR attribute {tag}: expected a {kind.__name__}, got {value!r}")
    elif tag == "a_intarray":
        value = [_int_of(v, f"PIR attribute {tag}") for v in value]
    return Attr(tag, value)


def _int_of(value, what):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{what}: expected ints, got {value!r}")
    return int(value)


class Op:
    """One operation: full name (``pd_op.matmul``), operand value ids (0 for none), results as
    ``[id, PirType]``, attributes and result attributes (name -> Attr, in file order), regions."""
    __slots__ = ("name", "operands", "results", "attrs", "result_attrs", "regions", "extra")

    def __init__(self, name, operands=(), results=(), attrs=None, result_attrs=None, regions=(), extra=None):
        self.name = name
        self.operands = list(operands)
        self.results = [list(r) for r in results]
        self.attrs = dict(attrs or {})
        self.result_attrs = dict(result_attrs or {})
        self.regions = list(regions)
        self.extra = dict(extra or {})   # a parameter's dist and quant attributes, kept as they are

    def attr(self, name, default=None):
        found = self.attrs.get(name)
        return default if found is None else found.plain()

    def result_flag(self, name, index=0, default=False):
        """One entry of an array result attribute (``stop_gradient``, ``persistable``) as a bool."""
        found = self.result_attrs.get(name)
        if found is None or found.tag != "a_array" or index >= len(found.value):
            return default
        return bool(found.value[index].value)

    def __repr__(self):
        return f"Op({self.name}, operands={self.operands}, results={[r[0] for r in self.results]})"


class Block:
    __slots__ = ("args", "ops")

    def __init__(self, args=(), ops=()):
        self.args = [list(a) for a in args]   # [id (negative), PirType]
        self.ops = list(ops)


class Region:
    __slots__ = ("blocks",)

    def __init__(self, blocks=()):
        self.blocks = list(blocks)


class PirProgram:
    """A whole file: its top region (one block, the global block), the version and the trainable flag."""

    def __init__(self, region=None, version=VERSION, trainable=True):
        self.region = region if region is not None else Region([Block()])
        self.version = version
        self.trainable = trainable

    def global_block(self):
        return self.region.blocks[0]


# -- parsing ------------------------------------------------------------------------------------------------
class _Reader:
    """Walks the JSON tree; ``where`` names the place for error messages."""

    def __init__(self):
        self.defined = set()

    def fail(self, where, message):
        raise ValueError(f"PIR program: {where}: {message}")

    def get(self, obj, key, kind, where):
        if not isinstance(obj, dict):
            self.fail(where, f"expected an object, got {type(obj).__name__}")
        if key not in obj:
            self.fail(where, f"missing {key!r}")
        value = obj[key]
        if not _is(value, kind):
            self.fail(where, f"{key!r} must be {_KIND_NAMES[kind]}, got {_show(value)}")
        return value

    def region(self, obj, where, scope):
        blocks = self.get(obj, "blocks", list, where)
        return Region([self.block(b, f"{where}, block {i}", scope) for i, b in enumerate(blocks)])

    def block(self, obj, where, scope):
        scope = set(scope)
        args = []
        for i, arg in enumerate(self.get(obj, "args", list, where)):
            vid = self.get(arg, "#", int, f"{where}, argument {i}")
            if vid >= 0:
                self.fail(f"{where}, argument {i}", f"a block argument's id must be negative, got {vid}")
            self.define(vid, f"{where}, argument {i}")
            scope.add(vid)
            args.append([vid, self.type(self.get(arg, "TT", dict, f"{where}, argument {i}"),
                                        f"{where}, argument {i}")])
        ops = []
        for j, op in enumerate(self.get(obj, "ops", list, where)):
            ops.append(self.op(op, f"{where}, op {j}", scope))
        return Block(args, ops)

    def define(self, vid, where):
        if vid == 0 or not _INT64[0] <= vid <= _INT64[1]:
            self.fail(where, f"invalid value id {vid}")
        if vid in self.defined:
            self.fail(where, f"value %{vid} is defined twice")
        self.defined.add(vid)

    def op(self, obj, where, scope):
        tag = self.get(obj, "#", str, where)
        if tag == "p":
            op = self.parameter(obj, where)
        else:
            dialect, dot, short = tag.partition(".")
            if not dot or not short:
                self.fail(where, f"op name {tag!r} is not <dialect id>.<name>")
            # Paddle writes an op of a dialect without an id by its dialect's name (dist_op.shard_tensor)
            name = tag if dialect == "dist_op" else f"{DIALECTS.get(dialect, 'dialect' + dialect)}.{short}"
            where = f"{where} ({name})"
            operands = []
            for i, operand in enumerate(self.get(obj, "I", list, where)):
                vid = self.get(operand, "%", int, f"{where}, operand {i}")
                if vid != 0 and vid not in scope:
                    self.fail(f"{where}, operand {i}", f"value %{vid} is not defined before its use")
                operands.append(vid)
            results = self.results(self.get(obj, "O", list, where), where)
            op = Op(name, operands, results, self.attrs(self.get(obj, "A", list, where), where),
                    self.attrs(obj.get("OA", []), f"{where}, result attributes"))
            for i, region in enumerate(obj.get("regions", [])):
                op.regions.append(self.region(region, f"{where}, region {i}", scope))
        for vid, _ in op.results:
            scope.add(vid)
        return op

    def results(self, items, where):
        results = []
        for i, result in enumerate(items):
            vid = self.get(result, "%", int, f"{where}, result {i}")
            self.define(vid, f"{where}, result {i}")
            if vid < 0:
                self.fail(f"{where}, result {i}", f"an op result's id must be positive, got {vid}")
            results.append([vid, self.type(self.get(result, "TT", dict, f"{where}, result {i}"),
                                           f"{where}, result {i}")])
        return results

    def parameter(self, obj, where):
        where = f"{where} ({_PARAMETER})"
        flags = self.get(obj, "A", list, where)
        if len(flags) != 4 or not all(_is(f, int) and f in (0, 1) for f in flags[:3]) or \
                not isinstance(flags[3], str):
            self.fail(where, f"'A' must be [is_distributed, is_parameter, need_clip, name], got {_show(flags)}")
        # a file saved not trainable has no result attributes: a parameter then is persistable and frozen
        result_flags = self.get(obj, "OA", list, where) if "OA" in obj else [1, 1, 0]
        if len(result_flags) != 3 or not all(_is(f, int) and f in (0, 1) for f in result_flags):
            self.fail(where, f"'OA' must be [persistable, stop_gradient, trainable], got {_show(result_flags)}")
        results = self.results([self.get(obj, "O", dict, where)], where)
        attrs = {"parameter_name": Attr("a_str", flags[3])}
        attrs.update((k, Attr("a_bool", bool(v))) for k, v in zip(("is_distributed", "is_parameter", "need_clip"),
                                                                  flags))
        result_attrs = {k: Attr("a_array", [Attr("a_bool", bool(v))])
                        for k, v in zip(("persistable", "stop_gradient", "trainable"), result_flags)}
        extra = {"DA": obj.get("DA", []), "QA": obj.get("QA", [])}
        for key, value in extra.items():
            if not isinstance(value, list):
                self.fail(where, f"{key!r} must be a list, got {_show(value)}")
        return Op(_PARAMETER, (), results, attrs, result_attrs, (), extra)

    def attrs(self, items, where):
        if not isinstance(items, list):
            self.fail(where, f"attributes must be a list, got {_show(items)}")
        out = {}
        for i, item in enumerate(items):
            name = self.get(item, "N", str, f"{where}, attribute {i}")
            if name in out:
                self.fail(where, f"attribute {name!r} is given twice")
            out[name] = self.attr(self.get(item, "AT", dict, f"{where}, attribute {name!r}"),
                                  f"{where}, attribute {name!r}")
        return out

    def attr(self, obj, where, depth=0):
        dialect, _, tag = self.get(obj, "#", str, where).partition(".")
        if "VD" in obj and "D" not in obj:
            if tag not in ("a_f32", "a_f64") or obj["VD"] not in _NONFINITE:
                self.fail(where, f"'VD' {_show(obj['VD'])} is not a non-finite float of a_f32/a_f64")
            return Attr(tag, _NONFINITE[obj["VD"]], dialect)
        if "D" not in obj:
            self.fail(where, "missing 'D'")
        data = obj["D"]
        if tag in _dist.ATTR_TAGS:
            return Attr(tag, _dist.parse_attr(tag, data, lambda message: self.fail(where, message)), dialect)
        if tag == "a_array":
            if not isinstance(data, list):
                self.fail(where, f"an a_array's data must be a list, got {_show(data)}")
            return Attr(tag, [self.attr(e, f"{where}[{k}]", depth + 1) for k, e in enumerate(data)], dialect)
        kind = _SCALAR_ATTRS.get(tag)
        if kind is not None:
            if not _is(data, kind):
                self.fail(where, f"{tag} data must be {_KIND_NAMES[kind]}, got {_show(data)}")
            return Attr(tag, float(data) if kind is float else data, dialect)
        if tag == "a_intarray":
            if not isinstance(data, list) or not all(_is(d, int) for d in data):
                self.fail(where, f"a_intarray data must be a list of ints, got {_show(data)}")
        elif tag == "a_place":
            if not (isinstance(data, list) and len(data) == 3 and _is(data[0], int) and _is(data[1], int)
                    and isinstance(data[2], str)):
                self.fail(where, f"a_place data must be [type, device id, device name], got {_show(data)}")
        return Attr(tag, data, dialect)

    def type(self, obj, where):
        if obj.get("#") == "NULL" if isinstance(obj, dict) else False:
            return PirType("null")     # the result of an in-place op whose optional operand is absent
        tag = self.get(obj, "#", str, where).partition(".")[2]
        if tag == "t_dtensor":
            data = self.get(obj, "D", list, where)
            if len(data) != 5:
                self.fail(where, f"a t_dtensor's data must be [dtype, dims, layout, lod, offset], got {_show(data)}")
            element, dims, layout, lod, offset = data
            dtype = DTYPES.get(self.get(element, "#", str, where).partition(".")[2]) if isinstance(element, dict) \
                else None
            if dtype is None:
                self.fail(where, f"unknown tensor element type {_show(element)}")
            if not isinstance(dims, list) or not all(_is(d, int) and -1 <= d <= _INT64[1] for d in dims):
                self.fail(where, f"dims must be a list of ints >= -1, got {_show(dims)}")
            if not isinstance(layout, str) or not isinstance(lod, list) or not _is(offset, int) or offset < 0:
                self.fail(where, f"bad layout, lod or offset in {_show(data)}")
            return PirType("dense", dtype, list(dims), layout, lod, offset)
        if tag == "t_dist_dtensor":
            data = self.get(obj, "D", list, where)
            if len(data) != 3:
                self.fail(where, f"a t_dist_dtensor's data must be [dense type, dist attr, local dims], got "
                                 f"{_show(data)}")
            t = self.type(data[0], f"{where} dense type")
            dist = self.attr(data[1], f"{where} dist attr").value if isinstance(data[1], dict) else None
            if t.kind != "dense" or not isinstance(dist, _dist.TensorDist) or len(dist.dims_mapping) != len(t.shape):
                self.fail(where, f"a t_dist_dtensor must hold a dense type and an a_tensor_dist of its rank, got "
                                 f"{_show(data)}")
            if not isinstance(data[2], list) or len(data[2]) != len(t.shape) or not all(_is(d, int) for d in data[2]):
                self.fail(where, f"local dims must be a list of {len(t.shape)} ints, got {_show(data[2])}")
            t.dist, t.local_shape = dist, list(data[2])
            return t
        if tag == "t_vec":
            items = self.get(obj, "D", list, where)
            return PirType.vector([self.type(t, f"{where}[{k}]") for k, t in enumerate(items)])
        if not tag:
            self.fail(where, f"type tag {obj['#']!r} is not <dialect id>.<name>")
        return PirType(tag, raw=obj.get("D"))


_KIND_NAMES = {int: "an int", str: "a string", list: "a list", dict: "an object", bool: "a bool",
               float: "a number"}


def _is(value, kind):
    if kind is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if kind is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    return isinstance(value, kind)


def _show(value):
    text = json.dumps(value) if not isinstance(value, (bytes, bytearray)) else repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _reject_constant(name):
    raise ValueError(f"PIR program: the JSON holds {name}, which is not JSON (Paddle writes non-finite floats "
                     "as \"VD\")")


def parse_program(data):
    """Bytes (or text) of a `.json` program -> PirProgram; ValueError when they are not one."""
    if isinstance(data, (bytes, bytearray, memoryview)):
        try:
            data = bytes(data).decode("utf-8")
        except UnicodeDecodeError as e:
            raise ValueError(f"PIR program: not UTF-8 text: {e}") from None
    if not isinstance(data, str):
        raise TypeError(f"parse_program: expected bytes or str, got {type(data).__name__}")
    try:
        tree = json.loads(data, parse_constant=_reject_constant)
    except RecursionError:
        raise ValueError("PIR program: the JSON is nested too deeply") from None
    except json.JSONDecodeError as e:
        raise ValueError(f"PIR program: malformed JSON: {e}") from None
    reader = _Reader()
    base = reader.get(tree, "base_code", dict, "the file")
    if base.get("magic") != MAGIC:
        reader.fail("base_code", f"magic must be {MAGIC!r}, got {_show(base.get('magic'))}")
    version = reader.get(base, "version", int, "base_code")
    if not 1 <= version <= VERSION:
        reader.fail("base_code", f"unsupported format version {version} (PaddlePaddle 3.3.1 writes {VERSION}; "
                                 "a newer file needs a newer reader)")
    trainable = base.get("trainable", True)
    if not isinstance(trainable, bool):
        reader.fail("base_code", f"'trainable' must be a bool, got {_show(trainable)}")
    regions = reader.get(reader.get(tree, "program", dict, "the file"), "regions", list, "program")
    if len(regions) != 1:
        reader.fail("program", f"expected one top region, got {len(regions)}")
    try:
        region = reader.region(regions[0], "region 0", set())
    except RecursionError:
        raise ValueError("PIR program: regions are nested too deeply") from None
    if len(region.blocks) != 1:
        reader.fail("region 0", f"expected one block, got {len(region.blocks)}")
    return PirProgram(region, version, trainable)


# -- serializing --------------------------------------------------------------------------------------------
def _attr_json(attr):
    tag = f"{attr.dialect}.{attr.tag}"
    if attr.tag in _dist.ATTR_TAGS:
        return _dist.attr_json(attr.value)
    if attr.tag == "a_array":
        return {"#": tag, "D": [_attr_json(a) for a in attr.value]}
    if attr.tag in ("a_f32", "a_f64") and not math.isfinite(attr.value):
        # NOTE: Paddle's writer gives a non-finite float as "VD", which Paddle 3.3.1's own reader refuses ("key
        # 'D' not found"), and its JSON parser refuses a literal out of double range; the largest double stands
        # in for an infinity (a float32 value of it is the infinity again)
        if math.isnan(attr.value):
            return {"#": tag, "VD": "NaN"}
        return {"#": tag, "D": math.copysign(sys.float_info.max, attr.value)}
    return {"#": tag, "D": attr.value}


def _attrs_json(attrs):
    return [{"AT": _attr_json(a), "N": n} for n, a in attrs.items()]


def _type_json(t):
    if t.kind == "dense" and t.dist is not None:
        local = t.local_shape if t.local_shape is not None else _dist.local_shape(t.shape, t.dist)
        dense = PirType("dense", t.dtype, t.shape, t.layout, t.lod, t.offset)
        return {"#": f"{_dist.DIALECT}.t_dist_dtensor", "D": [_type_json(dense), _dist.attr_json(t.dist), list(local)]}
    if t.kind == "dense":
        return {"#": "0.t_dtensor", "D": [{"#": "0." + _DTYPE_TAGS[t.dtype]}, list(t.shape), t.layout,
                                           list(t.lod), t.offset]}
    if t.kind == "vector":
        return {"#": "0.t_vec", "D": [_type_json(i) for i in t.items]}
    if t.kind == "null":
        return {"#": "NULL"}
    out = {"#": "0." + t.kind}
    if t.raw is not None:
        out["D"] = t.raw
    return out


class _Writer:
    """JSON trees of ops, numbering regions and blocks in the order Paddle does (depth first)."""

    def __init__(self, trainable):
        self.regions = self.blocks = -1
        self.trainable = trainable   # as Paddle: result attributes are written for a trainable program only

    def op(self, op):
        if op.name == _PARAMETER:
            (vid, t), = op.results
            flags = [int(bool(op.attr(k))) for k in ("is_distributed", "is_parameter", "need_clip")]
            out = {"#": "p", "A": flags + [op.attr("parameter_name")], "DA": op.extra.get("DA", []),
                   "O": {"%": vid, "TT": _type_json(t)}, "QA": op.extra.get("QA", [])}
            if self.trainable:
                out["OA"] = [int(op.result_flag(k)) for k in ("persistable", "stop_gradient", "trainable")]
            return out
        dialect, _, short = op.name.partition(".")
        out = {"#": f"{_DIALECT_IDS.get(dialect, dialect.replace('dialect', ''))}.{short}",
               "A": _attrs_json(op.attrs), "I": [{"%": v} for v in op.operands],
               "O": [{"%": vid, "TT": _type_json(t)} for vid, t in op.results]}
        if self.trainable:
            out["OA"] = _attrs_json(op.result_attrs)
        if op.regions:
            out["regions"] = [self.region(r) for r in op.regions]
        return out

    def region(self, region):
        self.regions += 1
        out = {"#": f"region_{self.regions}", "blocks": []}
        for block in region.blocks:
            self.blocks += 1
            out["blocks"].append({"#": f"block_{self.blocks}",
                                  "args": [{"#": vid, "TT": _type_json(t)} for vid, t in block.args],
                                  "ops": [self.op(op) for op in block.ops]})
        return out


def serialize_program(program):
    """PirProgram -> bytes, as Paddle writes them (compact JSON, keys sorted). The program is checked first."""
    if not isinstance(program, PirProgram):
        raise TypeError(f"serialize_program: expected a PirProgram, got {type(program).__name__}")
    _check(program)
    tree = {"base_code": {"magic": MAGIC, "trainable": bool(program.trainable), "version": program.version},
            "program": {"regions": [_Writer(bool(program.trainable)).region(program.region)]}}
    text = json.dumps(tree, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False,
                      default=_not_json)
    return text.encode("utf-8")


def _not_json(value):
    raise TypeError(f"serialize_program: {value!r} ({type(value).__name__}) cannot be written as JSON")


def _check(program):
    """The structure parse_program requires, on a program built in memory."""
    defined = set()

    def block(b, scope, where):
        scope = set(scope)
        for vid, t in b.args:
            _check_id(vid, defined, f"{where}: argument")
            scope.add(vid)
        for j, op in enumerate(b.ops):
            here = f"{where}, op {j} ({op.name})"
            for vid in op.operands:
                if vid != 0 and vid not in scope:
                    raise ValueError(f"PIR program: {here}: operand %{vid} is not defined before its use")
            for region in op.regions:
                for k, inner in enumerate(region.blocks):
                    block(inner, scope, f"{here}, block {k}")
            for vid, t in op.results:
                _check_id(vid, defined, here)
                if not isinstance(t, PirType):
                    raise ValueError(f"PIR program: {here}: result %{vid} has no type")
                scope.add(vid)

    block(program.global_block(), set(), "block 0")


def _check_id(vid, defined, where):
    if not isinstance(vid, int) or isinstance(vid, bool) or vid == 0 or vid in defined:
        raise ValueError(f"PIR program: {where}: invalid or repeated value id {vid!r}")
    defined.add(vid)
