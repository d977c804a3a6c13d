"""paddle.distributed.spawn: real processes on loopback."""
import json
import os
import subprocess
import sys

import pytest
import torch.multiprocessing as mp

import torchpaddle.distributed as dist
from _harness import WORKERS, base_env

pytestmark = pytest.mark.multiprocess


@pytest.fixture
def clean_env(monkeypatch):
    for key, value in base_env().items():
        monkeypatch.setenv(key, value)
    for key in list(os.environ):
        if key.startswith("PADDLE_") or key in ("RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT"):
            monkeypatch.delenv(key)
    monkeypatch.syspath_prepend(WORKERS)


def test_spawn_runs_ranks(tmp_path, clean_env):
    import spawn_funcs
    context = dist.spawn(spawn_funcs.all_reduce_rank, args=(str(tmp_path), 2.0), nprocs=2)
    assert len(context.processes) == 2 and all(p.exitcode == 0 for p in context.processes)
    records = [json.loads((tmp_path / f"spawn.{r}.json").read_text()) for r in range(2)]
    assert [(r["rank"], r["world"], r["sum"]) for r in records] == [(0, 2, 6.0), (1, 2, 6.0)]
    assert records[0]["endpoint"] != records[1]["endpoint"]


def test_spawn_failure_names_the_process(clean_env):
    import spawn_funcs
    with pytest.raises(mp.ProcessRaisedException, match=r"(?s)Process 1 terminated.*spawned rank 1 fails"):
        dist.spawn(spawn_funcs.fail_on_rank_1, nprocs=2)


def test_spawn_from_a_paddle_script(tmp_path):
    out = tmp_path / "grad"
    proc = subprocess.run([sys.executable, "-m", "torchpaddle", os.path.join(WORKERS, "spawn_script.py"), str(out)],
                          env=base_env(), capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "spawned ok" in proc.stdout
    # d(sum(x @ w))/dw = sum of x's rows: 4*(rank+1) per rank, averaged over the 2 ranks = 6
    for rank in range(2):
        assert eval((tmp_path / f"grad.{rank}").read_text()) == [6.0, 6.0]


def test_spawn_argument_errors():
    with pytest.raises(TypeError, match="func"):
        dist.spawn("not callable")
    with pytest.raises(ValueError, match="bogus"):
        dist.spawn(print, bogus=1)
    with pytest.raises(ValueError, match="nprocs"):
        dist.spawn(print, nprocs=0)
    with pytest.raises(ValueError, match="backend"):
        dist.spawn(print, nprocs=1, backend="mpi")
