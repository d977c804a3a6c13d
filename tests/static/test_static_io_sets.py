"""static.save and save_inference_model write their files as one set (framework/atomic.py): a save stopped
before its first file moved leaves the old set, which loads with the old values; one stopped between two files
is refused on load rather than loaded as a mix. Model.save and jit.save: tests/framework/test_save_sets.py."""
import os

import numpy as np
import pytest

import torchpaddle as paddle
from save_faults import Killed, disk_full_at_fsync, killed_at_rename
from torchpaddle.framework.atomic import IncompleteSaveError

from tests.static.static_io_common import TRAIN_FEED, exe, nets  # noqa: F401

# these tests check the legacy .pdmodel files (PIR .json: tests/static/test_pir_json.py)
pytestmark = pytest.mark.usefixtures("legacy_program_format")


def _scope_values(names):
    scope = paddle.static.global_scope()
    return {n: np.array(scope.find_var(n).get_tensor()) for n in names}


def _trained(exe, seed):
    main, startup, _, fetches = nets.build_mlp_train(paddle)
    exe.run(startup)
    return main, startup, nets.set_values(paddle, main, seed)


def _assert_values(got, want):
    for name in want:
        np.testing.assert_array_equal(got[name], want[name], err_msg=name)


@pytest.mark.parametrize("renames", [0, 1])
def test_static_save_stopped_before_a_file_moved_leaves_the_old_set(exe, tmp_path, renames):
    path = str(tmp_path / "model")
    main, startup, old = _trained(exe, 1)
    paddle.static.save(main, path)
    nets.set_values(paddle, main, 2)
    with killed_at_rename(renames), pytest.raises(Killed):
        paddle.static.save(main, path)
    _assert_values(paddle.static.load_program_state(path), old)
    with paddle.static.scope_guard(paddle.static.Scope()):
        exe.run(startup)
        paddle.static.load(main, path, exe)
        _assert_values(_scope_values(old), old)


def test_static_save_stopped_between_files_is_refused(exe, tmp_path):
    path = str(tmp_path / "model")
    main, startup, _ = _trained(exe, 1)
    paddle.static.save(main, path)
    nets.set_values(paddle, main, 2)
    with killed_at_rename(2), pytest.raises(Killed):   # manifest, then .pdparams; the old .pdopt and .pdmodel stay
        paddle.static.save(main, path)
    # .pdmodel is not named: the same program, so the old file is also what the new save wrote
    message = r"model\.pdopt is not what that save wrote while model\.pdparams is"
    with pytest.raises(IncompleteSaveError, match=message):
        paddle.static.load_program_state(path)
    with paddle.static.scope_guard(paddle.static.Scope()):
        exe.run(startup)
        with pytest.raises(IncompleteSaveError, match=message):
            paddle.static.load(main, path, exe)
    with pytest.raises(IncompleteSaveError):
        paddle.load(path + ".pdopt")


def test_static_save_that_fails_writing_keeps_the_old_files(exe, tmp_path):
    path = str(tmp_path / "model")
    main, _, old = _trained(exe, 1)
    paddle.static.save(main, path)
    before = {n: (tmp_path / n).read_bytes() for n in os.listdir(tmp_path)}
    nets.set_values(paddle, main, 2)
    with disk_full_at_fsync(2), pytest.raises(OSError, match="No space left"):   # writing .pdmodel fails
        paddle.static.save(main, path)
    assert {n: (tmp_path / n).read_bytes() for n in os.listdir(tmp_path)} == before
    _assert_values(paddle.static.load_program_state(path), old)


def _inference_outputs(exe, prefix):
    with paddle.static.scope_guard(paddle.static.Scope()):
        program, feeds, fetches = paddle.static.load_inference_model(prefix, exe)
        return exe.run(program, feed={feeds[0]: TRAIN_FEED["x"]}, fetch_list=fetches)[0]


def _inference_program(main):
    """The test clone of build_mlp_train's program with its feed x and its logits."""
    program = main.clone(for_test=True)
    block = program.global_block()
    return program, [block.var("x")], [block.var("elementwise_add_2.tmp_0")]


def test_save_inference_model_stopped_midway(exe, tmp_path):
    prefix = str(tmp_path / "infer")
    main, _, _ = _trained(exe, 1)
    test_program, feeds, fetches = _inference_program(main)
    paddle.static.save_inference_model(prefix, feeds, fetches, exe, program=test_program)
    old = _inference_outputs(exe, prefix)
    nets.set_values(paddle, main, 2)
    with killed_at_rename(1), pytest.raises(Killed):   # the manifest only
        paddle.static.save_inference_model(prefix, feeds, fetches, exe, program=test_program)
    np.testing.assert_array_equal(_inference_outputs(exe, prefix), old)
    with killed_at_rename(2), pytest.raises(Killed):   # the new .pdmodel beside the old .pdiparams
        paddle.static.save_inference_model(prefix, feeds, fetches, exe, program=test_program)
    with pytest.raises(IncompleteSaveError, match=r"infer\.pdiparams is not what that save wrote"):
        _inference_outputs(exe, prefix)
    paddle.static.save_inference_model(prefix, feeds, fetches, exe, program=test_program)
    assert not np.array_equal(_inference_outputs(exe, prefix), old)


def test_save_inference_model_removes_the_info_file_of_an_earlier_jit_save(exe, tmp_path):
    prefix = str(tmp_path / "net")
    paddle.disable_static()
    try:
        paddle.jit.save(paddle.nn.Linear(4, 3), prefix, input_spec=[paddle.static.InputSpec([None, 4], "float32")])
    finally:
        paddle.enable_static()
    assert os.path.exists(prefix + ".pdiparams.info")
    main, _, _ = _trained(exe, 1)
    test_program, feeds, fetches = _inference_program(main)
    paddle.static.save_inference_model(prefix, feeds, fetches, exe, program=test_program)
    # it named another program's variables: Paddle's jit.load would take it for this model's
    assert sorted(os.listdir(tmp_path)) == ["net.pdiparams", "net.pdmodel", "net.tpsave"]
