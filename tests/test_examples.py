"""The README's main job: a Paddle example script run unchanged through `python -m torchpaddle`."""
import os
import subprocess
import sys

import pytest

from conftest import ROOT


@pytest.mark.slow
def test_train_lenet_example_runs_and_learns():
    proc = subprocess.run([sys.executable, "-m", "torchpaddle", os.path.join("examples", "train_lenet.py")],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert "Epoch 2/2" in proc.stdout and "step 32/32" in proc.stdout  # Paddle's progress lines
    assert "eval: {'loss':" in proc.stdout


def test_static_classifier_example_runs_and_learns():
    proc = subprocess.run([sys.executable, "-m", "torchpaddle", os.path.join("examples", "static_classifier.py")],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert "epoch 4: train loss" in proc.stdout
