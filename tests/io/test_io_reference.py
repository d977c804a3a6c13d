"""paddle.io against real PaddlePaddle 3.3.1: the cases of tests/fixtures/dataloader/cases.py run here on
torchpaddle and are compared with what real Paddle produced for them (expected.json, from make_fixtures.py):
collation and batch structure, shuffle order under np.random.seed, sampler draws, DistributedBatchSampler
index assignment, worker seeding and order, dataset combinators, and exception types."""
import json
import os

import pytest

import torchpaddle as paddle
from conftest import ROOT
from tests.fixtures.dataloader import cases

EXPECTED = os.path.join(ROOT, "tests", "fixtures", "dataloader", "expected.json")
with open(EXPECTED) as _f:
    REFERENCE = json.load(_f)["groups"]

_SINGLE = [g for g in cases.GROUPS if g not in ("workers", "errors")]


@pytest.mark.parametrize("group", _SINGLE)
def test_group_matches_paddle(group):
    ours = json.loads(json.dumps(cases.run(paddle, [group])[group]))
    theirs = REFERENCE[group]
    assert sorted(ours) == sorted(theirs)
    for name in theirs:
        assert ours[name] == theirs[name], f"{group}/{name}:\n ours   {ours[name]}\n paddle {theirs[name]}"


@pytest.mark.multiprocess
def test_workers_match_paddle():
    ours = json.loads(json.dumps(cases.run(paddle, ["workers"])["workers"]))
    for name, theirs in REFERENCE["workers"].items():
        assert ours[name] == theirs, f"workers/{name}:\n ours   {ours[name]}\n paddle {theirs}"


def test_error_types_match_paddle():
    ours = cases.run(paddle, ["errors"])["errors"]
    for name, theirs in REFERENCE["errors"].items():
        if theirs is None:
            assert ours[name] is None, f"{name}: Paddle accepts this, we raise {ours[name]}"
        else:
            assert ours[name] is not None, f"{name}: Paddle raises {theirs[0]}, we return normally"
            assert theirs[0] in ours[name], f"{name}: Paddle raises {theirs[0]}, we raise {ours[name]}"


@pytest.mark.conformance
@pytest.mark.parametrize("group", ["sampler", "distributed", "shuffle"])
def test_sampler_groups_match_a_live_paddle_run(group):
    """These groups use no Paddle reader threads, so a live run is quick and reliable (unlike the loader ones,
    which real Paddle occasionally hangs on); it guards against a stale expected.json."""
    import paddle_ref
    live = json.loads(paddle_ref.run_module("tests.fixtures.dataloader.make_fixtures", "--group", group,
                                            timeout=300).strip().splitlines()[-1])
    ours = json.loads(json.dumps(cases.run(paddle, [group])[group]))
    assert ours == live
