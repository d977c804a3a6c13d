"""The fluid namespace against Paddle 1.8.5 (fluid_namespace_cases.py), the mode rule (fluid code is static
by default, a 2.x program stays dygraph), the lazy ``paddle.fluid`` attribute, and the LoD refusals."""
import os
import subprocess
import sys

import numpy as np
import pytest

import paddle_ref
import torchpaddle as paddle
from conftest import ROOT
from tests.fluid import fluid_namespace_cases as cases
from tests.nn.layer_case_tools import compare, run_cases


def _run_ours():
    paddle.enable_static()
    try:
        return run_cases(cases.CASES, paddle)
    finally:
        paddle.disable_static()


@pytest.fixture(scope="module")
def reference():
    return paddle_ref.results("tests.fluid.fluid_namespace_cases", python=paddle_ref.FLUID_PYTHON)


@pytest.fixture(scope="module")
def ours():
    return _run_ours()


@pytest.mark.parametrize("name", sorted(set(cases.CASES) - {"data_errors", "initializer_classes",
                                                            "regularizer_and_clip", "places_and_flags",
                                                            "require_version", "param_attr", "lod_tensor"}))
def test_case_runs(name, ours):
    assert not (isinstance(ours[name], tuple) and ours[name][0] == "E"), f"{name} raised {ours[name][1]}"


@pytest.mark.conformance
@pytest.mark.parametrize("name", sorted(cases.CASES))
def test_matches_paddle_1_8(name, reference, ours):
    compare(ours[name], reference[name], name)


def _python(code):
    env = dict(os.environ, PYTHONPATH=ROOT)
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout.split()


def test_fluid_script_runs_static_by_default_and_guard_switches():
    code = """
import sys
import numpy as np
import torchpaddle
print("torchpaddle.fluid" in sys.modules)
torchpaddle.install_as_paddle()
import paddle
import paddle.fluid as fluid
print(paddle.in_dynamic_mode(), paddle.fluid is fluid)
x = fluid.layers.data(name="x", shape=[2], dtype="float32")
print(paddle.in_dynamic_mode())
y = x * 2.0
exe = fluid.Executor(fluid.CPUPlace())
print(float(exe.run(feed={"x": np.ones([1, 2], "float32")}, fetch_list=[y])[0].sum()))
with fluid.dygraph.guard():
    print(paddle.in_dynamic_mode(), float(fluid.dygraph.to_variable(np.ones([2], "float32")).sum()))
print(paddle.in_dynamic_mode())
"""
    assert _python(code) == ["False", "True", "True", "False", "4.0", "True", "2.0", "False"]


def test_the_first_static_only_call_switches_unless_a_mode_was_chosen(monkeypatch):
    import torchpaddle.fluid as fluid
    from torchpaddle.framework.mode import _ModeState
    assert paddle.in_dynamic_mode()
    monkeypatch.setattr(_ModeState, "chosen", True)          # the program called disable_static() itself
    with pytest.raises(RuntimeError, match="dygraph mode was chosen"):
        fluid.data(name="x", shape=[2])
    assert paddle.in_dynamic_mode() and float(paddle.to_tensor([1.0, 2.0]).sum()) == 3.0
    monkeypatch.setattr(_ModeState, "chosen", False)         # a 1.x script: never chose
    try:
        with fluid.program_guard(fluid.Program(), fluid.Program()):
            assert not paddle.in_dynamic_mode()
            assert fluid.data(name="x", shape=[2]).shape == (2,)
    finally:
        paddle.disable_static()


def test_lod_tensors_feed_and_fetch(static_mode):
    """LoD in depth: tests/fluid/test_fluid_lod.py."""
    import torchpaddle.fluid as fluid
    assert fluid.create_lod_tensor(np.ones([4, 1], "int64"), [[1, 3]], fluid.CPUPlace()).lod() == [[0, 1, 4]]
    assert fluid.create_random_int_lodtensor([[2, 2]], [1], fluid.CPUPlace(), 0, 9).shape() == [4, 1]
    x = fluid.data(name="x", shape=[None, 1], dtype="int64", lod_level=1)
    t = fluid.LoDTensor()
    t.set(np.ones([4, 1], "int64"), fluid.CPUPlace())
    t.set_recursive_sequence_lengths([[1, 3]])
    out, = fluid.Executor(fluid.CPUPlace()).run(feed={"x": t}, fetch_list=[x], return_numpy=False)
    assert out.lod() == [[0, 1, 4]]
    assert int(fluid.create_random_int_lodtensor([], [2, 3], fluid.CPUPlace(), 1, 1).shape()[1]) == 3


def test_load_op_library_errors(tmp_path):
    import torchpaddle.fluid as fluid
    with pytest.raises(ValueError, match="no such file"):
        fluid.load_op_library(str(tmp_path / "missing.so"))
    bogus = tmp_path / "custom_op.so"
    bogus.write_bytes(b"not an ELF file")
    with pytest.raises(RuntimeError, match="cannot load"):
        fluid.load_op_library(str(bogus))


def test_data_feed_desc(tmp_path):
    import torchpaddle.fluid as fluid
    path = tmp_path / "feed.proto"
    path.write_text('name: "MultiSlotDataFeed"\nbatch_size: 2\nmulti_slot_desc {\n  slots {\n    name: "words"\n'
                    '    type: "uint64"\n    is_dense: false\n    is_used: true\n  }\n  slots {\n    name: "label"\n'
                    '    type: "uint64"\n    is_dense: false\n    is_used: false\n  }\n}\n')
    desc = fluid.DataFeedDesc(str(path))
    desc.set_batch_size(128)
    desc.set_dense_slots(["words"])
    desc.set_use_slots(["label"])
    # what Paddle 1.8.5 prints for the same calls
    assert desc.desc() == ('name: "MultiSlotDataFeed"\nbatch_size: 128\nmulti_slot_desc {\n  slots {\n    name: '
                           '"words"\n    type: "uint64"\n    is_dense: true\n    is_used: true\n  }\n  slots {\n    '
                           'name: "label"\n    type: "uint64"\n    is_dense: false\n    is_used: true\n  }\n}\n'
                           'pipe_command: "cat"\n')
    with pytest.raises(KeyError):
        desc.set_dense_slots(["nope"])
    path.write_text("name: [broken")
    with pytest.raises(ValueError, match="cannot parse"):
        fluid.DataFeedDesc(str(path))


def test_every_fluid_namespace_name_resolves():
    import torchpaddle.fluid as fluid
    missing = [n for n in ("Program", "program_guard", "default_main_program", "default_startup_program",
                           "Executor", "CompiledProgram", "ParallelExecutor", "BuildStrategy", "ExecutionStrategy",
                           "CPUPlace", "CUDAPlace", "CUDAPinnedPlace", "cpu_places", "cuda_places",
                           "cuda_pinned_places", "global_scope", "scope_guard", "ParamAttr", "WeightNormParamAttr",
                           "initializer", "regularizer", "clip", "unique_name", "backward", "framework", "core",
                           "set_flags", "get_flags", "require_version", "memory_optimize", "release_memory",
                           "device_guard", "load_op_library", "data", "one_hot", "DataFeeder", "DataFeedDesc",
                           "Tensor", "LoDTensor", "LoDTensorArray", "create_lod_tensor", "create_random_int_lodtensor",
                           "optimizer", "io", "layers", "dygraph", "embedding", "enable_dygraph", "disable_dygraph",
                           "in_dygraph_mode", "Scope", "Variable", "save", "load", "load_program_state",
                           "set_program_state") if not hasattr(fluid, n)]
    assert missing == []
    assert fluid.core.LoDTensor is fluid.LoDTensor and fluid.core.Scope is fluid.Scope
    assert fluid.core.VarDesc.VarType.FP32 == 5


def test_compiled_program_with_data_parallel_runs_like_the_program(static_mode):
    import torchpaddle.fluid as fluid
    x = fluid.layers.data(name="x", shape=[3], dtype="float32")
    w = paddle.static.create_parameter([3, 1], "float32", name="w",
                                       default_initializer=paddle.nn.initializer.Constant(0.5))
    loss = paddle.mean(paddle.matmul(x, w))
    fluid.optimizer.SGD(learning_rate=0.1).minimize(loss)
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(fluid.default_startup_program())
    strategy = fluid.BuildStrategy()
    compiled = fluid.CompiledProgram(fluid.default_main_program()).with_data_parallel(
        loss_name=loss.name, build_strategy=strategy, exec_strategy=fluid.ExecutionStrategy(),
        places=fluid.cpu_places(2))
    data = np.arange(12, dtype="float32").reshape(4, 3)
    out = exe.run(compiled, feed={"x": data}, fetch_list=[loss])[0]
    assert np.allclose(np.mean(out), data.dot(np.full([3, 1], 0.5)).mean())
    # each place's mean gradient, averaged: the step of one program on the whole batch
    np.testing.assert_allclose(np.array(fluid.global_scope().find_var("w").get_tensor()).ravel(),
                               0.5 - 0.1 * data.mean(axis=0), rtol=1e-6)
