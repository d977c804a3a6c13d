"""Static persistence given bad input: truncated, damaged or hostile files, unknown op types, wrong
arguments. Each is a clear Python exception; nothing in a file runs."""
import os
import pickle

import numpy as np
import pytest

import torchpaddle as paddle

from tests.static.static_io_common import EXPECTED, TRAIN_FEED, desc_with_op, exe, fixture, nets  # noqa: F401


def _copy_model(tmp_path, name="mlp"):
    for suffix in (".pdmodel", ".pdiparams"):
        (tmp_path / (name + suffix)).write_bytes(open(fixture(name + suffix), "rb").read())
    return str(tmp_path / name)


@pytest.mark.parametrize("cut", [0, 1, 7, 100, -1])
def test_truncated_pdmodel(exe, tmp_path, cut):
    prefix = _copy_model(tmp_path)
    data = (tmp_path / "mlp.pdmodel").read_bytes()
    (tmp_path / "mlp.pdmodel").write_bytes(data[:cut] if cut >= 0 else data[:len(data) // 2])
    with pytest.raises(ValueError, match="load_inference_model: cannot load .*mlp.pdmodel"):
        paddle.static.load_inference_model(prefix, exe)


def test_garbage_pdmodel(exe, tmp_path):
    prefix = _copy_model(tmp_path)
    (tmp_path / "mlp.pdmodel").write_bytes(np.random.RandomState(0).bytes(4000))
    with pytest.raises(ValueError):
        paddle.static.load_inference_model(prefix, exe)


@pytest.mark.parametrize("change", ["truncate", "extra", "empty", "bad_header"])
def test_corrupt_pdiparams(exe, tmp_path, change):
    prefix = _copy_model(tmp_path)
    data = (tmp_path / "mlp.pdiparams").read_bytes()
    data = {"truncate": data[:-5], "extra": data + b"\x00" * 9, "empty": b"",
            "bad_header": b"\x07" + data[1:]}[change]
    (tmp_path / "mlp.pdiparams").write_bytes(data)
    with pytest.raises(ValueError, match="mlp.pdiparams: tensor stream"):
        paddle.static.load_inference_model(prefix, exe)


def test_parameter_shape_mismatch(exe, tmp_path):
    prefix = _copy_model(tmp_path)
    (tmp_path / "mlp.pdiparams").write_bytes(open(fixture("mlp_fc.pdiparams"), "rb").read()[:0] +
                                             _reshaped_params())
    with pytest.raises(RuntimeError, match="shape mismatch.*linear_0.w_0"):
        paddle.static.load_inference_model(prefix, exe)


def _reshaped_params():
    from torchpaddle.static.serialization import read_records, write_tensors, TensorRecord
    records = read_records(open(fixture("mlp.pdiparams"), "rb").read())
    return write_tensors([TensorRecord(r.array.reshape(-1), r.data_type) for r in records])


def test_missing_files(exe, tmp_path):
    with pytest.raises(ValueError, match="There is no directory"):
        paddle.static.load_inference_model(str(tmp_path / "nowhere" / "m"), exe)
    with pytest.raises(FileNotFoundError, match="model file"):
        paddle.static.load_inference_model(str(tmp_path / "m"), exe)
    (tmp_path / "m.pdmodel").write_bytes(open(fixture("mlp.pdmodel"), "rb").read())
    with pytest.raises(FileNotFoundError, match="parameter file"):
        paddle.static.load_inference_model(str(tmp_path / "m"), exe)


def test_unknown_op_type_parses_but_is_refused_when_loaded_to_run(exe, tmp_path):
    data = desc_with_op("my_custom_op").SerializeToString()
    assert paddle.static.deserialize_program(data).global_block().ops[0].type == "my_custom_op"
    (tmp_path / "m.pdmodel").write_bytes(data)
    with pytest.raises(ValueError, match="not registered in torchpaddle: 'my_custom_op' \\(block 0, op 0\\)"):
        paddle.static.load_inference_model(str(tmp_path / "m"), exe)
    (tmp_path / "m.pdmodel").write_bytes(desc_with_op("relu").SerializeToString())
    (tmp_path / "m.pdiparams").write_bytes(b"")
    program, _, _ = paddle.static.load_inference_model(str(tmp_path / "m"), exe)
    assert program.global_block().ops[0].type == "relu"


def test_newer_program_version_is_refused():
    desc = desc_with_op("relu")
    desc.version.version = 9009009
    with pytest.raises(ValueError, match="Unsupported program version: 9009009"):
        paddle.static.deserialize_program(desc.SerializeToString())


def test_parse_from_string_bad_input():
    with pytest.raises(TypeError, match="expected bytes"):
        paddle.static.Program.parse_from_string("not bytes")
    with pytest.raises(ValueError, match="no blocks"):
        paddle.static.Program.parse_from_string(b"")


def test_pickled_code_in_pdparams_never_runs(exe, tmp_path):
    marker = tmp_path / "ran"

    class Evil:
        def __reduce__(self):
            return (os.system, (f"touch {marker}",))
    main, startup, _, _ = nets.build_mlp(paddle)
    exe.run(startup)
    (tmp_path / "m.pdparams").write_bytes(pickle.dumps({"linear_0.w_0": Evil()}))
    with pytest.raises(Exception, match="allow-list"):
        paddle.static.load(main, str(tmp_path / "m"), exe)
    with pytest.raises(Exception, match="allow-list"):
        paddle.static.load_program_state(str(tmp_path / "m"))
    assert not marker.exists()


def test_corrupt_pdparams(exe, tmp_path):
    main, startup, _, _ = nets.build_mlp(paddle)
    exe.run(startup)
    data = open(fixture("mlp_train.pdparams"), "rb").read()
    (tmp_path / "m.pdparams").write_bytes(data[:len(data) // 2])
    with pytest.raises(ValueError, match="truncated, corrupt"):
        paddle.static.load(main, str(tmp_path / "m"), exe)
    (tmp_path / "m.pdparams").write_bytes(pickle.dumps([1, 2]))
    with pytest.raises(ValueError, match="not a parameter file"):
        paddle.static.load_program_state(str(tmp_path / "m"))


def test_damaged_pdmodel_bytes_give_value_errors_only():
    # single-byte damage anywhere in a real file: it parses to some program or raises ValueError, nothing else
    data = bytearray(open(fixture("mlp.pdmodel"), "rb").read())
    rng = np.random.RandomState(0)
    refused = 0
    for position in rng.choice(len(data), 300, replace=False):
        damaged = bytearray(data)
        damaged[position] ^= 1 << int(rng.randint(8))
        try:
            paddle.static.deserialize_program(bytes(damaged))
        except ValueError:
            refused += 1
    assert refused > 0


def test_unknown_op_type_in_paddle_training_program(exe, tmp_path):
    # the same file with its optimizer op renamed to a type nobody registers: it parses (as in Paddle), and
    # running it or loading it as an inference model names the op
    from torchpaddle.static.serialization import parse_program
    with open(fixture("mlp_train.pdmodel"), "rb") as f:
        desc = parse_program(f.read())
    op = next(op for op in desc.blocks[0].ops if op.type == "momentum")
    op.type = "momentum_v9"
    data = desc.SerializeToString()
    program = paddle.static.Program.parse_from_string(data)
    assert "momentum_v9" in [op.type for op in program.global_block().ops]
    paddle.static.load(program, fixture("mlp_train"), exe)
    with pytest.raises(NotImplementedError, match="'momentum_v9'"):
        exe.run(program, feed=TRAIN_FEED, fetch_list=[str(EXPECTED["mlp_train:loss_name"])])
    (tmp_path / "m.pdmodel").write_bytes(data)
    (tmp_path / "m.pdiparams").write_bytes(b"")
    with pytest.raises(ValueError, match=r"not registered in torchpaddle: 'momentum_v9' \(block 0, op \d+\)"):
        paddle.static.load_inference_model(str(tmp_path / "m"), exe)


# -- variable names as file names (the 1.x one-file-per-variable layout) ------------------------------------
_ESCAPING = ["../escaped", "../../escaped", "sub/../../escaped", "..\\escaped", "/ABS/escaped", "a\x00b", ".",
             "a//b", "sub/"]


def _escaping_name(tmp_path, name):
    return str(tmp_path / "escaped") if name.startswith("/ABS/") else name


def _files_under(root):
    return sorted(os.path.relpath(os.path.join(d, f), root) for d, _, found in os.walk(root) for f in found)


@pytest.mark.parametrize("name", _ESCAPING)
def test_variable_names_cannot_write_outside_the_folder(exe, tmp_path, name):
    name = _escaping_name(tmp_path, name)
    main = paddle.static.Program()
    with paddle.static.program_guard(main, paddle.static.Program()):
        x = paddle.static.data("x", [None, 2], "float32")
        y = paddle.static.nn.fc(x, 1, weight_attr=paddle.ParamAttr(name=name), bias_attr=False)
    weight = main.global_block().var(name)
    paddle.static.global_scope().var(name).get_tensor().set(np.ones([2, 1], np.float32), paddle.CPUPlace())
    folder = tmp_path / "a" / "b" / "model"
    with pytest.raises(ValueError, match="variable .* cannot have its own file"):
        paddle.static.io.save_vars(exe, str(folder), main, vars=[weight])
    with pytest.raises(ValueError, match="variable .* cannot have its own file"):
        paddle.static.save_inference_model(str(folder / "m"), [x], [y], exe, program=main, separate_parameters=True)
    assert _files_under(tmp_path) == []   # refused before anything was written


@pytest.mark.parametrize("name", _ESCAPING)
def test_variable_names_from_a_file_cannot_read_outside_the_folder(exe, tmp_path, name):
    from torchpaddle.static.serialization import make_var_desc, write_tensors
    name = _escaping_name(tmp_path, name)
    folder = tmp_path / "a" / "b" / "model"
    folder.mkdir(parents=True)
    secret = np.arange(2, dtype=np.float32)
    for target in (tmp_path / "escaped", tmp_path / "a" / "escaped"):   # what "../" names would reach
        target.write_bytes(write_tensors([secret]))
    desc = desc_with_op("relu")
    desc.blocks[0].vars.append(make_var_desc(name, [2], "float32", persistable=True))
    (folder / "__model__").write_bytes(desc.SerializeToString())
    with pytest.raises(ValueError, match="variable .* cannot have its own file"):
        paddle.static.load_inference_model(str(folder), exe, model_filename="__model__")
    program = paddle.static.deserialize_program(desc.SerializeToString())
    var = program.global_block().var(name)
    with pytest.raises(ValueError, match="variable .* cannot have its own file"):
        paddle.static.io.load_vars(exe, str(folder), program, vars=[var])
    with pytest.raises(ValueError, match="variable .* cannot have its own file"):
        paddle.static.load_program_state(str(folder), var_list=[var])
    assert paddle.static.global_scope().find_var(name) is None


def test_variable_names_with_folders_inside_stay_allowed(exe, tmp_path):
    # as in Paddle, a name with '/' that stays inside the folder is a file in a sub-folder
    main = paddle.static.Program()
    var = main.global_block().create_var(name="block1/w", shape=[2], dtype="float32", persistable=True)
    paddle.static.global_scope().var("block1/w").get_tensor().set(np.arange(2, dtype=np.float32), paddle.CPUPlace())
    paddle.static.io.save_vars(exe, str(tmp_path), main, vars=[var])
    assert _files_under(tmp_path) == [os.path.join("block1", "w")]
    state = paddle.static.load_program_state(str(tmp_path), var_list=[var])
    np.testing.assert_array_equal(state["block1/w"], [0, 1])


def _varint(value):
    value &= (1 << 64) - 1   # int64 dims: negative ones as ten bytes, as protobuf writes them
    out = b""
    while value > 0x7F:
        out, value = out + bytes([value & 0x7F | 0x80]), value >> 7
    return out + bytes([value])


def _tensor_header(dims, data_type=5, lod=(), desc_size=None):
    """The head of one tensor of a .pdiparams stream, written by hand so that it can lie."""
    import struct
    desc = b"\x08" + _varint(data_type) + b"".join(b"\x10" + _varint(d) for d in dims)
    head = struct.pack("<IQ", 0, len(lod)) + b"".join(struct.pack("<Q", size) + data for size, data in lod)
    return head + struct.pack("<Ii", 0, len(desc) if desc_size is None else desc_size) + desc


_LYING_STREAMS = {   # a first tensor whose sizes promise far more than the file holds, or make no sense
    "huge dims": _tensor_header([2 ** 40, 2 ** 40]),
    "dims overflowing int64 when multiplied": _tensor_header([2 ** 62, 2 ** 62, 2 ** 62]),
    "negative dims": _tensor_header([-1, 4]) + bytes(16),
    "bad dtype code": _tensor_header([1], data_type=77) + bytes(4),
    "huge LoD level count": b"\x00" * 4 + b"\xff" * 8 + bytes(64),
    "huge LoD level size": _tensor_header([1], lod=[(2 ** 63, b"")]) + bytes(4),
    "LoD level size not a multiple of 8": _tensor_header([1], lod=[(3, b"abc")]) + bytes(4),
    "huge TensorDesc size": _tensor_header([1], desc_size=2 ** 31 - 1) + bytes(4),
    "negative TensorDesc size": _tensor_header([1], desc_size=-8) + bytes(4),
    "TensorDesc that is not protobuf": b"\x00" * 12 + b"\x00\x00\x00\x00\x08\x00\x00\x00" + b"\xff" * 8,
}


@pytest.mark.parametrize("label", sorted(_LYING_STREAMS))
def test_lying_pdiparams_is_refused_before_allocating(exe, tmp_path, label):
    prefix = _copy_model(tmp_path)
    (tmp_path / "mlp.pdiparams").write_bytes(_LYING_STREAMS[label])
    with pytest.raises(ValueError, match="mlp.pdiparams: tensor stream"):
        paddle.static.load_inference_model(prefix, exe)
