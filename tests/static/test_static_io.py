"""Static-graph persistence against files written by real PaddlePaddle 3.3.1 (tests/fixtures/static_models,
made by its make_fixtures.py) and round trips through our own files."""
import os

import numpy as np
import pytest
import torch

import torchpaddle as paddle
from torchpaddle.static import program_io
from torchpaddle.static.serialization import framework_pb2 as pb
from torchpaddle.static.serialization import view_program

from tests.static.static_io_common import (EXPECTED, TRAIN_FEED, close as _close, desc_with_op, exe,  # noqa: F401
                                           fixture, nets)

# these tests check the legacy .pdmodel files (PIR .json: tests/static/test_pir_json.py)
pytestmark = pytest.mark.usefixtures("legacy_program_format")


# -- files written by real Paddle ------------------------------------------------------------------------------
@pytest.mark.parametrize("name,feed,n_out", [("conv", "conv", 2), ("mlp", "mlp", 2), ("mlp_fc", "mlp", 1)])
def test_paddle_inference_model_runs_with_paddles_outputs(exe, name, feed, n_out):
    program, feeds, fetches = paddle.static.load_inference_model(fixture(name), exe)
    assert feeds == (["img"] if name == "conv" else ["x"])
    assert len(fetches) == n_out and all(isinstance(f, paddle.static.Variable) for f in fetches)
    out = exe.run(program, feed={feeds[0]: EXPECTED["input:" + feed]}, fetch_list=fetches)
    for i, value in enumerate(out):
        _close(value, EXPECTED[f"{name}:{i}"], f"{name}:{i}")


def test_paddle_inference_program_structure(exe):
    program, _, fetches = paddle.static.load_inference_model(fixture("conv"), exe)
    types = [op.type for op in program.global_block().ops]
    assert types[0] == "feed" and types[-2:] == ["fetch", "fetch"]
    assert {"conv2d", "batch_norm", "pool2d", "flatten_contiguous_range", "reshape2", "matmul_v2"} <= set(types)
    bn = next(op for op in program.global_block().ops if op.type == "batch_norm")
    assert bn.attr("is_test") is True and bn.output("MeanOut") == bn.input("Mean")
    img = program.global_block().var("img")
    assert img.shape == [-1, 3, 8, 8] and img.dtype == paddle.float32 and img.need_check_feed
    # the values went to the global scope, by name
    w = paddle.static.global_scope().find_var("conv2d_0.w_0")
    np.testing.assert_array_equal(np.array(w.get_tensor()), EXPECTED["state:conv2d_0.w_0"])


def test_static_load_of_paddle_checkpoint(exe):
    main, startup, _, fetches = nets.build_conv(paddle)
    exe.run(startup)
    paddle.static.load(main, fixture("conv_state"), exe)
    out = exe.run(main.clone(for_test=True), feed={"img": EXPECTED["input:conv"]}, fetch_list=fetches)
    for i, value in enumerate(out):
        _close(value, EXPECTED[f"conv:{i}"], f"conv_state:{i}")


OPTIMIZERS = [("momentum", "mlp_train"), ("sgd", "mlp_train_sgd"), ("adam", "mlp_train_adam")]


@pytest.mark.parametrize("optimizer,name", OPTIMIZERS)
def test_resume_training_from_paddle_checkpoint(exe, optimizer, name):
    # Paddle saved after one step (accumulators in .pdopt); the next step here gives Paddle's loss and values
    main, startup, _, fetches = nets.build_mlp_train(paddle, optimizer)
    exe.run(startup)
    paddle.static.load(main, fixture(name + ".pdparams"), exe)
    (loss,) = exe.run(main, feed=TRAIN_FEED, fetch_list=fetches)
    _close(loss, EXPECTED[f"{name}:loss_resumed"], "loss after resuming")
    _check_resumed_values(name)


def _check_resumed_values(name):
    scope = paddle.static.global_scope()
    prefix = f"{name}:resumed:"
    keys = [k for k in EXPECTED if k.startswith(prefix)]
    assert len(keys) >= 5
    for key in keys:
        _close(np.array(scope.find_var(key[len(prefix):]).get_tensor()), EXPECTED[key], key)


@pytest.mark.parametrize("optimizer,name", OPTIMIZERS)
def test_paddles_training_program_runs_here(exe, optimizer, name):
    # Paddle's own program (grad ops, its optimizer op) from static.save's .pdmodel, with its checkpoint
    with open(fixture(name + ".pdmodel"), "rb") as f:
        program = paddle.static.Program.parse_from_string(f.read())
    assert optimizer in [op.type for op in program.global_block().ops]
    paddle.static.load(program, fixture(name), exe)
    loss_name = str(EXPECTED[f"{name}:loss_name"])
    (loss,) = exe.run(program, feed=TRAIN_FEED, fetch_list=[loss_name])
    _close(loss, EXPECTED[f"{name}:loss_resumed"], "loss of Paddle's program run here")
    _check_resumed_values(name)


@pytest.mark.parametrize("path", ["mlp_train", "mlp_train.pdopt", "mlp_train_vars"])
def test_load_program_state_of_paddle_files(path):
    state = paddle.static.load_program_state(fixture(path))
    want = {k[6:] for k in EXPECTED if k.startswith("train:")}
    assert set(state) == want
    for name, value in state.items():
        np.testing.assert_array_equal(value, EXPECTED["train:" + name])


def test_set_program_state_from_paddle_state(exe):
    main, startup, _, fetches = nets.build_mlp_train(paddle)
    exe.run(startup)
    paddle.static.set_program_state(main, paddle.static.load_program_state(fixture("mlp_train")))
    (loss,) = exe.run(main, feed=TRAIN_FEED, fetch_list=fetches)
    _close(loss, EXPECTED["mlp_train:loss_resumed"], "loss after set_program_state")


def test_deserialize_paddle_bytes(exe):
    program = paddle.static.deserialize_program(paddle.static.load_from_file(fixture("mlp.program.bin")))
    paddle.static.deserialize_persistables(program, paddle.static.load_from_file(fixture("mlp.params.bin")), exe)
    names = program_io.fetch_target_names(program)
    out = exe.run(program, feed={"x": EXPECTED["input:mlp"]}, fetch_list=names)
    for i, value in enumerate(out):
        _close(value, EXPECTED[f"mlp:{i}"], f"mlp bytes:{i}")


def test_paddle_static_save_pdmodel_parses_with_parameters():
    with open(fixture("conv_state.pdmodel"), "rb") as f:
        program = paddle.static.Program.parse_from_string(f.read())
    params = {p.name: p for p in program.all_parameters()}
    assert set(params) == {"conv2d_0.w_0", "conv2d_0.b_0", "batch_norm2d_0.w_0", "batch_norm2d_0.b_0",
                           "batch_norm2d_0.w_1", "batch_norm2d_0.w_2", "linear_0.w_0", "linear_0.b_0"}
    assert params["conv2d_0.w_0"].shape == [4, 3, 3, 3] and params["conv2d_0.w_0"].trainable
    assert not params["batch_norm2d_0.w_1"].trainable   # running mean: stop_gradient


# -- our files -------------------------------------------------------------------------------------------------
def _conv_with_values(exe, seed=5):
    main, startup, feeds, fetches = nets.build_conv(paddle)
    exe.run(startup)
    values = nets.set_values(paddle, main, seed)
    return main, feeds, fetches, values


def test_inference_round_trip_here(exe, tmp_path):
    main, feeds, fetches, _ = _conv_with_values(exe)
    want = exe.run(main.clone(for_test=True), feed={"img": EXPECTED["input:conv"]}, fetch_list=fetches)
    prefix = str(tmp_path / "sub" / "conv")
    paddle.static.save_inference_model(prefix, feeds, fetches, exe, program=main)
    assert sorted(os.listdir(tmp_path / "sub")) == ["conv.pdiparams", "conv.pdmodel", "conv.tpsave"]
    with paddle.static.scope_guard(paddle.static.Scope()):
        program, feed_names, fetch_targets = paddle.static.load_inference_model(prefix, exe)
        got = exe.run(program, feed={feed_names[0]: EXPECTED["input:conv"]}, fetch_list=fetch_targets)
    assert feed_names == ["img"] and [v.name for v in fetch_targets] == [v.name for v in fetches]
    for i, (g, w) in enumerate(zip(got, want)):
        _close(g, w, f"round trip {i}")


def _attr_types(data):
    view = view_program(data)
    return {(op.type, name): kind for block in view.blocks for op in block.ops for name, kind in op.attr_types.items()}


def test_saved_program_has_paddles_wire_form(exe, tmp_path):
    main, feeds, fetches, _ = _conv_with_values(exe)
    paddle.static.save_inference_model(str(tmp_path / "conv"), feeds, fetches, exe, program=main)
    data = (tmp_path / "conv.pdmodel").read_bytes()
    ours, theirs = _attr_types(data), _attr_types(open(fixture("conv.pdmodel"), "rb").read())
    shared = set(ours) & set(theirs)
    assert len(shared) > 30
    assert {k: ours[k] for k in shared} == {k: theirs[k] for k in shared}
    view = view_program(data)
    assert view.version == 3003001 and view.op_versions["conv2d"] == 1
    ops = view.blocks[0].ops
    reshape = next(op for op in ops if op.type == "reshape2")
    xshape = view.blocks[0].vars[reshape.outputs["XShape"][0]]
    assert xshape.shape[0] == 0 and xshape.shape[1:] == view.blocks[0].vars[reshape.inputs["X"][0]].shape
    bn = next(op for op in ops if op.type == "batch_norm")
    assert bn.outputs["MeanOut"] == bn.inputs["Mean"] and bn.attrs["is_test"] is True
    assert "fuse_with_relu" not in bn.attrs            # an extra attribute: clipped, as Paddle clips it
    fill = next(op for op in ops if op.type == "fill_constant")
    assert fill.attr_types["shape"] == "LONGS" and fill.attr_types["value"] == "FLOAT"
    assert [op.attrs["col"] for op in ops if op.type == "fetch"] == [0, 1]
    params = {v.name for v in view.blocks[0].vars.values() if v.persistable and v.type == "DENSE_TENSOR"}
    assert params == {v.name for v in main.list_vars() if v.persistable}


def test_desc_round_trip_is_stable(exe):
    main, _, _, _ = _conv_with_values(exe)
    data = main.desc_bytes()
    again = paddle.static.Program.parse_from_string(data)
    assert again.desc_bytes() == data
    assert [op.type for op in again.global_block().ops] == [op.type for op in main.global_block().ops]
    for name, var in main.global_block().vars.items():
        other = again.global_block().var(name)
        assert (other.shape, other.dtype, other.persistable, other.stop_gradient) == \
            (var.shape, var.dtype, var.persistable, var.stop_gradient), name
        assert isinstance(other, paddle.static.Parameter) == isinstance(var, paddle.static.Parameter), name


def test_normalize_program_prunes_training_ops(exe):
    main, startup, feeds, fetches = nets.build_mlp_train(paddle)
    before = len(main.global_block().ops)
    out = next(op for op in main.global_block().ops if op.type == "elementwise_sub").input("X")[0]
    logits = main.global_block().var(out)
    normalized = paddle.static.normalize_program(main, feeds[:1], [logits])
    types = [op.type for op in normalized.global_block().ops]
    assert types == ["feed", "matmul_v2", "elementwise_add", "relu", "fill_constant", "elementwise_mul",
                     "fill_constant", "elementwise_add", "matmul_v2", "elementwise_add", "fetch"]
    assert "label" not in normalized.global_block().vars
    assert len(main.global_block().ops) == before      # the original is untouched
    with pytest.raises(ValueError, match="feeded_var_names\\[1\\]: 'label' doesn't exist"):
        paddle.static.normalize_program(main, feeds, [logits])
    with pytest.raises(TypeError, match="feed_vars"):
        paddle.static.normalize_program(main, ["x"], fetches)
    with pytest.raises(ValueError, match="program must not be empty"):
        paddle.static.normalize_program(paddle.static.Program(), feeds, fetches)


def test_serialize_round_trip_here(exe):
    main, feeds, fetches, _ = _conv_with_values(exe)
    want = exe.run(main.clone(for_test=True), feed={"img": EXPECTED["input:conv"]}, fetch_list=fetches)
    program_bytes = paddle.static.serialize_program(feeds, fetches, program=main)
    params = paddle.static.serialize_persistables(feeds, fetches, exe, program=main)
    assert isinstance(program_bytes, bytes) and isinstance(params, bytes)
    with paddle.static.scope_guard(paddle.static.Scope()):
        program = paddle.static.deserialize_program(program_bytes)
        paddle.static.deserialize_persistables(program, params, exe)
        got = exe.run(program, feed={"img": EXPECTED["input:conv"]}, fetch_list=[v.name for v in fetches])
    for g, w in zip(got, want):
        _close(g, w, "serialize round trip")


def test_static_save_load_round_trip_with_optimizer_state(exe, tmp_path):
    main, startup, _, fetches = nets.build_mlp_train(paddle)
    exe.run(startup)
    nets.set_values(paddle, main, 21)
    exe.run(main, feed=TRAIN_FEED, fetch_list=fetches)
    path = str(tmp_path / "ckpt" / "model")
    paddle.static.save(main, path)
    assert sorted(os.listdir(tmp_path / "ckpt")) == ["model.pdmodel", "model.pdopt", "model.pdparams", "model.tpsave"]
    (next_loss,) = exe.run(main, feed=TRAIN_FEED, fetch_list=fetches)
    state = paddle.static.load_program_state(path)
    assert "linear_0.w_0_velocity_0" in state and "learning_rate_0" in state
    with paddle.static.scope_guard(paddle.static.Scope()):
        exe.run(startup)
        paddle.static.load(main, path + ".pdmodel", exe)
        (resumed,) = exe.run(main, feed=TRAIN_FEED, fetch_list=fetches)
    _close(resumed, next_loss, "resumed loss")


def test_static_save_bad_arguments(exe, tmp_path):
    main, startup, _, _ = nets.build_mlp(paddle)
    exe.run(startup)
    with pytest.raises(ValueError, match="protocol"):
        paddle.static.save(main, str(tmp_path / "m"), protocol=5)
    with pytest.raises(ValueError, match="model_path"):
        paddle.static.save(main, str(tmp_path) + "/")
    with pytest.raises(TypeError, match="Program"):
        paddle.static.save("main", str(tmp_path / "m"))
    with pytest.raises(ValueError, match="Cannot find \\[linear_1.w_0\\] in model file"):
        paddle.static.load(main, fixture("conv_state"), exe)


def test_set_program_state_checks(exe):
    main, startup, _, _ = nets.build_mlp(paddle)
    exe.run(startup)
    good = {"linear_0.w_0": np.ones([4, 8], "float32")}
    with pytest.warns(UserWarning, match="not_a_var"):
        paddle.static.set_program_state(main, dict(good, not_a_var=np.zeros(2)))
    np.testing.assert_array_equal(np.array(paddle.static.global_scope().find_var("linear_0.w_0").get_tensor()),
                                  good["linear_0.w_0"])
    with pytest.raises(ValueError, match="shape"):
        paddle.static.set_program_state(main, {"linear_0.w_0": np.ones([8, 4], "float32")})
    with pytest.raises(AssertionError, match="data type"):
        paddle.static.set_program_state(main, {"linear_0.w_0": np.ones([4, 8], "float64")})
    with paddle.static.scope_guard(paddle.static.Scope()):
        with pytest.raises(ValueError, match="run startup program"):
            paddle.static.set_program_state(main, good)


def test_save_to_file_and_load_from_file(tmp_path):
    path = str(tmp_path / "blob")
    paddle.static.save_to_file(path, b"\x00\x01abc")
    assert paddle.static.load_from_file(path) == b"\x00\x01abc"
    paddle.static.save_to_file(path, b"new")
    assert paddle.static.load_from_file(path) == b"new" and os.listdir(tmp_path) == ["blob"]   # no temp files
    with pytest.raises(ValueError, match="'content' type should be bytes"):
        paddle.static.save_to_file(path, "text")


def test_paddle_save_and_load_of_a_program(exe, tmp_path):
    main, _, _, _ = _conv_with_values(exe)
    path = str(tmp_path / "prog.pdmodel")
    paddle.save(main, path)
    loaded = paddle.load(path)
    assert isinstance(loaded, paddle.static.Program)
    assert loaded.desc_bytes() == main.desc_bytes()


def test_bfloat16_parameters_keep_their_dtype(exe, tmp_path):
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [-1, 2], "bfloat16")
        w = paddle.static.create_parameter([2, 2], "bfloat16", name="w_bf16")
        y = paddle.matmul(x, w)
    exe.run(startup)
    value = np.array([[1.5, -2.0], [0.25, 3.0]], "float32")
    paddle.static.global_scope().var("w_bf16").get_tensor().set(torch.from_numpy(value).to(torch.bfloat16))
    paddle.static.save_inference_model(str(tmp_path / "bf"), [x], [y], exe, program=main)
    with paddle.static.scope_guard(paddle.static.Scope()):
        program, _, _ = paddle.static.load_inference_model(str(tmp_path / "bf"), exe)
        t = paddle.static.global_scope().find_var("w_bf16").get_tensor()
        assert t._dtype() == paddle.bfloat16
        np.testing.assert_array_equal(t._t.float().numpy(), value)


# -- the legacy ops Paddle's files hold ------------------------------------------------------------------------
def test_mul_matches_numpy():
    rng = np.random.RandomState(0)
    x, y = rng.rand(2, 3, 4).astype("float32"), rng.rand(12, 5).astype("float32")
    out = paddle.ops.mul(paddle.to_tensor(x), paddle.to_tensor(y), x_num_col_dims=1, y_num_col_dims=1)
    np.testing.assert_allclose(out.numpy(), x.reshape(2, 12) @ y, rtol=1e-5)
    y2 = rng.rand(4, 5, 2).astype("float32")
    out = paddle.ops.mul(paddle.to_tensor(x), paddle.to_tensor(y2), x_num_col_dims=2, y_num_col_dims=1)
    np.testing.assert_allclose(out.numpy(), (x.reshape(6, 4) @ y2.reshape(4, 10)).reshape(2, 3, 5, 2), rtol=1e-5)
    with pytest.raises(ValueError, match="mul: X\\[2, 3, 4\\] flattened at x_num_col_dims=2 has 4 columns"):
        paddle.ops.mul(paddle.to_tensor(x), paddle.to_tensor(y), x_num_col_dims=2, y_num_col_dims=1)
    with pytest.raises(ValueError, match="x_num_col_dims must be in \\[1, 2\\]"):
        paddle.ops.mul(paddle.to_tensor(x), paddle.to_tensor(y), x_num_col_dims=3, y_num_col_dims=1)
    with pytest.raises(ValueError, match="y_num_col_dims must be in \\[1, 1\\]"):
        paddle.ops.mul(paddle.to_tensor(x), paddle.to_tensor(y), x_num_col_dims=1, y_num_col_dims=0)


def test_matmul_v1_matches_numpy():
    rng = np.random.RandomState(1)
    x, y = rng.rand(3, 2, 4).astype("float32"), rng.rand(3, 5, 4).astype("float32")
    out = paddle.ops.matmul(paddle.to_tensor(x), paddle.to_tensor(y), transpose_X=False, transpose_Y=True, alpha=2.5)
    np.testing.assert_allclose(out.numpy(), 2.5 * (x @ y.transpose(0, 2, 1)), rtol=1e-5)
    v = rng.rand(4).astype("float32")
    out = paddle.ops.matmul(paddle.to_tensor(v), paddle.to_tensor(v))
    np.testing.assert_allclose(out.numpy(), v @ v, rtol=1e-5)
    with pytest.raises(ValueError, match="matmul: X\\[3, 2, 4\\] .* cannot be multiplied"):
        paddle.ops.matmul(paddle.to_tensor(x), paddle.to_tensor(y))


def test_flatten2_matches_numpy():
    x = np.arange(24, dtype="float32").reshape(2, 3, 4)
    out, xshape = paddle.ops.flatten2(paddle.to_tensor(x), axis=2)
    np.testing.assert_array_equal(out.numpy(), x.reshape(6, 4))
    assert xshape.shape == [0, 2, 3, 4]
    np.testing.assert_array_equal(paddle.ops.flatten2(paddle.to_tensor(x), axis=0)[0].numpy(), x.reshape(1, 24))
    with pytest.raises(ValueError, match="flatten2: axis must be in \\[0, 3\\]"):
        paddle.ops.flatten2(paddle.to_tensor(x), axis=4)


def test_optimizer_ops_match_numpy():
    p, g = np.array([1.0, -2.0, 3.0], "float32"), np.array([0.5, 0.25, -1.0], "float32")
    lr = np.array(0.1, "float32")
    t = paddle.to_tensor
    np.testing.assert_allclose(paddle.ops.sgd(t(p), t(lr), t(g))[0].numpy(), p - 0.1 * g, rtol=1e-6)
    v = np.array([0.1, 0.2, 0.3], "float32")
    out, vel, _ = paddle.ops.momentum(t(p), t(g), t(v), t(lr), mu=0.9, use_nesterov=True,
                                      regularization_method="l2_decay", regularization_coeff=0.01)
    grad = g + 0.01 * p
    np.testing.assert_allclose(vel.numpy(), 0.9 * v + grad, rtol=1e-6)
    np.testing.assert_allclose(out.numpy(), p - (grad + 0.9 * (0.9 * v + grad)) * 0.1, rtol=1e-6)
    m1, m2 = np.array([0.1, 0.0, -0.1], "float32"), np.array([0.01, 0.02, 0.0], "float32")
    b1p, b2p = np.array([0.81], "float32"), np.array([0.998], "float32")
    out, n1, n2, _, o1, o2, _ = paddle.ops.adam(t(p), t(g), t(lr), t(m1), t(m2), None, t(b1p), t(b2p))
    e1, e2 = 0.9 * m1 + 0.1 * g, 0.999 * m2 + 0.001 * g * g
    lr_t = 0.1 * np.sqrt(1 - 0.998) / (1 - 0.81)
    np.testing.assert_allclose(out.numpy(), p - lr_t * e1 / (np.sqrt(e2) + 1e-8 * np.sqrt(1 - 0.998)), rtol=1e-5)
    np.testing.assert_allclose(o1.numpy(), b1p * 0.9, rtol=1e-6)
    np.testing.assert_allclose(o2.numpy(), b2p * 0.999, rtol=1e-6)


# -- the 1.x layouts: one file per variable, combined files ----------------------------------------------------
def test_static_load_from_paddles_per_variable_files(exe):
    main, startup, _, _ = nets.build_mlp_train(paddle)
    exe.run(startup)
    paddle.static.load(main, fixture("mlp_train_vars"), exe)
    scope = paddle.static.global_scope()
    for key in [k for k in EXPECTED if k.startswith("train:")]:
        np.testing.assert_array_equal(np.array(scope.find_var(key[6:]).get_tensor()), EXPECTED[key])
    with pytest.raises(ValueError, match="executor is required"):
        paddle.static.load(main, fixture("mlp_train_vars"))


def test_save_vars_load_vars_combined_and_separate(exe, tmp_path):
    main, startup, _, _ = nets.build_mlp(paddle)
    exe.run(startup)
    values = nets.set_values(paddle, main, 8)
    params = main.all_parameters()
    paddle.static.io.save_vars(exe, str(tmp_path), main, vars=params, filename="combined")
    paddle.static.io.save_vars(exe, str(tmp_path / "each"), main, predicate=paddle.static.io.is_persistable)
    assert sorted(os.listdir(tmp_path / "each")) == sorted(values)
    state = paddle.static.load_program_state(str(tmp_path / "combined"), var_list=params)
    assert sorted(state) == sorted(values)
    for name, value in state.items():
        np.testing.assert_array_equal(value, values[name])
    with pytest.raises(ValueError, match="var_list can not be None"):
        paddle.static.load_program_state(str(tmp_path / "combined"))
    with paddle.static.scope_guard(paddle.static.Scope()):
        paddle.static.io.load_vars(exe, str(tmp_path / "each"), main, vars=params)
        for p in params:
            np.testing.assert_array_equal(np.array(paddle.static.global_scope().find_var(p.name).get_tensor()),
                                          values[p.name])
        with pytest.raises(ValueError, match="combined: tensor stream: \\d+ unexpected bytes after 2 tensors"):
            paddle.static.io.load_vars(exe, str(tmp_path), main, vars=params[:2], filename="combined")


def test_inference_model_in_the_1x_folder_layout(exe, tmp_path):
    main, feeds, fetches, _ = _conv_with_values(exe)
    want = exe.run(main.clone(for_test=True), feed={"img": EXPECTED["input:conv"]}, fetch_list=fetches)
    folder = tmp_path / "model"
    paddle.static.save_inference_model(str(folder / "conv"), feeds, fetches, exe, program=main,
                                       separate_parameters=True)
    assert "__model__" in os.listdir(folder) and "conv2d_0.w_0" in os.listdir(folder)
    with paddle.static.scope_guard(paddle.static.Scope()):
        program, feed_names, fetch_targets = paddle.static.load_inference_model(str(folder), exe,
                                                                                model_filename="__model__")
        got = exe.run(program, feed={"img": EXPECTED["input:conv"]}, fetch_list=fetch_targets)
    for g, w in zip(got, want):
        _close(g, w, "1.x layout")
    with pytest.raises(ValueError, match="unsupported argument 'pserver'"):
        paddle.static.load_inference_model(str(folder), exe, pserver=1)


def test_load_inference_model_from_memory(exe):
    with open(fixture("mlp.pdmodel"), "rb") as f, open(fixture("mlp.pdiparams"), "rb") as g:
        program, feeds, fetches = paddle.static.load_inference_model(None, exe, model_filename=f.read(),
                                                                     params_filename=g.read())
    out = exe.run(program, feed={feeds[0]: EXPECTED["input:mlp"]}, fetch_list=fetches)
    _close(out[0], EXPECTED["mlp:0"], "from memory")
    with pytest.raises(ValueError, match="params_filename cannot be None"):
        paddle.static.load_inference_model(None, exe, model_filename=b"")


def test_resave_a_paddle_inference_model(exe, tmp_path):
    program, feeds, fetches = paddle.static.load_inference_model(fixture("conv"), exe)
    feed_vars = [program.global_block().var(n) for n in feeds]
    paddle.static.save_inference_model(str(tmp_path / "again"), feed_vars, fetches[:1], exe, program=program)
    with paddle.static.scope_guard(paddle.static.Scope()):
        again, feeds2, fetches2 = paddle.static.load_inference_model(str(tmp_path / "again"), exe)
        (out,) = exe.run(again, feed={feeds2[0]: EXPECTED["input:conv"]}, fetch_list=fetches2)
    _close(out, EXPECTED["conv:0"], "re-saved")
    types = [op.type for op in again.global_block().ops]
    assert types.count("feed") == 1 and types.count("fetch") == 1
    assert "relu_1.tmp_0" not in again.global_block().vars    # the second target's ops were pruned


def test_string_typed_tolerances_round_trip(exe):
    # Paddle declares isclose's rtol/atol as STRING attributes; kernels here take floats
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [3], "float32")
        y = paddle.isclose(x, x + 1e-3, rtol=0.0, atol=1e-2)
    data = main.desc_bytes()
    attrs = {op.type: op for op in view_program(data).blocks[0].ops}["isclose"]
    assert attrs.attr_types["atol"] == "STRING" and float(attrs.attrs["atol"]) == 1e-2
    again = paddle.static.Program.parse_from_string(data)
    (out,) = exe.run(again, feed={"x": np.ones(3, "float32")}, fetch_list=[y.name])
    assert out.tolist() == [True, True, True]


def test_every_registered_default_attribute_survives_the_file():
    # encode with Paddle's declared type, decode, compare (FLOAT holds float32)
    from torchpaddle.ops.registry import REGISTRY, REQUIRED
    from torchpaddle.static.serialization import decode_attr

    class _Op:
        pass
    checked = 0
    for op_type, opdef in REGISTRY.items():
        proto = program_io._proto(op_type)
        op = _Op()
        op.type = op_type
        for name, value in opdef.attrs.items():
            if value is REQUIRED or value is None:
                continue
            attr = program_io._encode(op, name, value, proto[0].get(name) if proto else None)
            back = decode_attr(attr)
            if attr.type == pb.STRING and isinstance(value, float):
                back = float(back)
            want = program_io._plain(value)
            if attr.type in (pb.FLOAT, pb.FLOATS):
                np.testing.assert_allclose(back, np.float32(want), err_msg=f"{op_type}.{name}")
            else:
                assert back == want or (isinstance(want, list) and list(back) == want), f"{op_type}.{name}"
            checked += 1
    assert checked > 500


def test_unknown_ops_keep_their_attribute_types_when_saved_again():
    desc = desc_with_op("my_custom_op")
    op = desc.blocks[0].ops[0]
    for name, kind, field, value in [("ratio", pb.FLOAT64, "float64", 0.1), ("big", pb.LONG, "l", 5),
                                     ("flag", pb.BOOLEAN, "b", True)]:
        attr = op.attrs.add(name=name, type=kind)
        setattr(attr, field, value)
    program = paddle.static.Program.parse_from_string(desc.SerializeToString())
    again = view_program(program.desc_bytes()).blocks[0].ops[0]
    assert again.attr_types == {"ratio": "FLOAT64", "big": "LONG", "flag": "BOOLEAN"}
    assert again.attrs == {"ratio": 0.1, "big": 5, "flag": True}


def test_many_ops_round_trip_here(exe, tmp_path):
    main, startup, feeds, fetches = nets.build_zoo(paddle)
    exe.run(startup)
    nets.set_values(paddle, main, 41)
    data = nets.zoo_inputs()
    want = exe.run(main.clone(for_test=True), feed=data, fetch_list=fetches)
    paddle.static.save_inference_model(str(tmp_path / "zoo"), feeds, fetches, exe, program=main)
    view = view_program((tmp_path / "zoo.pdmodel").read_bytes())
    # every output slot Paddle's OpProto requires is there, for Paddle's executor
    for op in view.blocks[0].ops:
        proto = program_io._proto(op.type)
        required = {s for s in proto[3] if not s.endswith("?")} if proto else set()
        assert {s.rstrip("[]") for s in required} <= set(op.outputs), op.type
    with paddle.static.scope_guard(paddle.static.Scope()):
        program, feed_names, targets = paddle.static.load_inference_model(str(tmp_path / "zoo"), exe)
        got = exe.run(program, feed=data, fetch_list=targets)
    assert feed_names == ["x", "ids", "img"]
    for g, w, var in zip(got, want, fetches):
        np.testing.assert_array_equal(g, w, err_msg=var.name)


def test_load_inference_model_named_files_in_a_folder(exe, tmp_path):
    # the 1.x call: a folder plus file names, with or without Paddle's suffixes
    folder = tmp_path / "m"
    folder.mkdir()
    (folder / "net.pdmodel").write_bytes(open(fixture("mlp.pdmodel"), "rb").read())
    (folder / "weights").write_bytes(open(fixture("mlp.pdiparams"), "rb").read())
    program, feeds, fetches = paddle.static.load_inference_model(str(folder), exe, model_filename="net",
                                                                 params_filename="weights")
    out = exe.run(program, feed={feeds[0]: EXPECTED["input:mlp"]}, fetch_list=fetches)
    _close(out[0], EXPECTED["mlp:0"], "named files")
