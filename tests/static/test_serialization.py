"""Paddle's static-graph file formats: the ProgramDesc protobuf (.pdmodel) and the tensor stream
(.pdiparams). Fixtures in tests/fixtures/static_io were written by real PaddlePaddle 3.3.1 in the legacy
(non-PIR) format by make_fixtures.py; expected.json holds Paddle's own reading of them."""
import io
import json
import os
import random
import struct

import numpy as np
import pytest
from google.protobuf.internal import api_implementation

import paddle_ref
from conftest import ROOT
from tests.fixtures.static_io import descriptors
from torchpaddle.static import serialization as S
from torchpaddle.static.serialization import framework_pb2 as pb

FIXTURES = os.path.join(ROOT, "tests", "fixtures", "static_io")
with open(os.path.join(FIXTURES, "expected.json")) as _f:
    EXPECTED = json.load(_f)


def _read(name):
    with open(os.path.join(FIXTURES, name), "rb") as f:
        return f.read()


# -- the .proto against the one inside the Paddle wheel ----------------------------------------------------
def _check_outline(theirs):
    ours = descriptors.outline(pb.DESCRIPTOR)
    assert set(theirs["messages"]) - set(ours["messages"]) == {"OpProto", "OpProto.Var", "OpProto.Attr"}
    for name, fields in ours["messages"].items():
        assert fields == theirs["messages"][name], name
    for name, values in theirs["enums"].items():
        # ours also has the Paddle 2.x aliases (LOD_TENSOR...)
        assert values.items() <= ours["enums"][name].items(), name
        assert set(values.values()) == set(ours["enums"][name].values()), name


def test_proto_matches_paddles_field_numbers():
    with open(os.path.join(FIXTURES, "paddle_proto.json")) as f:
        _check_outline(json.load(f))


@pytest.mark.conformance
def test_proto_matches_the_installed_paddle(tmp_path):
    out = tmp_path / "outline.json"
    paddle_ref.run_module("tests.fixtures.static_io.make_fixtures", "--descriptor", str(out))
    _check_outline(json.loads(out.read_text()))


# -- programs: our reading equals Paddle's -----------------------------------------------------------------
def _json_value(value):
    if isinstance(value, complex):
        return {"complex": [value.real, value.imag]}
    if isinstance(value, list):
        return [_json_value(v) for v in value]
    return value


def _describe(view):
    """Our view in the layout make_fixtures.describe() gives Paddle's."""
    blocks = []
    for block in view.blocks:
        ops = [{"type": op.type, "inputs": op.inputs, "outputs": op.outputs,
                "attrs": {n: [pb.AttrType.Value(op.attr_types[n]), _json_value(v)] for n, v in op.attrs.items()}}
               for op in block.ops]
        variables = []
        for var in block.vars.values():
            entry = {"name": var.name, "type": pb.VarType.Type.Value(var.type), "persistable": var.persistable,
                     "need_check_feed": var.need_check_feed, "stop_gradient": var.stop_gradient}
            if var.type in ("DENSE_TENSOR", "DENSE_TENSOR_ARRAY"):
                entry.update(data_type=S.dtype_code(var.dtype), shape=var.shape, lod_level=var.lod_level or 0)
            variables.append(entry)
        blocks.append({"idx": block.idx, "parent_idx": block.parent_idx, "ops": ops, "vars": variables})
    return {"version": view.version, "blocks": blocks}


@pytest.mark.parametrize("name", ["mlp", "features"])
def test_program_reads_as_paddle_reads_it(name):
    ours, theirs = _describe(S.view_program(_read(name + ".pdmodel"))), EXPECTED[name]
    assert ours["version"] == theirs["version"] == 3003001
    assert len(ours["blocks"]) == len(theirs["blocks"])
    for mine, real in zip(ours["blocks"], theirs["blocks"]):
        assert (mine["idx"], mine["parent_idx"]) == (real["idx"], real["parent_idx"])
        assert len(mine["ops"]) == len(real["ops"])
        for i, (a, b) in enumerate(zip(mine["ops"], real["ops"])):
            where = f"block {mine['idx']} op {i} ({b['type']})"
            assert {k: a[k] for k in ("type", "inputs", "outputs")} == \
                {k: b[k] for k in ("type", "inputs", "outputs")}, where
            # Paddle reads extra attributes (use_mkldnn...) apart, with defaults where the file has none
            extra = {n: v for n, v in a["attrs"].items() if n in b["extra"]}
            assert {n: v for n, v in a["attrs"].items() if n not in extra} == b["attrs"], where
            assert extra == {n: b["extra"][n] for n in extra}, where
        key = lambda v: v["name"]  # noqa: E731
        assert sorted(mine["vars"], key=key) == sorted(real["vars"], key=key)


def test_mlp_program_contents():
    view = S.view_program(_read("mlp.pdmodel"))
    assert view.op_types() == ["feed", "mul", "elementwise_add", "relu", "mul", "elementwise_add", "softmax",
                               "fetch"]
    block = view.global_block()
    w = block.vars["fc_0.w_0"]
    assert (w.dtype, w.shape, w.persistable, w.type) == ("float32", [4, 8], True, "DENSE_TENSOR")
    x = block.vars["x"]
    assert (x.shape, x.need_check_feed, x.persistable) == ([-1, 4], True, False)
    assert block.vars["feed"].type == "FEED_MINIBATCH" and block.vars["fetch"].type == "FETCH_LIST"
    mul = block.ops[1]
    assert mul.inputs == {"X": ["x"], "Y": ["fc_0.w_0"]} and mul.outputs == {"Out": ["fc_0.tmp_0"]}
    assert (mul.attrs["x_num_col_dims"], mul.attr_types["x_num_col_dims"]) == (1, "INT")
    assert block.ops[2].attrs["axis"] == 1 and block.ops[6].attrs["axis"] == -1
    assert block.ops[0].attrs["col"] == 0 and block.ops[0].attr_types["op_callstack"] == "STRINGS"
    assert view.persistables() == EXPECTED["mlp_params"] == ["fc_0.b_0", "fc_0.w_0", "fc_1.b_0", "fc_1.w_0"]
    assert view.op_versions["elementwise_add"] == 1


def test_features_program_contents():
    view = S.view_program(_read("features.pdmodel"))
    assert len(view.blocks) == 2 and view.blocks[1].parent_idx == 0
    ops = {op.type: op for op in view.global_block().ops}
    assert ops["while"].attrs["sub_block"] == 1 and ops["while"].attr_types["sub_block"] == "BLOCK"
    assert ops["reshape2"].attr_types["shape"] == "INTS"
    assert ops["fill_constant"].attr_types["shape"] == "LONGS"
    assert ops["assign_value"].attrs["values"] == [1.5, -2.25]
    assert ops["assign_value"].attr_types["values"] == "SCALARS"
    assert ops["scale"].attr_types["scale"] == "FLOAT"
    assert ops["set_value"].attrs["axes"] == [0, 1]
    assert ops["reshape2"].attrs["use_mkldnn"] is False  # an extra attribute the file does carry
    assert "STEP_SCOPES" in {v.type for v in view.global_block().vars.values()}
    assert [op.type for op in view.blocks[1].ops] == ["scale", "scale", "less_than", "assign", "assign", "assign"]


@pytest.mark.parametrize("name", ["mlp", "features"])
def test_program_round_trips_byte_identically(name):
    data = _read(name + ".pdmodel")
    desc = S.parse_program(data)
    assert S.serialize_program(desc) == data
    # through the plain-Python view and back as well
    view = S.view_program(data)
    rebuilt = view.to_desc()
    assert rebuilt.SerializeToString() == data
    assert S.view_program(rebuilt) == view


# -- tensor streams ----------------------------------------------------------------------------------------
def test_mlp_params_load_as_paddle_has_them():
    arrays = np.load(os.path.join(FIXTURES, "mlp.npz"))
    names = EXPECTED["mlp_params"]
    loaded = S.read_tensors(_read("mlp.pdiparams"), count=len(names))
    for name, array in zip(names, loaded):
        expect = arrays["param:" + name]
        assert array.dtype == expect.dtype and array.shape == expect.shape
        np.testing.assert_array_equal(array, expect)
    with open(os.path.join(FIXTURES, "mlp.pdiparams"), "rb") as f:  # a file object works too
        assert len(S.read_tensors(f)) == 4
    # the loaded parameters reproduce Paddle's own output of the saved program
    params = dict(zip(names, loaded))
    np.testing.assert_allclose(_mlp_forward(params, arrays["x"]), arrays["y"], rtol=1e-5, atol=1e-6)


def test_mlp_params_write_paddles_bytes():
    arrays = np.load(os.path.join(FIXTURES, "mlp.npz"))
    ours = S.write_tensors([arrays["param:" + n] for n in EXPECTED["mlp_params"]])
    assert ours == _read("mlp.pdiparams")


def _fp8_to_float(bits, exponent_bits, mantissa_bits):
    """Decode OCP float8 bits (e4m3fn / e5m2) to float32, for comparing with Paddle's cast."""
    bias = 2 ** (exponent_bits - 1) - 1
    bits = bits.astype(np.int64)
    sign = np.where(bits >> 7, -1.0, 1.0)
    exp = (bits >> mantissa_bits) & (2 ** exponent_bits - 1)
    man = bits & (2 ** mantissa_bits - 1)
    normal = (1 + man / 2 ** mantissa_bits) * 2.0 ** (exp - bias)
    sub = man / 2 ** mantissa_bits * 2.0 ** (1 - bias)
    return (sign * np.where(exp == 0, sub, normal)).astype(np.float32)


def test_dtype_stream_loads_as_paddle_has_it():
    records = S.read_records(_read("tensors.pdiparams"))
    arrays = np.load(os.path.join(FIXTURES, "tensors.npz"))
    assert len(records) == len(EXPECTED["tensors"])
    for record, info in zip(records, EXPECTED["tensors"]):
        name = info["name"]
        assert (record.data_type, record.dtype, list(record.array.shape)) == \
            (info["data_type"], info["dtype"], info["shape"]), name
        assert [list(level) for level in record.lod] == info["lod"], name
        if info["dtype"].startswith("float8"):
            assert record.array.dtype == np.uint8
            exponent = 4 if info["dtype"] == "float8_e4m3fn" else 5
            np.testing.assert_array_equal(_fp8_to_float(record.array, exponent, 7 - exponent), arrays[name])
        else:
            assert record.array.dtype == arrays[name].dtype, name
            np.testing.assert_array_equal(record.array, arrays[name])
    assert records[3].dtype == "bfloat16" and records[3].array.dtype == np.uint16
    assert S.read_tensors(_read("tensors.pdiparams"))[1].shape == ()


def test_dtype_stream_writes_paddles_bytes():
    data = _read("tensors.pdiparams")
    records = S.read_records(data)
    assert S.write_tensors(records) == data
    # from Paddle's own arrays, not ours (float8 has no NumPy dtype: its bits come from our reading)
    arrays = np.load(os.path.join(FIXTURES, "tensors.npz"))
    items = [r if info["dtype"].startswith("float8") else
             S.TensorRecord(arrays[info["name"]], info["data_type"], info["lod"])
             for r, info in zip(records, EXPECTED["tensors"])]
    assert S.write_tensors(items) == data
    # plain arrays: the dtype comes from NumPy, uint16 meaning bfloat16 as in Paddle
    plain = [arrays[info["name"]] for info in EXPECTED["tensors"][1:13]]
    assert S.write_tensors(plain) == b"".join(S.write_tensor(r) for r in records[1:13])


def test_write_tensor_argument_errors():
    with pytest.raises(TypeError, match="no Paddle tensor type"):
        S.write_tensors([np.array(["a"])])
    with pytest.raises(TypeError, match="tensor #1"):
        S.write_tensors([np.zeros(2), np.array([None])])
    with pytest.raises(TypeError, match="cannot be stored as bfloat16"):
        S.write_tensor(S.TensorRecord(np.zeros(2, np.float32), "bfloat16"))
    with pytest.raises(ValueError, match="not a tensor element type"):
        S.TensorRecord(np.zeros(2), pb.VarType.DENSE_TENSOR)
    with pytest.raises(ValueError, match="non-negative"):
        S.write_tensor(S.TensorRecord(np.zeros(2), lod=[[0, -1]]))
    with pytest.raises(TypeError, match="binary file"):
        S.read_tensors("not bytes")
    with pytest.raises(TypeError, match="binary mode"):
        S.read_tensors(io.StringIO("text"))


def test_big_endian_and_strided_arrays_write_little_endian_c_order():
    a = np.arange(6, dtype=">f4").reshape(2, 3).T
    (back,) = S.read_tensors(S.write_tensor(a))
    assert back.dtype == np.float32 and back.shape == (3, 2)
    np.testing.assert_array_equal(back, a)


# -- corrupt and truncated tensor streams ------------------------------------------------------------------
def _stream(array=None, lod=()):
    return bytearray(S.write_tensor(S.TensorRecord(np.arange(6, dtype=np.float32).reshape(2, 3)
                                                   if array is None else array, lod=lod)))


def test_every_truncation_of_a_stream_raises():
    data = _read("mlp.pdiparams")
    boundaries, offset = set(), 0
    while offset < len(data):
        offset = S.read_tensor(data, offset)[1]
        boundaries.add(offset)
    for cut in range(1, len(data)):
        with pytest.raises(ValueError, match="truncated|offset"):
            S.read_tensors(data[:cut], count=4)
        if cut not in boundaries:
            with pytest.raises(ValueError, match="offset"):
                S.read_tensors(data[:cut])


def _desc_bytes(data_type, dims):
    return pb.VarType.TensorDesc(data_type=data_type, dims=dims).SerializeToString()


def _corrupt_cases():
    head = 4 + 8  # version + LoD level count, no LoD
    good = _stream()
    desc = _desc_bytes(pb.VarType.FP32, [2, 3])
    cases = {}

    def put(name, data):
        cases[name] = bytes(data)

    b = bytearray(good); b[0] = 1; put("tensor version", b)
    b = bytearray(good); b[4:12] = struct.pack("<Q", 2 ** 63); put("huge LoD level count", b)
    b = bytearray(_stream(lod=[[0, 1, 2]])); b[12:20] = struct.pack("<Q", 7); put("LoD size not x8", b)
    b = bytearray(_stream(lod=[[0, 1, 2]])); b[12:20] = struct.pack("<Q", 2 ** 62); put("huge LoD size", b)
    b = bytearray(good); b[head] = 9; put("dense version", b)
    b = bytearray(good); b[head + 4:head + 8] = struct.pack("<i", -5); put("negative desc size", b)
    b = bytearray(good); b[head + 4:head + 8] = struct.pack("<i", 2 ** 31 - 1); put("huge desc size", b)
    body = b"\xff" * len(desc)
    put("garbage desc", good[:head + 8] + body + good[head + 8 + len(desc):])
    for label, d in [("non-element type", _desc_bytes(pb.VarType.DENSE_TENSOR, [2, 3])),
                     ("negative dims", _desc_bytes(pb.VarType.FP32, [-1, 3])),
                     ("huge dims", _desc_bytes(pb.VarType.FP64, [2 ** 40, 2 ** 40])),
                     ("no data type", pb.VarType.TensorDesc(dims=[2]).SerializePartialToString()),
                     ("unknown data type", b"\x08\x63")]:
        put(label, good[:head + 4] + struct.pack("<i", len(d)) + d + good[head + 8 + len(desc):])
    put("trailing bytes", good + b"\x00\x00")
    put("short data", good[:-1])
    return cases


@pytest.mark.parametrize("case", sorted(_corrupt_cases()))
def test_corrupt_stream_raises_value_error_naming_the_offset(case):
    with pytest.raises(ValueError, match="offset"):
        S.read_tensors(_corrupt_cases()[case])


def test_random_corruption_of_streams_never_crashes():
    rng = random.Random(0)
    seeds = [_read("mlp.pdiparams"), _read("tensors.pdiparams")]
    for _ in range(600):
        data = bytearray(rng.choice(seeds))
        for _ in range(rng.randint(1, 4)):
            data[rng.randrange(len(data))] = rng.randrange(256)
        try:
            S.read_records(bytes(data))
        except ValueError:
            pass


# -- corrupt and truncated programs ------------------------------------------------------------------------
def test_truncated_programs_raise_or_parse_a_prefix():
    data = _read("mlp.pdmodel")
    for cut in [1, 2, 10, len(data) // 3, len(data) // 2, len(data) - 1]:
        with pytest.raises(ValueError, match="ProgramDesc"):
            S.parse_program(data[:cut])
    for cut in range(0, len(data), 7):
        try:
            S.view_program(data[:cut])
        except ValueError:
            pass


def _bad_program(edit):
    desc = S.parse_program(_read("features.pdmodel"))
    edit(desc)
    return desc.SerializeToString()


@pytest.mark.parametrize("label, edit, message", [
    ("no blocks", lambda d: d.ClearField("blocks"), "no blocks"),
    ("block index", lambda d: setattr(d.blocks[1], "idx", 5), "says its index is 5"),
    ("parent", lambda d: setattr(d.blocks[1], "parent_idx", 7), "parent block 7"),
    ("root parent", lambda d: setattr(d.blocks[0], "parent_idx", 1), "parent block 1"),
    ("forward block", lambda d: setattr(d.blocks[1], "forward_block_idx", 9), "forward block 9"),
    ("sub_block", lambda d: setattr([a for o in d.blocks[0].ops if o.type == "while" for a in o.attrs
                                     if a.name == "sub_block"][0], "block_idx", 4), "names block"),
    ("var dtype", lambda d: setattr(d.blocks[0].vars[1].type.dense_tensor.tensor, "data_type",
                                    pb.VarType.FEED_MINIBATCH), "element type"),
    ("var attr", lambda d: d.blocks[0].vars[1].attrs.add(name="a", type=pb.AttrType.FLOAT), "only INT"),
])
def test_inconsistent_program_raises(label, edit, message):
    with pytest.raises(ValueError, match=message):
        S.parse_program(_bad_program(edit))


def test_not_a_program_raises():
    for data in [b"", _read("mlp.pdiparams"), b"\xff" * 64, b"\x0a\x02\x08\x00"]:
        with pytest.raises(ValueError, match="ProgramDesc"):
            S.parse_program(data)
    with pytest.raises(TypeError, match="expected bytes"):
        S.parse_program("mlp.pdmodel")
    with pytest.raises(ValueError, match="missing required"):
        S.serialize_program(pb.ProgramDesc(blocks=[pb.BlockDesc(idx=0)]))


def test_random_corruption_of_programs_never_crashes():
    rng = random.Random(1)
    seeds = [_read("mlp.pdmodel"), _read("features.pdmodel")]
    for _ in range(400):
        data = bytearray(rng.choice(seeds))
        for _ in range(rng.randint(1, 3)):
            data[rng.randrange(len(data))] = rng.randrange(256)
        try:
            S.serialize_program(S.view_program(bytes(data)).to_desc())
        except ValueError:
            pass


def test_names_that_are_not_utf8_raise():
    data = _read("mlp.pdmodel").replace(b"fc_0.w_0", b"fc_0.w\xff0")
    with pytest.raises(ValueError, match="not valid UTF-8"):
        S.parse_program(data)


@pytest.mark.skipif(api_implementation.Type() == "python", reason="the pure-Python runtime rejects such strings")
def test_string_attributes_that_are_not_utf8_round_trip():
    # Paddle's strings are C++ byte strings; the Python runtime hands those that are not UTF-8 back as bytes
    attr = S.encode_attr("blob", b"ab\xff")
    assert attr.type == pb.AttrType.STRING
    assert S.decode_attr(pb.OpDesc.Attr.FromString(attr.SerializeToString())) == b"ab\xff"
    attr = S.encode_attr("lines", ["ok", b"\xfe"])
    assert S.decode_attr(pb.OpDesc.Attr.FromString(attr.SerializeToString())) == ["ok", b"\xfe"]


# -- building descs ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("kind, value", [
    ("INT", -3), ("FLOAT", 0.25), ("STRING", "abc"), ("INTS", [1, -2]), ("FLOATS", [0.5, 1.5]),
    ("STRINGS", ["a", ""]), ("BOOLEAN", True), ("BOOLEANS", [True, False]), ("BLOCK", 2), ("LONG", 2 ** 40),
    ("BLOCKS", [1, 2]), ("LONGS", [2 ** 40, -1]), ("FLOAT64S", [0.1, 2.0]), ("VAR", "x"), ("VARS", ["x", "y"]),
    ("FLOAT64", 0.1), ("SCALAR", 1 + 2j), ("SCALARS", [True, 3, 0.5, 1j]),
])
def test_every_attribute_kind_round_trips(kind, value):
    attr = S.encode_attr("a", value, kind)
    assert pb.AttrType.Name(attr.type) == kind
    back = S.decode_attr(pb.OpDesc.Attr.FromString(attr.SerializeToString()))
    assert back == value and type(back) is type(value)


@pytest.mark.parametrize("value, kind", [
    (True, "BOOLEAN"), (3, "INT"), (2 ** 31, "LONG"), (0.5, "FLOAT"), ("s", "STRING"), (1j, "SCALAR"),
    ([1, 2], "INTS"), ([1, 2 ** 35], "LONGS"), ([1, 0.5], "FLOATS"), (["a"], "STRINGS"), ([False], "BOOLEANS"),
    ([1, 1j], "SCALARS"), ((4, 5), "INTS"), (np.int64(7), "INT"), (np.array([1.5, 2.5]), "FLOATS"),
])
def test_attribute_type_inference(value, kind):
    assert pb.AttrType.Name(S.encode_attr("a", value).type) == kind


def test_attribute_errors():
    with pytest.raises(ValueError, match="empty list attribute 'shape'"):
        S.encode_attr("shape", [])
    assert list(S.encode_attr("shape", [], "INTS").ints) == []
    with pytest.raises(ValueError, match="does not fit a 32-bit INT"):
        S.encode_attr("n", 2 ** 31, "INT")
    with pytest.raises(TypeError, match="attribute 'axis' expects an integer"):
        S.encode_attr("axis", "0", "INT")
    with pytest.raises(TypeError, match="expects a list"):
        S.encode_attr("axes", 1, "INTS")
    with pytest.raises(TypeError, match="unsupported type"):
        S.encode_attr("f", object())
    with pytest.raises(ValueError, match="unknown attribute type"):
        S.encode_attr("f", 1, "NUMBER")
    assert S.encode_attr("flag", True, "BOOL").type == pb.AttrType.BOOLEAN  # Paddle's Python spelling


def test_make_descs_follow_paddles_conventions():
    op = S.make_op_desc("elementwise_add", {"X": ["a"], "Y": "b"}, {"Out": ["c"]}, {"axis": -1, "op_role": 0})
    assert S.OpView.from_desc(op) == S.OpView("elementwise_add", {"X": ["a"], "Y": ["b"]}, {"Out": ["c"]},
                                              {"axis": -1, "op_role": 0}, {"axis": "INT", "op_role": "INT"})
    var = S.make_var_desc("w", [4, -1], "float32", persistable=False, lod_level=0)
    assert var.HasField("persistable") and not var.HasField("stop_gradient")
    view = S.VarView.from_desc(var)
    assert (view.shape, view.dtype, view.lod_level, view.type) == ([4, -1], "float32", 0, "DENSE_TENSOR")
    var.attrs.add(name="tag", type=pb.AttrType.INTS, ints=[1, 2])
    assert S.VarView.from_desc(var).attrs == {"tag": [1, 2]}
    assert S.VarView.from_desc(var).to_desc() == var
    feed = S.make_var_desc("feed", type="FEED_MINIBATCH", persistable=True)
    assert S.VarView.from_desc(feed).dtype is None
    assert S.make_var_desc("t", [2], "bfloat16", type="LOD_TENSOR_ARRAY").type.tensor_array.tensor.data_type == \
        pb.VarType.BF16
    with pytest.raises(ValueError, match="needs a dtype"):
        S.make_var_desc("w", [2])
    with pytest.raises(ValueError, match="unknown variable type"):
        S.make_var_desc("w", [2], "float32", type="TENSOR")


def test_dtype_tables():
    assert S.dtype_code("float32") == pb.VarType.FP32 and S.dtype_code("paddle.bfloat16") == pb.VarType.BF16
    assert S.dtype_code(np.dtype("uint16")) == pb.VarType.BF16  # Paddle's reading of a uint16 array
    assert S.dtype_name(pb.VarType.COMPLEX128) == "complex128"
    with pytest.raises(TypeError, match="no Paddle tensor type"):
        S.dtype_code("str")
    with pytest.raises(ValueError, match="FETCH_LIST"):
        S.dtype_name(pb.VarType.FETCH_LIST)


# -- files written here load in real Paddle -----------------------------------------------------------------
def _mlp_forward(params, x):
    h = np.maximum(x @ params["fc_0.w_0"] + params["fc_0.b_0"], 0)
    logits = h @ params["fc_1.w_0"] + params["fc_1.b_0"]
    e = np.exp(logits - logits.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


@pytest.mark.conformance
def test_files_written_here_load_in_real_paddle(tmp_path):
    if not paddle_ref.available():
        pytest.skip(f"reference PaddlePaddle venv not found at {paddle_ref.PYTHON}")
    arrays = np.load(os.path.join(FIXTURES, "mlp.npz"))
    view = S.view_program(_read("mlp.pdmodel"))
    rng = np.random.RandomState(3)
    params = {name: rng.uniform(-2, 2, arrays["param:" + name].shape).astype(np.float32)
              for name in view.persistables()}
    # the program is rebuilt from our view, not copied, and the parameters are new
    (tmp_path / "m.pdmodel").write_bytes(S.serialize_program(view.to_desc()))
    (tmp_path / "m.pdiparams").write_bytes(S.write_tensors([params[n] for n in view.persistables()]))
    x = rng.uniform(-1, 1, (6, 4)).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    paddle_ref.run_module("tests.fixtures.static_io.make_fixtures", "--run", str(tmp_path / "m"),
                          str(tmp_path / "x.npy"), str(tmp_path / "y.npy"))
    y = np.load(tmp_path / "y.npy")
    np.testing.assert_allclose(y, _mlp_forward(params, x), rtol=1e-5, atol=1e-6)
    assert not np.allclose(y, _mlp_forward({n: arrays["param:" + n] for n in params}, x), atol=1e-3)


def test_element_type_numbers_are_framework_protos():
    """The tensor stream's hand-written VarType numbers and TensorDesc bytes equal the generated protobuf's."""
    from torchpaddle.framework import tensor_stream as ts
    for code in pb.VarType.Type.values():
        assert pb.VarType.Type.Name(code) in (ts._TYPE_NAMES[code], "LOD_TENSOR", "LOD_TENSOR_ARRAY")
    for code, dims in [(pb.VarType.FP32, [2, 3]), (pb.VarType.INT64, []), (pb.VarType.BF16, [0, 2 ** 40, 1])]:
        assert ts._tensor_desc(code, dims) == _desc_bytes(code, dims)
        assert ts._parse_tensor_desc(_desc_bytes(code, dims), 0, len(_desc_bytes(code, dims))) == (code, tuple(dims))
