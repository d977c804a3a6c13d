"""paddle.metric against real PaddlePaddle 3.3.1: the cases of tests/fixtures/metric/cases.py (fixed NumPy
data, several batches per metric) run here on torchpaddle and are compared with real Paddle's results
(expected.json, from make_fixtures.py)."""
import json
import math
import os

import pytest

import torchpaddle as paddle
from conftest import ROOT
from tests.fixtures.metric import cases

with open(os.path.join(ROOT, "tests", "fixtures", "metric", "expected.json")) as _f:
    REFERENCE = json.load(_f)["groups"]


def _close(a, b, path):
    if isinstance(b, dict):
        assert isinstance(a, dict) and sorted(a) == sorted(b), f"{path}: {a} vs {b}"
        for k in b:
            _close(a[k], b[k], f"{path}.{k}")
    elif isinstance(b, list):
        assert isinstance(a, list) and len(a) == len(b), f"{path}: {a} vs {b}"
        for i, (x, y) in enumerate(zip(a, b)):
            _close(x, y, f"{path}[{i}]")
    elif isinstance(b, float):
        assert isinstance(a, (int, float)) and math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-15), f"{path}: {a} vs {b}"
    else:
        assert a == b, f"{path}: {a!r} vs {b!r}"


@pytest.mark.parametrize("group", list(cases.GROUPS))
def test_metric_group_matches_paddle(group):
    ours = json.loads(json.dumps(cases.run(paddle, [group])[group]))
    theirs = REFERENCE[group]
    assert sorted(ours) == sorted(theirs)
    for name in theirs:
        _close(ours[name], theirs[name], f"{group}/{name}")


@pytest.mark.conformance
def test_metrics_match_a_live_paddle_run(tmp_path):
    """The same cases on real Paddle now (not the committed fixture): guards against a stale expected.json."""
    import paddle_ref
    out = tmp_path / "metric.json"
    paddle_ref.run_module("tests.fixtures.metric.make_fixtures", str(out), timeout=300)
    live = json.loads(out.read_text())["groups"]
    ours = json.loads(json.dumps(cases.run(paddle)))
    for group, entries in live.items():
        for name, theirs in entries.items():
            _close(ours[group][name], theirs, f"{group}/{name}")
