"""paddle.DataParallel and fleet on real gloo ranks equal single-process training on the whole batch."""
import functools

import numpy as np
import pytest

import torchpaddle as paddle
from _dp_model import reference
from _harness import run_job

pytestmark = pytest.mark.multiprocess


@functools.lru_cache(maxsize=None)
def _job(n, tmp):
    return run_job("data_parallel.py", n, tmp)


@pytest.fixture(scope="module", params=[2, 4], ids=["2ranks", "4ranks"])
def job(request, tmp_path_factory):
    return _job(request.param, str(tmp_path_factory.mktemp(f"dp{request.param}")))


@functools.lru_cache(maxsize=None)
def _reference(opt_name, unused=False):
    return reference(paddle, opt_name, unused)


def _same_params(actual, expected):
    assert actual.keys() == expected.keys()
    for key in expected:
        np.testing.assert_allclose(actual[key], expected[key], rtol=1e-5, atol=1e-6, err_msg=key)


@pytest.mark.parametrize("scenario,opt,unused", [("dp", "sgd", False), ("small_buckets", "sgd", False),
                                                 ("no_sync", "sgd", False), ("unused", "sgd", True)])
def test_matches_single_process_full_batch(job, scenario, opt, unused):
    losses, final = _reference(opt, unused)
    for rank, res in enumerate(job):
        _same_params(res[f"{scenario}/params"], final)
        assert res[f"{scenario}/state_dict_keys"] == list(final.keys())
    if scenario != "no_sync":    # (no_sync records only its last micro-batch's loss)
        # the mean of the ranks' local losses is the full-batch loss
        np.testing.assert_allclose(np.mean([res[f"{scenario}/losses"] for res in job], axis=0), losses, rtol=1e-5)


def test_wrap_broadcasts_rank0_weights(job):
    from _dp_model import build, params
    rank0 = params(build(paddle, seed=0))
    for res in job:
        _same_params(res["dp/after_wrap"], rank0)


def test_fleet_collective(job):
    losses, final = _reference("adam")
    n = len(job)
    for rank, res in enumerate(job):
        assert res["fleet/worker"] == [rank, n, rank == 0]
        assert res["fleet/model_type"] == "DataParallel"
        _same_params(res["fleet/params"], final)
    np.testing.assert_allclose(np.mean([res["fleet/losses"] for res in job], axis=0), losses, rtol=1e-5)


def test_buckets_overlap_backward(job):
    for res in job:
        assert res["dp/buckets"] == [1, 1]
        # one bucket per parameter; all but the first layer's start while backward still runs
        count, in_backward = res["small_buckets/buckets"]
        assert count == 4 and in_backward >= 3
