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
