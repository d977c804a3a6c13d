"""Locating and running the reference PaddlePaddle 3.3.1 virtualenv (never imported into torchpaddle)."""
import os
import pickle
import subprocess
import tempfile

import pytest

from conftest import ROOT

PYTHON = os.environ.get("PADDLE_REF_PYTHON", os.path.join(ROOT, ".paddle_venv", "bin", "python"))


def available():
    return os.path.exists(PYTHON)


def run_module(module, *args, timeout=1200):
    """Run ``python -m module args`` in the reference venv from the repo root; fail loudly on error."""
    if not available():
        pytest.skip(f"reference PaddlePaddle venv not found at {PYTHON} (set PADDLE_REF_PYTHON)")
    env = dict(os.environ, PYTHONPATH=ROOT, GLOG_minloglevel="3", FLAGS_call_stack_level="0")
    proc = subprocess.run([PYTHON, "-m", module, *args], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=timeout)
    if proc.returncode != 0:
        raise RuntimeError(f"reference run of {module} failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-5000:]}")
    return proc.stdout


def results(module, *args, timeout=1200):
    """Run ``python -m module OUT.pkl args`` in the reference venv; the ``results`` entry of the pickle it wrote."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "ref.pkl")
        run_module(module, path, *args, timeout=timeout)
        with open(path, "rb") as f:
            return pickle.load(f)["results"]


def compare_tree(ours, theirs, where, leaf):
    """Walk Paddle's result (dicts, lists, tuples) beside ours; ``leaf(ours, theirs, where)`` compares what it
    recognises and returns True, anything else must be equal and of the same type."""
    if leaf(ours, theirs, where):
        return
    if isinstance(theirs, dict):
        assert isinstance(ours, dict) and sorted(ours) == sorted(theirs), f"{where}: {ours!r} vs {theirs!r}"
        for key in theirs:
            compare_tree(ours[key], theirs[key], f"{where}.{key}", leaf)
    elif isinstance(theirs, (list, tuple)):
        assert isinstance(ours, (list, tuple)) and len(ours) == len(theirs), f"{where}: {ours!r} vs {theirs!r}"
        for i, (o, t) in enumerate(zip(ours, theirs)):
            compare_tree(o, t, f"{where}[{i}]", leaf)
    else:
        assert ours == theirs and type(ours) is type(theirs), f"{where}: ours {ours!r}, Paddle {theirs!r}"
