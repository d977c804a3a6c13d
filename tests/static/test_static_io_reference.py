"""Static persistence against a live PaddlePaddle 3.3.1 (PADDLE_REF_PYTHON; skipped without it): files
saved here load and run in real Paddle with our outputs; the committed fixtures and the OpProto table
are what the generators make today."""
import ast
import json
import os

import numpy as np
import pytest

import paddle_ref
import torchpaddle as paddle
from torchpaddle.ops import paddle_op_protos
from torchpaddle.static import program_io
from torchpaddle.static.serialization import view_program

from tests.static.static_io_common import FIXTURES, TRAIN_FEED, nets

# these tests check the legacy .pdmodel files (PIR .json: tests/static/test_pir_json.py)
pytestmark = [pytest.mark.conformance, pytest.mark.multiprocess, pytest.mark.usefixtures("legacy_program_format"),
              pytest.mark.skipif(not paddle_ref.available(), reason="reference PaddlePaddle venv not found")]


def _save_ours(folder):
    """Write every file kind make_fixtures.py --check reads; return what our runs gave."""
    exe = paddle.static.Executor(paddle.CPUPlace())
    data = nets.inputs()
    ours = {}
    for name, build, seed in [("conv", nets.build_conv, 31), ("mlp", nets.build_mlp, 32)]:
        with paddle.static.scope_guard(paddle.static.Scope()):
            main, startup, feeds, fetches = build(paddle)
            exe.run(startup)
            nets.set_values(paddle, main, seed)
            out = exe.run(main.clone(for_test=True), feed={feeds[0].name: data[name]}, fetch_list=fetches)
            ours.update({f"{name}:{i}": v for i, v in enumerate(out)})
            paddle.static.save_inference_model(os.path.join(folder, name), feeds, fetches, exe, program=main)
            if name == "conv":
                paddle.static.save(main, os.path.join(folder, "conv_state"))
                ours.update({f"conv_state:{i}": v for i, v in enumerate(out)})
                ours["conv_state_pdmodel:0"] = out[0]
            else:
                paddle.static.save_to_file(os.path.join(folder, "mlp.program.bin"),
                                           paddle.static.serialize_program(feeds, fetches, program=main))
                paddle.static.save_to_file(os.path.join(folder, "mlp.params.bin"),
                                           paddle.static.serialize_persistables(feeds, fetches, exe, program=main))
                ours.update({f"mlp_bytes:{i}": v for i, v in enumerate(out)})
    with paddle.static.scope_guard(paddle.static.Scope()):
        main, startup, _, fetches = nets.build_mlp_train(paddle)
        exe.run(startup)
        nets.set_values(paddle, main, 33)
        exe.run(main, feed=TRAIN_FEED, fetch_list=fetches)
        paddle.static.save(main, os.path.join(folder, "mlp_train"))
        scope = paddle.static.global_scope()
        for var in main.list_vars():
            if var.persistable:
                ours[f"train:{var.name}"] = np.array(scope.find_var(var.name).get_tensor())
        ours["mlp_train:loss_resumed"] = exe.run(main, feed=TRAIN_FEED, fetch_list=fetches)[0]
    return ours


def test_files_saved_here_run_in_paddle(static_mode, tmp_path):
    ours = _save_ours(str(tmp_path))
    paddle_ref.run_module("tests.fixtures.static_models.make_fixtures", "--check", str(tmp_path), timeout=300)
    theirs = dict(np.load(tmp_path / "paddle_results.npz"))
    assert sorted(theirs) == sorted(ours)
    for key, value in ours.items():
        np.testing.assert_allclose(theirs[key], value, rtol=1e-5, atol=1e-6, err_msg=key)


def _structure(path):
    with open(path, "rb") as f:
        view = view_program(f.read())
    return [(op.type, sorted(op.inputs.items()), sorted(op.outputs.items()), sorted(op.attr_types.items()))
            for block in view.blocks for op in block.ops], sorted(view.blocks[0].vars)


def test_committed_fixtures_are_what_paddle_writes_today(tmp_path):
    paddle_ref.run_module("tests.fixtures.static_models.make_fixtures", str(tmp_path), timeout=300)
    fresh, committed = np.load(tmp_path / "expected.npz"), np.load(os.path.join(FIXTURES, "expected.npz"))
    assert sorted(fresh.files) == sorted(committed.files)
    for key in committed.files:
        if committed[key].dtype.kind in "US":
            assert fresh[key] == committed[key], key
        else:
            paddle_ref.assert_fixture_close(fresh[key], committed[key], err_msg=key)
    for name in ("conv", "mlp", "mlp_fc", "conv_state", "mlp_train", "mlp_train_sgd", "mlp_train_adam"):
        assert _structure(tmp_path / (name + ".pdmodel")) == _structure(os.path.join(FIXTURES, name + ".pdmodel"))
    for name in ("conv.pdiparams", "mlp.pdiparams", "mlp_fc.pdiparams", "mlp.params.bin"):
        assert (tmp_path / name).read_bytes() == open(os.path.join(FIXTURES, name), "rb").read(), name


def test_op_proto_table_is_current(tmp_path):
    table = paddle_op_protos.__file__
    with open(table) as f:
        committed = f.read()
    types = sorted(ast.literal_eval(committed.split("OPS = ", 1)[1].split("\n\n", 1)[0]))
    (tmp_path / "types.json").write_text(json.dumps(types))
    paddle_ref.run_module("tests.fixtures.static_models.make_op_table", str(tmp_path / "types.json"),
                          str(tmp_path / "table.py"), timeout=300)
    assert (tmp_path / "table.py").read_text() == committed
    # every op type torchpaddle registers that Paddle knows is in it
    missing = set(program_io.table_op_types()) - set(types)
    regenerated = os.path.join(str(tmp_path), "all.json")
    with open(regenerated, "w") as f:
        f.write(json.dumps(sorted(missing)))
    paddle_ref.run_module("tests.fixtures.static_models.make_op_table", regenerated, str(tmp_path / "missing.py"),
                          timeout=300)
    absent = ast.literal_eval((tmp_path / "missing.py").read_text().split("OPS = ", 1)[1].split("\n\n", 1)[0])
    assert not absent, f"paddle_op_protos.py lacks {sorted(absent)}: rerun make_op_table.py"


def test_many_ops_saved_here_run_in_paddle(static_mode, tmp_path):
    # layer_norm (Mean/Variance outputs Paddle requires), squeeze2/transpose2 XShape, strided_slice, embedding,
    # reductions, conv2d_transpose, depthwise conv, interpolation, gather, where, cumsum...
    exe = paddle.static.Executor(paddle.CPUPlace())
    main, startup, feeds, fetches = nets.build_zoo(paddle)
    exe.run(startup)
    nets.set_values(paddle, main, 41)
    data = nets.zoo_inputs()
    ours = exe.run(main.clone(for_test=True), feed=data, fetch_list=fetches)
    paddle.static.save_inference_model(str(tmp_path / "zoo"), feeds, fetches, exe, program=main)
    np.savez(tmp_path / "in.npz", **data)
    paddle_ref.run_module("tests.fixtures.static_models.make_fixtures", "--run", str(tmp_path / "zoo"),
                          str(tmp_path / "in.npz"), str(tmp_path / "out.npz"), timeout=300)
    theirs = np.load(tmp_path / "out.npz")
    assert len(theirs.files) == len(ours) == 32
    for i, value in enumerate(ours):
        got = theirs[f"arr_{i}"]
        assert got.dtype == value.dtype, fetches[i].name
        np.testing.assert_allclose(got, value, rtol=1e-5, atol=1e-5, err_msg=fetches[i].name)
