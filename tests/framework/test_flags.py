"""paddle.set_flags / get_flags: the flag table, type rules, errors, environment, torch effects."""
import json
import os
import subprocess
import sys

import pytest
import torch

import torchpaddle as paddle
import paddle_ref
from conftest import ROOT
from torchpaddle.framework import flags as _flags


@pytest.fixture
def restore_flags():
    saved = dict(_flags._VALUES)
    threads = torch.get_num_threads()
    deterministic = torch.are_deterministic_algorithms_enabled()
    yield
    _flags._VALUES.update(saved)
    torch.set_num_threads(threads)
    torch.use_deterministic_algorithms(deterministic)
    torch.backends.cudnn.deterministic = False
    torch.backends.cudnn.benchmark = False


def test_get_flags_forms():
    assert paddle.get_flags("FLAGS_check_nan_inf") == {"FLAGS_check_nan_inf": False}
    assert paddle.get_flags(["FLAGS_use_mkldnn", "FLAGS_allocator_strategy"]) == {
        "FLAGS_use_mkldnn": False, "FLAGS_allocator_strategy": "auto_growth"}
    assert paddle.get_flags(("FLAGS_enable_pir_api",)) == {"FLAGS_enable_pir_api": True}
    assert paddle.get_flags([]) == {}
    assert paddle.get_flags("FLAGS_eager_delete_tensor_gb") == {"FLAGS_eager_delete_tensor_gb": 0.0}
    assert paddle.get_flags("FLAGS_cudnn_deterministic") == {"FLAGS_cudnn_deterministic": False}


@pytest.mark.parametrize("name, value, stored", [
    ("FLAGS_check_nan_inf", True, True),
    ("FLAGS_check_nan_inf", 0, False),
    ("FLAGS_check_nan_inf", 2.5, True),
    ("FLAGS_eager_delete_tensor_gb", 2, 2.0),
    ("FLAGS_eager_delete_tensor_gb", 1.5, 1.5),
    ("FLAGS_call_stack_level", True, 1),
    ("FLAGS_call_stack_level", 2, 2),
    ("FLAGS_allocator_strategy", "naive_best_fit", "naive_best_fit"),
    ("FLAGS_enable_pir_api", False, False),
])
def test_set_then_get_coerces_like_paddle(restore_flags, name, value, stored):
    paddle.set_flags({name: value})
    got = paddle.get_flags(name)[name]
    assert got == stored and type(got) is type(stored)


@pytest.mark.parametrize("call, error", [
    (lambda: paddle.get_flags("FLAGS_no_such_flag"), ValueError),
    (lambda: paddle.get_flags(["FLAGS_check_nan_inf", "FLAGS_no_such_flag"]), ValueError),
    (lambda: paddle.get_flags("check_nan_inf"), ValueError),
    (lambda: paddle.get_flags(3), TypeError),
    (lambda: paddle.set_flags({"FLAGS_no_such_flag": 1}), ValueError),
    (lambda: paddle.set_flags([("FLAGS_check_nan_inf", True)]), TypeError),
    (lambda: paddle.set_flags({3: True}), TypeError),
    (lambda: paddle.set_flags({"FLAGS_check_nan_inf": "true"}), RuntimeError),
    (lambda: paddle.set_flags({"FLAGS_eager_delete_tensor_gb": "1.5"}), RuntimeError),
    (lambda: paddle.set_flags({"FLAGS_allocator_strategy": 3}), RuntimeError),
    (lambda: paddle.set_flags({"FLAGS_call_stack_level": 2.7}), RuntimeError),
])
def test_errors(restore_flags, call, error):
    with pytest.raises(error):
        call()


def test_failed_set_changes_nothing(restore_flags):
    with pytest.raises(ValueError):
        paddle.set_flags({"FLAGS_check_nan_inf": True, "FLAGS_no_such_flag": 1})
    with pytest.raises(TypeError):
        paddle.set_flags({"FLAGS_check_nan_inf": True, "FLAGS_allocator_strategy": 3})
    assert paddle.get_flags("FLAGS_check_nan_inf")["FLAGS_check_nan_inf"] is False


def test_cudnn_deterministic_maps_to_torch(restore_flags):
    paddle.set_flags({"FLAGS_cudnn_deterministic": True})
    assert torch.are_deterministic_algorithms_enabled() and torch.is_deterministic_algorithms_warn_only_enabled()
    assert torch.backends.cudnn.deterministic and not torch.backends.cudnn.benchmark
    paddle.set_flags({"FLAGS_cudnn_exhaustive_search": True})
    assert not torch.backends.cudnn.benchmark  # deterministic wins, as in Paddle
    paddle.set_flags({"FLAGS_cudnn_deterministic": False})
    assert not torch.are_deterministic_algorithms_enabled() and not torch.backends.cudnn.deterministic
    paddle.set_flags({"FLAGS_cudnn_exhaustive_search": True})
    assert torch.backends.cudnn.benchmark


def test_num_threads_maps_to_torch(restore_flags):
    paddle.set_flags({"FLAGS_paddle_num_threads": 1})
    assert torch.get_num_threads() == 1


def _threads_after_import(**env):
    clean = {k: v for k, v in os.environ.items() if k not in ("OMP_NUM_THREADS", "FLAGS_paddle_num_threads")}
    code = "import torch, torchpaddle; print(torch.get_num_threads())"
    out = subprocess.run([sys.executable, "-c", code], env=dict(clean, PYTHONPATH=ROOT, **env),
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    return int(out.stdout.split()[-1])


def test_default_intra_op_threads_follow_paddle():
    """One intra-op thread by default (Paddle's FLAGS_paddle_num_threads=1); an explicit choice wins."""
    assert _threads_after_import() == 1
    assert _threads_after_import(OMP_NUM_THREADS="2") == 2
    assert _threads_after_import(FLAGS_paddle_num_threads="2") == 2


def _import_with_env(env_flags, names):
    env = dict(os.environ, PYTHONPATH=ROOT, **env_flags)
    code = ("import json, torch, torchpaddle as p; "
            f"print(json.dumps([p.get_flags({names!r}), torch.are_deterministic_algorithms_enabled()]))")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_environment_is_read_at_import():
    names = ["FLAGS_check_nan_inf", "FLAGS_use_mkldnn", "FLAGS_benchmark", "FLAGS_eager_delete_tensor_gb",
             "FLAGS_call_stack_level", "FLAGS_allocator_strategy", "FLAGS_check_nan_inf_level",
             "FLAGS_cudnn_deterministic", "FLAGS_memory_fraction_of_eager_deletion"]
    got, deterministic = _import_with_env({
        "FLAGS_check_nan_inf": "1", "FLAGS_use_mkldnn": "True", "FLAGS_benchmark": "yes",
        "FLAGS_eager_delete_tensor_gb": "1.5", "FLAGS_call_stack_level": "3x",
        "FLAGS_allocator_strategy": "naive_best_fit", "FLAGS_check_nan_inf_level": "junk",
        "FLAGS_cudnn_deterministic": "true", "FLAGS_memory_fraction_of_eager_deletion": "x",
        "FLAGS_not_a_flag": "1"}, names)
    # Values as PaddlePaddle 3.3.1 reads the same environment ("yes" is not true; unparsable numbers keep
    # the default; a number's leading digits count).
    assert got == {"FLAGS_check_nan_inf": True, "FLAGS_use_mkldnn": True, "FLAGS_benchmark": False,
                   "FLAGS_eager_delete_tensor_gb": 1.5, "FLAGS_call_stack_level": 3,
                   "FLAGS_allocator_strategy": "naive_best_fit", "FLAGS_check_nan_inf_level": 0,
                   "FLAGS_cudnn_deterministic": True, "FLAGS_memory_fraction_of_eager_deletion": 1.0}
    assert deterministic is True


_DUMP_PADDLE_FLAGS = """
import json, paddle
registry = paddle.base.core.globals()
print(json.dumps({k: registry[k] for k in registry.keys() if registry.is_public(k)}))
"""


@pytest.mark.conformance
def test_table_matches_real_paddle_defaults():
    if not paddle_ref.available():
        pytest.skip("reference PaddlePaddle venv not found")
    env = {k: v for k, v in os.environ.items() if not k.startswith("FLAGS_")}
    env["GLOG_minloglevel"] = "3"
    out = subprocess.run([paddle_ref.PYTHON, "-c", _DUMP_PADDLE_FLAGS], env=env, capture_output=True, text=True,
                         timeout=600, cwd="/")
    assert out.returncode == 0, out.stderr[-3000:]
    theirs = json.loads(out.stdout.strip().splitlines()[-1])
    ours = _flags._DEFAULTS
    missing = sorted(k for k in theirs if k[6:] not in ours)
    assert not missing, f"flags Paddle has and the table lacks: {missing}"
    wrong = {k: (ours[k[6:]], v) for k, v in theirs.items() if ours[k[6:]] != v or type(ours[k[6:]]) is not type(v)}
    assert not wrong, f"defaults that differ (ours, Paddle's): {wrong}"
