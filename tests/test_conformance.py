"""Conformance tier: the op table on real PaddlePaddle 3.3.1 (side venv) vs torchpaddle: values, dtypes,
shapes, stop_gradient and exception types."""
import concurrent.futures
import fcntl
import hashlib
import os
import pickle
import tempfile

import numpy as np
import pytest

import torchpaddle as paddle
import paddle_ref
from tests.optable.runner import load_rows, row_modules, run_case

pytestmark = pytest.mark.conformance
ROWS = load_rows()


def _reference_for(module, tmp):
    """Run one rows module on real Paddle; a crash or hang there fails only that module's rows."""
    path = os.path.join(tmp, f"{module}.pkl")
    try:
        paddle_ref.run_module("tests.optable.conformance_main", path, module, timeout=240)
        with open(path, "rb") as f:
            return pickle.load(f)["results"]
    except pytest.skip.Exception:
        raise
    except Exception as exc:  # noqa: BLE001 - reported per row below
        message = f"reference run of {module} failed: {type(exc).__name__}: {str(exc)[-2000:]}"
        return {name: {"setup_error": message} for name, case in ROWS.items() if case.module == module}


def _rows_digest():
    digest = hashlib.sha256()
    folder = os.path.join(os.path.dirname(os.path.abspath(__file__)), "optable")
    for name in sorted(os.listdir(folder)):
        if name.endswith(".py"):
            with open(os.path.join(folder, name), "rb") as f:
                digest.update(name.encode() + f.read())
    return digest.hexdigest()[:16]


def _compute_reference():
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
            for part in pool.map(lambda m: _reference_for(m, tmp), row_modules()):
                results.update(part)
    return results


@pytest.fixture(scope="session")
def reference():
    """Real Paddle's records for every row; computed once per rows content and shared by xdist workers."""
    if not paddle_ref.available():
        pytest.skip(f"reference PaddlePaddle venv not found at {paddle_ref.PYTHON} (set PADDLE_REF_PYTHON)")
    cache_dir = os.path.join(tempfile.gettempdir(), "torchpaddle-conformance")
    os.makedirs(cache_dir, exist_ok=True)
    path = os.path.join(cache_dir, f"{_rows_digest()}.pkl")
    with open(path + ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            if os.path.exists(path):
                with open(path, "rb") as f:
                    return pickle.load(f)
            results = _compute_reference()
            failed = any("setup_error" in r and "reference run of" in r["setup_error"] for r in results.values())
            if not failed:  # never cache a crashed or timed-out reference run
                with open(path + ".tmp", "wb") as f:
                    pickle.dump(results, f)
                os.replace(path + ".tmp", path)
            return results
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _same_exception(ours, theirs):
    return theirs in ours.get("mro", [ours["exc"]]) or ours["exc"] == theirs


@pytest.mark.parametrize("name", sorted(n for n, c in ROWS.items() if c.conformance))
def test_matches_real_paddle(name, reference):
    case = ROWS[name]
    theirs_all = reference[name]
    assert "setup_error" not in theirs_all, theirs_all.get("setup_error")
    ours_all = run_case(paddle, case)
    for key, theirs in theirs_all.items():
        ours = ours_all[key]
        where = f"{name}{key}"
        if isinstance(theirs, dict) and "exc" in theirs:
            if theirs["exc"] is None:
                assert ours.get("exc") is None, f"{where}: Paddle accepts this input, we raise {ours}"
            else:
                assert isinstance(ours, dict) and ours.get("exc"), \
                    f"{where}: Paddle raises {theirs['exc']} ({theirs['msg'][:120]}), we return normally"
                assert _same_exception(ours, theirs["exc"]), \
                    f"{where}: Paddle raises {theirs['exc']}, we raise {ours['exc']}: {ours['msg']}"
            continue
        assert not (isinstance(ours, dict) and "exc" in ours), f"{where}: we raise {ours}, Paddle returns normally"
        assert len(ours) == len(theirs), f"{where}: {len(ours)} outputs vs Paddle's {len(theirs)}"
        for i, (a, b) in enumerate(zip(ours, theirs)):
            if "dtype" not in b:
                assert a["value"] == b["value"] or (a["value"] is None and b["value"] is None), f"{where}[{i}]"
                continue
            assert a["dtype"] == b["dtype"], f"{where}[{i}]: dtype {a['dtype']} vs Paddle {b['dtype']}"
            assert a["shape"] == b["shape"], f"{where}[{i}]: shape {a['shape']} vs Paddle {b['shape']}"
            assert a["stop_gradient"] == b["stop_gradient"], f"{where}[{i}]: stop_gradient differs"
            if case.random:
                continue
            x, y = a["value"], b["value"]
            if case.post is not None:
                x, y = case.post(x), case.post(y)
            if x.dtype == bool or x.dtype.kind in "iu":
                np.testing.assert_array_equal(x, y, err_msg=f"{where}[{i}]")
            else:
                np.testing.assert_allclose(x, y, rtol=max(case.rtol, 1e-5), atol=max(case.atol, 1e-6),
                                           equal_nan=True, err_msg=f"{where}[{i}]")
