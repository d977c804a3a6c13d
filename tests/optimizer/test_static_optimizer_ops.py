"""Static minimize as Paddle's per-parameter optimizer ops (cases: static_optimizer_cases.py): the same ops and
variables real Paddle 3.3.1 appends, its losses, eager's trajectories, and training programs saved on one side
(static.save + the startup program) that train on in the other and in a fresh torchpaddle process."""
import os
import pickle
import subprocess
import sys

import numpy as np
import pytest

import paddle_ref
import static_optimizer_cases as C
import torchpaddle as paddle
from conftest import ROOT


@pytest.fixture
def static():
    paddle.enable_static()
    try:
        yield
    finally:
        paddle.disable_static()


@pytest.fixture(scope="module")
def saved_here(tmp_path_factory):
    """Every savable case trained and saved by torchpaddle; -> (folder, {case: losses after the save})."""
    folder = str(tmp_path_factory.mktemp("saved_here"))
    paddle.enable_static()
    try:
        return folder, {case: C.save(paddle, case, folder) for case in C.SAVED}
    finally:
        paddle.disable_static()


@pytest.fixture(scope="module")
def reference(saved_here, tmp_path_factory):
    """Paddle's runs of the cases, its saves (in the returned folder) and its resumption of ours."""
    if not paddle_ref.available():
        pytest.skip("reference PaddlePaddle venv not found")
    theirs = str(tmp_path_factory.mktemp("saved_by_paddle"))
    return paddle_ref.results("tests.optimizer.static_optimizer_cases", saved_here[0], theirs, timeout=600), theirs


def _result(reference, key):
    return paddle_ref.value_of(reference[0], key)


def _close(ours, theirs, what, rtol=1e-5, atol=1e-6):
    np.testing.assert_allclose(ours, theirs, rtol=rtol, atol=atol, err_msg=what)


def _same_training(ours, theirs, what, **tolerance):
    _close(ours["losses"], theirs["losses"], f"{what}: losses", **tolerance)
    for name, value in theirs["params"].items():
        _close(ours["params"][name], value, f"{what}: {name}", **tolerance)


@pytest.mark.parametrize("case", C.PADDLE_BUILDS)
@pytest.mark.usefixtures("static")
@pytest.mark.conformance
def test_minimize_appends_paddles_ops_and_variables(case, reference):
    theirs = _result(reference, f"build:{case}")
    ours = C.optimize_ops(paddle, case)
    assert [op[0] for op in ours["ops"]] == [op[0] for op in theirs["ops"]]
    for i, (mine, paddles) in enumerate(zip(ours["ops"], theirs["ops"])):
        assert mine[1] == paddles[1], f"op {i} ({mine[0]}) slots"
        assert mine[2] == paddles[2], f"op {i} ({mine[0]}) attributes"
    assert ours["startup"] == theirs["startup"]
    assert ours["vars"] == theirs["vars"]


@pytest.mark.parametrize("case", C.PADDLE_BUILDS)
@pytest.mark.usefixtures("static")
@pytest.mark.conformance
def test_static_training_matches_paddle(case, reference):
    _same_training(C.train(paddle, case), _result(reference, f"train:{case}"), case)


@pytest.mark.parametrize("case", [c for c in C.FLOAT64 if c in C.PADDLE_BUILDS])
@pytest.mark.usefixtures("static")
@pytest.mark.conformance
def test_static_float64_training_matches_paddle(case, reference):
    _same_training(C.train(paddle, case, "float64"), _result(reference, f"train64:{case}"), case, rtol=1e-10,
                   atol=1e-12)


@pytest.mark.parametrize("case", C.SAVED)
@pytest.mark.conformance
def test_program_saved_here_trains_on_in_paddle(case, saved_here, reference):
    _close(_result(reference, f"resumed:{case}"), saved_here[1][case], case)


@pytest.mark.parametrize("case", [c for c in C.SAVED if c in C.PADDLE_BUILDS])
@pytest.mark.usefixtures("static")
@pytest.mark.conformance
def test_program_saved_by_paddle_trains_on_here(case, reference):
    _close(C.resume(paddle, reference[1], case), _result(reference, f"saved:{case}"), case)


@pytest.mark.parametrize("case", sorted(C.OP_CASES))
@pytest.mark.usefixtures("static")
@pytest.mark.conformance
def test_op_matches_paddles_kernel(case, reference):
    theirs = _result(reference, f"op:{case}")
    ours = C.run_op(paddle, case)
    assert sorted(ours) == sorted(theirs)
    for name, value in theirs.items():
        _close(ours[name], value, f"{case}: {name}")


@pytest.mark.multiprocess
def test_program_saved_here_trains_on_in_a_fresh_process(saved_here, tmp_path):
    out = tmp_path / "resumed.pkl"
    env = dict(os.environ, PYTHONPATH=ROOT)
    subprocess.run([sys.executable, "-m", "tests.optimizer.static_optimizer_cases", "--torchpaddle", str(out),
                    saved_here[0]], cwd=ROOT, env=env, check=True, timeout=300)
    with open(out, "rb") as f:
        resumed = pickle.load(f)["results"]
    for case, losses in saved_here[1].items():
        assert not (isinstance(resumed[case], tuple) and resumed[case][0] == "E"), resumed[case]
        # the same ops on the same values: only the attributes went through float32 in the file
        _close(resumed[case], losses, case, rtol=1e-6, atol=0)


@pytest.mark.parametrize("case", C.CASES)
def test_static_ops_train_like_eager(case):
    dtype = "float64" if case in C.FLOAT64 else "float32"
    paddle.enable_static()
    try:
        static = C.train(paddle, case, dtype)
    finally:
        paddle.disable_static()
    tolerance = {"rtol": 1e-12, "atol": 1e-14} if dtype == "float64" else {"rtol": 1e-6, "atol": 1e-7}
    _same_training(static, C.train_eager(paddle, case, dtype), f"{case} ({dtype})", **tolerance)
