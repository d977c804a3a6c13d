"""Run real rank processes on loopback: Paddle's launch variables by hand, free ports, a hard deadline."""
import os
import subprocess
import sys
import time

from torchpaddle.distributed._ports import free_ports

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HERE = os.path.dirname(os.path.abspath(__file__))
WORKERS = os.path.join(HERE, "workers")


def base_env(**extra):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([ROOT, HERE] + [p for p in [env.get("PYTHONPATH")] if p])
    env.update({"OMP_NUM_THREADS": "1", "PADDLE_PG_TIMEOUT": "60000", "PYTHONUNBUFFERED": "1"})
    for name in ("PADDLE_TRAINER_ID", "PADDLE_TRAINERS_NUM", "PADDLE_TRAINER_ENDPOINTS", "PADDLE_CURRENT_ENDPOINT",
                 "PADDLE_MASTER", "MASTER_ADDR", "MASTER_PORT", "RANK", "WORLD_SIZE", "LOCAL_RANK"):
        env.pop(name, None)
    env.update({k: str(v) for k, v in extra.items()})
    return env


def run_ranks(argv, nprocs, timeout=120, **extra_env):
    """Start ``nprocs`` processes of ``argv`` (after the interpreter) as ranks of one job; returns
    [(returncode, output)] per rank. Past ``timeout`` seconds every process is killed (returncode None)."""
    endpoints = ",".join(f"127.0.0.1:{p}" for p in free_ports(nprocs))
    procs = []
    for rank in range(nprocs):
        env = base_env(PADDLE_TRAINER_ID=rank, PADDLE_TRAINERS_NUM=nprocs, PADDLE_TRAINER_ENDPOINTS=endpoints,
                       PADDLE_CURRENT_ENDPOINT=endpoints.split(",")[rank], **extra_env)
        procs.append(subprocess.Popen([sys.executable, *argv], env=env, stdout=subprocess.PIPE,
                                      stderr=subprocess.STDOUT, text=True))
    return collect(procs, timeout)


def collect(procs, timeout):
    deadline = time.monotonic() + timeout
    results = []
    for proc in procs:
        try:
            out, _ = proc.communicate(timeout=max(deadline - time.monotonic(), 0.1))
            results.append((proc.returncode, out))
        except subprocess.TimeoutExpired:
            for p in procs:
                p.kill()
            out, _ = proc.communicate()
            results.append((None, out))
    return results


def check_ok(results):
    for rank, (code, out) in enumerate(results):
        assert code == 0, f"rank {rank} exited with {code}:\n{out[-4000:]}"


def run_job(worker, n, tmp, timeout=150):
    """Run ``workers/<worker>`` on ``n`` ranks; each pickles its results to ``tmp/rank{r}.pkl``; returns them."""
    import pickle
    check_ok(run_ranks([os.path.join(WORKERS, worker), os.path.join(tmp, "rank{}.pkl")], n, timeout=timeout))
    out = []
    for rank in range(n):
        with open(os.path.join(tmp, f"rank{rank}.pkl"), "rb") as f:
            out.append(pickle.load(f))
    return out
