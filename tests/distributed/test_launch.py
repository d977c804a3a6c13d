"""``python -m torchpaddle.distributed.launch``: real jobs on loopback, their logs, failures and restarts."""
import json
import os
import subprocess
import sys
import time

import numpy as np
import pytest

from _harness import ROOT, WORKERS, base_env, collect
from torchpaddle.distributed._ports import free_ports

pytestmark = pytest.mark.multiprocess
EXAMPLE = os.path.join(ROOT, "examples", "train_data_parallel.py")
# What Paddle 3.3.1's launch exports to each worker (observed on CPU, `--nproc_per_node 2`).
PADDLE_WORKER_VARS = {"PADDLE_MASTER", "PADDLE_GLOBAL_SIZE", "PADDLE_LOCAL_SIZE", "PADDLE_GLOBAL_RANK",
                      "PADDLE_LOCAL_RANK", "PADDLE_NNODES", "PADDLE_CURRENT_ENDPOINT", "PADDLE_TRAINER_ID",
                      "PADDLE_TRAINERS_NUM", "PADDLE_RANK_IN_NODE", "PADDLE_TRAINER_ENDPOINTS",
                      "PADDLE_DISTRI_BACKEND", "PADDLE_LOG_DIR"}


def launch(*args, cwd, timeout=120, wait=True):
    proc = subprocess.Popen([sys.executable, "-m", "torchpaddle.distributed.launch", *map(str, args)], cwd=cwd,
                            env=base_env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if not wait:
        return proc
    start = time.monotonic()
    (code, out), = collect([proc], timeout)
    return code, out, time.monotonic() - start


def _log(tmp_path, n):
    with open(tmp_path / "log" / f"workerlog.{n}") as f:
        return f.read()


@pytest.mark.slow
def test_example_script_runs_unchanged_and_matches_one_process(tmp_path):
    code, out, _ = launch("--nproc_per_node", 2, "--log_dir", "log", EXAMPLE, "--save", tmp_path / "dp.pdparams",
                          cwd=tmp_path)
    assert code == 0, out
    # Paddle-style console: status lines, and rank 0's output echoed
    assert "LAUNCH INFO" in out and "Run Pod: default, replicas 2" in out and "Exit code 0" in out
    assert "rank 0/2 epoch 4" in out and "rank 1/2" not in out
    assert "rank 1/2 epoch 4" in _log(tmp_path, 1) and "rank 0/2 epoch 4" in _log(tmp_path, 0)
    single = subprocess.run([sys.executable, "-m", "torchpaddle", EXAMPLE, "--batch_size", "16", "--save",
                             str(tmp_path / "one.pdparams")], cwd=tmp_path, env=base_env(), capture_output=True,
                            text=True, timeout=120)
    assert single.returncode == 0, single.stderr
    import torchpaddle as paddle
    dp, one = paddle.load(str(tmp_path / "dp.pdparams")), paddle.load(str(tmp_path / "one.pdparams"))
    assert dp.keys() == one.keys()
    for key in dp:
        np.testing.assert_allclose(dp[key].numpy(), one[key].numpy(), rtol=1e-5, atol=1e-6, err_msg=key)


def test_workers_get_paddles_environment(tmp_path):
    code, out, _ = launch("--devices", "0,1", "--job_id", "envjob", WORKERS + "/launch_env.py", tmp_path,
                          cwd=tmp_path)
    assert code == 0, out
    records = []
    for rank in range(2):
        with open(tmp_path / f"env.{rank}.json") as f:
            records.append(json.load(f))
    endpoints = records[0]["env"]["PADDLE_TRAINER_ENDPOINTS"].split(",")
    assert len(endpoints) == 2 and len(set(endpoints)) == 2
    for rank, rec in enumerate(records):
        env = rec["env"]
        assert PADDLE_WORKER_VARS <= set(env), PADDLE_WORKER_VARS - set(env)
        assert (env["PADDLE_TRAINER_ID"], env["PADDLE_TRAINERS_NUM"], env["PADDLE_RANK_IN_NODE"]) == \
            (str(rank), "2", str(rank))
        assert env["PADDLE_CURRENT_ENDPOINT"] == endpoints[rank]
        assert env["PADDLE_DISTRI_BACKEND"] == "gloo"
        assert env["PADDLE_LOG_DIR"] == str(tmp_path / "log")
        assert rec["parallel_env"] == [rank, 2, 0, endpoints[rank], endpoints, 1]
        assert (rec["rank"], rec["world_size"], rec["sum"]) == (rank, 2, 1.0)
        assert rec["paddle_module"] == "torchpaddle" and rec["argv"] == [str(tmp_path)]
    assert os.path.exists(tmp_path / "log" / "workerlog.0") and os.path.exists(tmp_path / "log" / "workerlog.1")


@pytest.mark.parametrize("mode,signature", [("raise", "exited with code 1"), ("kill", "killed by signal SIGKILL")])
def test_failed_rank_ends_the_job_naming_it(tmp_path, mode, signature):
    code, out, seconds = launch("--nproc_per_node", 2, WORKERS + "/launch_fail.py", mode, cwd=tmp_path, timeout=90)
    assert code not in (0, None), out
    assert seconds < 60
    assert f"Container rank 1 (local rank 1) status failed: {signature}" in out
    assert "ERROR LOG DETAIL" in out
    if mode == "raise":
        assert "RuntimeError: boom in rank 1" in out      # the failed rank's log tail
    assert "boom" in _log(tmp_path, 1) or mode == "kill"
    assert f"Exit code {code} (rank 1" in out


def test_stuck_peer_does_not_hang_the_job(tmp_path):
    code, out, seconds = launch("--nproc_per_node", 2, WORKERS + "/launch_fail.py", "stuck", cwd=tmp_path,
                                timeout=90)
    assert code == 3 and seconds < 60, out
    assert "Container rank 0 (local rank 0) status failed: exited with code 3" in out


def test_max_restart_restarts_once(tmp_path):
    code, out, _ = launch("--nproc_per_node", 2, "--max_restart", 1, WORKERS + "/launch_fail.py", "once",
                          cwd=tmp_path, timeout=90)
    assert code == 0, out
    assert out.count("Restarting the worker group (1/1)") == 1
    log = _log(tmp_path, 1)    # appended across attempts, as Paddle's logs are
    assert "boom in rank 1, attempt 0" in log and "restart 1 of 1" in log and "rank 1 done [2.0, 2.0]" in log


@pytest.mark.slow
def test_max_restart_exhausted_fails(tmp_path):
    code, out, _ = launch("--nproc_per_node", 2, "--max_restart", 1, WORKERS + "/launch_fail.py", "always",
                          cwd=tmp_path, timeout=90)
    assert code == 1, out
    assert out.count("Restarting the worker group") == 1
    assert "boom in rank 1, attempt 1" in out


@pytest.mark.slow
def test_two_nodes_static_rendezvous(tmp_path):
    """Two launchers on this machine stand for two nodes (--nnodes 2 --master --rank)."""
    master = f"127.0.0.1:{free_ports(1)[0]}"
    procs = []
    for node in range(2):
        os.makedirs(tmp_path / f"node{node}")
        procs.append(launch("--nnodes", 2, "--master", master, "--rank", node, "--nproc_per_node", 1,
                            WORKERS + "/launch_env.py", tmp_path, cwd=tmp_path / f"node{node}", wait=False))
    results = collect(procs, 120)
    for code, out in results:
        assert code == 0, out
    for rank in range(2):
        with open(tmp_path / f"env.{rank}.json") as f:
            rec = json.load(f)
        assert (rec["rank"], rec["world_size"], rec["sum"]) == (rank, 2, 1.0)
        assert rec["env"]["PADDLE_NNODES"] == "2" and rec["env"]["PADDLE_RANK_IN_NODE"] == "0"


def test_master_port_held_by_another_program_fails_fast(tmp_path):
    """A program that listens on --master's port but speaks no store protocol: a clear error, not a hang."""
    import socket
    holder = socket.socket()
    holder.bind(("127.0.0.1", 0))
    holder.listen(8)           # the kernel completes connections; nobody ever answers them
    try:
        code, out, seconds = launch("--master", f"127.0.0.1:{holder.getsockname()[1]}", WORKERS + "/launch_env.py",
                                    tmp_path, cwd=tmp_path, timeout=90)
    finally:
        holder.close()
    assert code != 0 and seconds < 40, out
    assert "another program listens on that port" in out and "Traceback" not in out, out


def test_sigterm_stops_the_job_without_a_traceback(tmp_path):
    script = tmp_path / "sleeper.py"
    script.write_text("import time\nprint('started', flush=True)\ntime.sleep(120)\n")
    proc = launch("--nproc_per_node", 2, "--log_dir", "log", script, cwd=tmp_path, wait=False)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not all(
            (tmp_path / "log" / f"workerlog.{n}").exists() and "started" in _log(tmp_path, n) for n in range(2)):
        time.sleep(0.2)
    proc.terminate()
    (code, out), = collect([proc], 60)
    assert code == 128 + 15, out
    assert "Terminating with signal SIGTERM" in out and "Traceback" not in out, out


def test_bad_options_are_usage_errors(tmp_path):
    for args, message in [(["--run_mode", "ps", "x.py"], "only collective"),
                          (["--nproc_per_node", "0", "x.py"], "must be positive"),
                          (["--nnodes", "2:1", "x.py"], "MIN <= MAX"),
                          (["--servers", "a:1", "x.py"], "parameter-server")]:
        code, out, _ = launch(*args, cwd=tmp_path, timeout=60)
        assert code == 2 and message in out, out
