"""Dist attributes in the PIR `.json` format, both ways: a sharded program real PaddlePaddle 3.3.1 saved
(tests/fixtures/pir/dist_matmul.*, made by make_dist_fixture.py) reads here with its meshes, dims mappings and
partial dims, and what torchpaddle writes reads back here and in Paddle (make_dist_fixture.py --check)."""
import json
import os

import numpy as np
import pytest

import paddle_ref
import torchpaddle as paddle
from torchpaddle.framework.dist_attr import ReduceType, TensorDistAttr
from torchpaddle.framework.process_mesh import ProcessMesh
from torchpaddle.static.serialization import pir_json

from conftest import ROOT

FIXTURE = os.path.join(ROOT, "tests", "fixtures", "pir", "dist_matmul")
MESH = ProcessMesh([[0, 1]], dim_names=["x", "y"])
SUM = ReduceType.kRedSum


def _layout(var):
    attr = var.dist_attr
    mesh = attr.process_mesh
    return [mesh.shape, mesh.process_ids, mesh.dim_names, attr.dims_mapping, attr._partial_status()]


def _by_type(program, type_):
    return next(op for op in program.global_block().ops if op.type == type_)


def test_paddles_file_parses_and_serializes_back_unchanged():
    with open(FIXTURE + ".json", "rb") as f:
        data = f.read()
    program = pir_json.parse_program(data)
    assert json.loads(pir_json.serialize_program(program)) == json.loads(data)
    matmul = next(op for op in program.global_block().ops if op.name == "pd_op.matmul")
    (_, t), = matmul.results
    assert t.shape == [-1, 8] and t.local_shape == [-1, 8]
    assert t.dist.dims_mapping == (-1, -1) and t.dist.partial == ((1, 0),)
    assert t.dist.mesh.shape == (1, 2) and t.dist.mesh.dim_names == ("x", "y")


def test_paddles_sharded_program_loads_with_its_dist_attrs(static_mode):
    exe = paddle.static.Executor()
    program, feeds, fetches = paddle.static.load_inference_model(FIXTURE, exe)
    block = program.global_block()
    mesh = [[1, 2], [0, 1], ["x", "y"]]
    # the shard_tensor ops' layouts land on the variables they annotate
    assert _layout(block.var("w")) == mesh + [[1, -1], {}]
    assert _layout(block.var("x")) == mesh + [[-1, 1], {}]
    matmul = _by_type(program, "matmul_v2")
    out = matmul.output("Out")[0]
    assert _layout(block.var(out)) == mesh + [[-1, -1], {1: SUM}]
    attr = matmul.dist_attr
    assert attr.process_mesh == MESH and attr.chunk_id == -1
    assert attr.get_input_dims_mapping("x") == [-1, 1] and attr.get_input_dims_mapping("w") == [1, -1]
    assert attr.get_output_dist_attr(out)._partial_status() == {1: SUM}
    # the values are Paddle's: relu(x @ w) with the saved w
    x = np.random.default_rng(0).normal(size=(3, 6)).astype("float32")
    w = np.linspace(-1, 1, 48, dtype="float32").reshape(6, 8)
    got = exe.run(program, feed={"x": x}, fetch_list=fetches)[0]
    np.testing.assert_allclose(got, np.maximum(x @ w, 0), rtol=1e-5, atol=1e-6)


def _sharded_program():
    """relu(x @ w) with x sharded on its columns, w on its rows, the matmul's result partial over mesh dim 1."""
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [-1, 6], "float32")
        w = paddle.create_parameter([6, 8], "float32", name="w")
        out = paddle.nn.functional.relu(paddle.matmul(x, w))
    for var, dims in ((x, [-1, 1]), (w, [1, -1])):
        attr = TensorDistAttr()
        attr.process_mesh, attr.dims_mapping = MESH, dims
        var.dist_attr = attr
    matmul = _by_type(main, "matmul_v2")
    mm_out = main.global_block().var(matmul.output("Out")[0])
    partial = TensorDistAttr()
    partial.process_mesh, partial.dims_mapping = MESH, [-1, -1]
    partial._set_partial_dims([1])
    mm_out.dist_attr = partial
    matmul.dist_attr.process_mesh = MESH
    matmul.dist_attr.set_input_dims_mapping("x", [-1, 1])
    matmul.dist_attr.set_input_dims_mapping("w", [1, -1])
    matmul.dist_attr.set_output_dist_attr(mm_out.name, partial)
    return main, startup, x, out


def _expected_layouts(program):
    """What Paddle's --check prints for our program: per op, its results' and its own dist attrs."""
    mesh = [[1, 2], [0, 1], ["x", "y"]]
    w, x = mesh + [[1, -1], []], mesh + [[-1, 1], []]
    part, rep = mesh + [[-1, -1], [1]], mesh + [[-1, -1], []]
    return [["builtin.parameter", [w], None], ["pd_op.data", [x], None],
            ["pd_op.matmul", [part], [[1, 2], [x, w], [part]]], ["pd_op.relu", [None], None],
            ["pd_op.fetch", [None], None]]


def test_what_we_write_reads_back_with_the_same_dist_attrs(static_mode, tmp_path):
    main, startup, x, out = _sharded_program()
    exe = paddle.static.Executor()
    exe.run(startup)
    want = exe.run(main, feed={"x": np.ones((2, 6), "float32")}, fetch_list=[out])[0]
    prefix = str(tmp_path / "sharded")
    paddle.static.save_inference_model(prefix, [x], [out], exe, program=main)
    with open(prefix + ".json") as f:
        text = f.read()
    assert "4.t_dist_dtensor" in text and "op_dist_attr" in text
    back, _, fetches = paddle.static.load_inference_model(prefix, exe)
    block = back.global_block()
    for name in ("x", "w"):
        assert _layout(block.var(name)) == _layout(main.global_block().var(name))
    matmul = _by_type(back, "matmul_v2")
    assert _layout(block.var(matmul.output("Out")[0]))[3:] == [[-1, -1], {1: SUM}]
    assert matmul.dist_attr.get_input_dims_mapping("x") == [-1, 1]
    assert matmul.dist_attr.get_input_dims_mapping("w") == [1, -1]
    assert _by_type(back, "relu")._dist_attr is None or _by_type(back, "relu").dist_attr.process_mesh is None
    np.testing.assert_array_equal(exe.run(back, feed={"x": np.ones((2, 6), "float32")}, fetch_list=fetches)[0],
                                  want)


@pytest.mark.conformance
@pytest.mark.skipif(not paddle_ref.available(), reason="reference PaddlePaddle venv not found")
def test_paddle_reads_the_dist_attrs_we_write(static_mode, tmp_path):
    main, startup, x, out = _sharded_program()
    exe = paddle.static.Executor()
    exe.run(startup)
    prefix = str(tmp_path / "sharded")
    paddle.static.save_inference_model(prefix, [x], [out], exe, program=main)
    found = json.loads(paddle_ref.run_module("tests.fixtures.pir.make_dist_fixture", "--check", prefix,
                                             timeout=300).strip().splitlines()[-1])
    assert found == _expected_layouts(main)


@pytest.mark.parametrize("path,value,message", [
    (("D", 1, "D", 1), [2, -1], "dims_mapping"),                 # a mesh dim the 2-D mesh does not have
    (("D", 1, "D", 2), [[0, 9]], "partial"),                      # an unknown reduce type
    (("D", 1, "D", 0, "D", 0), [1, 3], "process mesh shape"),     # 3 processes in a mesh of 2
    (("D", 2), [1], "local dims"),
])
def test_damaged_dist_types_are_value_errors(path, value, message):
    with open(FIXTURE + ".json") as f:
        data = json.load(f)
    ops = data["program"]["regions"][0]["blocks"][0]["ops"]
    node = next(op for op in ops if op["#"] == "1.matmul")["O"][0]["TT"]
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    with pytest.raises(ValueError, match=message):
        pir_json.parse_program(json.dumps(data))
