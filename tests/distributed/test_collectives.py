"""Every collective on 2 and 4 real gloo ranks (loopback), sync and async, against NumPy."""
import functools

import numpy as np
import pytest

from _cases import OPS, data, rows, splits
from _harness import run_job

pytestmark = pytest.mark.multiprocess
MODES = ["sync", "async"]
_REDUCE = {"SUM": lambda a: np.sum(a, 0), "MAX": lambda a: np.max(a, 0), "MIN": lambda a: np.min(a, 0),
           "PROD": lambda a: np.prod(a, 0), "AVG": lambda a: np.mean(a, 0)}


@functools.lru_cache(maxsize=None)
def _job(n, tmp):
    return run_job("collectives.py", n, tmp)


@pytest.fixture(scope="module", params=[2, 4], ids=["2ranks", "4ranks"])
def job(request, tmp_path_factory):
    return _job(request.param, str(tmp_path_factory.mktemp(f"coll{request.param}")))


def _close(actual, expected):
    np.testing.assert_allclose(actual, expected, rtol=1e-6, atol=1e-6)


def test_environment(job):
    n = len(job)
    for rank, res in enumerate(job):
        assert (res["rank"], res["n"], res["backend"], res["is_initialized"]) == (rank, n, "GLOO", True)
        assert res["group_repr"] == f"rank: {rank}, nranks: {n}, id: 0, ranks: " \
                                    f"{', '.join(map(str, range(n)))}; name: _default_pg"
        assert res["destroyed"] is False


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("op", OPS)
def test_all_reduce(job, mode, op):
    n = len(job)
    expected = _REDUCE[op](np.stack([data(r, OPS.index(op)) for r in range(n)]))
    for res in job:
        _close(res[f"{mode}/all_reduce/{op}"], expected)


@pytest.mark.parametrize("mode", MODES)
def test_all_reduce_non_contiguous(job, mode):
    expected = sum(data(r, 7, shape=(3, 2)) for r in range(len(job))).T
    for res in job:
        _close(res[f"{mode}/all_reduce/transposed"], expected)


@pytest.mark.parametrize("mode", MODES)
def test_broadcast(job, mode):
    for res in job:
        _close(res[f"{mode}/broadcast"], data(len(job) - 1, 1))


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("op", ["SUM", "MAX"])
def test_reduce(job, mode, op):
    stacked = np.stack([data(r, 2) for r in range(len(job))])
    for rank, res in enumerate(job):
        # only the destination changes; the others keep their input, as in Paddle
        _close(res[f"{mode}/reduce/{op}"], _REDUCE[op](stacked) if rank == 1 else data(rank, 2))


@pytest.mark.parametrize("mode", MODES)
def test_all_gather(job, mode):
    stacked = np.stack([data(r, 3) for r in range(len(job))])
    for res in job:
        _close(res[f"{mode}/all_gather/list"], stacked)
        _close(res[f"{mode}/all_gather/tensor"], np.concatenate(stacked))


@pytest.mark.parametrize("mode", MODES)
def test_scatter_and_gather(job, mode):
    for rank, res in enumerate(job):
        _close(res[f"{mode}/scatter"], data(rank, 4))
    _close(job[0][f"{mode}/gather"], np.stack([data(r, 8) for r in range(len(job))]))


@pytest.mark.parametrize("mode", MODES)
def test_reduce_scatter(job, mode):
    n = len(job)
    for rank, res in enumerate(job):
        _close(res[f"{mode}/reduce_scatter/list"], sum(data(r, 5 + rank) for r in range(n)))
        full = np.max(np.stack([data(r, 5, shape=(n, 3)) for r in range(n)]), 0)
        _close(res[f"{mode}/reduce_scatter/tensor"], full[rank:rank + 1])


@pytest.mark.parametrize("mode", MODES)
def test_alltoall(job, mode):
    n = len(job)
    for rank, res in enumerate(job):
        _close(res[f"{mode}/alltoall"], np.stack([rows(j, 2) + rank for j in range(n)]))


@pytest.mark.parametrize("mode", MODES)
def test_alltoall_single_uneven(job, mode):
    n = len(job)
    for rank, res in enumerate(job):
        expected = np.concatenate([rows(j, splits(j, n)[rank]) + 1000 * rank for j in range(n)])
        _close(res[f"{mode}/alltoall_single"], expected)


@pytest.mark.parametrize("mode", MODES)
def test_send_recv_ring(job, mode):
    n = len(job)
    for rank, res in enumerate(job):
        _close(res[f"{mode}/send_recv"], data((rank - 1) % n, 6))


def test_isend_irecv_and_batch(job):
    n = len(job)
    for rank, res in enumerate(job):
        _close(res["isend_irecv"], data((rank - 1) % n, 9))
        _close(res["batch_isend_irecv"], data((rank - 1) % n, 10))


def test_object_collectives(job):
    n = len(job)
    for rank, res in enumerate(job):
        assert res["all_gather_object"] == [{"rank": r, "text": "r" * r} for r in range(n)]
        assert res["broadcast_object_list"] == [1, "from 1", {"k": [1]}]
        assert res["scatter_object_list"] == [{"to": rank, "payload": list(range(rank))}]


def test_groups(job):
    n = len(job)
    evens = [r for r in range(n) if r % 2 == 0]
    for rank, res in enumerate(job):
        assert res["group_ids"] == [10, 11, True]
        member = rank in evens and len(evens) > 1
        # Paddle's quirk: a one-rank group reports rank -1 / world_size -1 and is not a "member"
        assert res["group_rank"] == ([evens.index(rank), len(evens), True, evens] if member else [-1, -1, False, evens])
        if member:
            _close(res["group/all_reduce"], sum(data(r, 11) for r in evens))
        else:
            _close(res["group/all_reduce"], data(rank, 11))
            assert res["group/non_member_returns_none"]
        _close(res["group/broadcast"], data(1, 12) if rank < 2 else data(rank, 12))


def test_mismatches_raise_on_every_rank(job):
    n = len(job)
    for rank, res in enumerate(job):
        e = res["errors"]
        assert "disagree" in e["shape"] and f"rank 0: all_reduce float32 [2]" in e["shape"] \
            and "rank 1: all_reduce float32 [3]" in e["shape"]
        assert "float64" in e["dtype"] and "float32" in e["dtype"]
        assert "broadcast" in e["api"] and "all_reduce" in e["api"]
        assert "send" in e["alltoall_single"]
        assert e["bad_op"].startswith("ValueError") and "op" in e["bad_op"]
        assert e["bad_src"].startswith("ValueError") and f"src={n}" in e["bad_src"]
        assert e["not_tensor"].startswith("TypeError") and "tensor" in e["not_tensor"]
        assert e["list_len"].startswith("ValueError") and "tensor_list" in e["list_len"]
        assert e["self_send"].startswith("ValueError") and "dst" in e["self_send"]
        _close(res["after_errors"], sum(data(r, 13) for r in range(n)))
