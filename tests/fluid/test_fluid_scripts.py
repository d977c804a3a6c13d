"""Fluid-era end-to-end scripts (tests/fluid/scripts/*.py, written the Paddle 1.x way with ``import paddle.fluid``)
run unchanged on Paddle 1.8.5 and through ``python -m torchpaddle``; they must train the same losses."""
import os
import pickle
import subprocess
import sys

import numpy as np
import pytest

import paddle_ref
from conftest import ROOT
from tests.fluid.scripts import run_scripts


@pytest.fixture(scope="module")
def ours(tmp_path_factory):
    out = str(tmp_path_factory.mktemp("scripts") / "ours.pkl")
    proc = subprocess.run([sys.executable, "-m", "torchpaddle", "-m", "tests.fluid.scripts.run_scripts", out],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-3000:]
    with open(out, "rb") as f:
        return pickle.load(f)["results"]


@pytest.fixture(scope="module")
def reference():
    return paddle_ref.results("tests.fluid.scripts.run_scripts", python=paddle_ref.FLUID_PYTHON)


@pytest.mark.slow
@pytest.mark.conformance
@pytest.mark.parametrize("script", run_scripts.SCRIPTS)
def test_script_trains_like_paddle_1_8(script, ours, reference):
    theirs, mine = reference[script], ours[script]
    assert not (isinstance(theirs, tuple) and theirs[0] == "E"), f"Paddle 1.8.5 failed:\n{theirs[2]}"
    assert not (isinstance(mine, tuple) and mine[0] == "E"), f"torchpaddle failed:\n{mine[2]}"
    assert mine["parameters"] == theirs["parameters"]
    assert len(mine["losses"]) == len(theirs["losses"])
    np.testing.assert_allclose(mine["losses"], theirs["losses"], rtol=1e-4, atol=1e-5, err_msg=script)
    # the losses move: the scripts really train
    assert len(set(np.round(mine["losses"][:3], 6))) > 1


def test_example_script_runs():
    path = os.path.join(ROOT, "examples", "fluid_mnist_dygraph.py")
    proc = subprocess.run([sys.executable, "-m", "torchpaddle", path], cwd=ROOT, capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-3000:]
    assert "epoch 1, step 3, loss" in proc.stdout and "saved to" in proc.stdout
