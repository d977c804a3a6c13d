"""Multi-process measurements, beside run.py's single-process ones: the data-parallel MLP (samples/s) on 2
ranks and on one process, and the launcher's start-up time, for torchpaddle, real Paddle 3.3.1 and plain
PyTorch (torchrun + DistributedDataParallel).

    .venv/bin/python benchmarks/distributed_bench.py [--ranks 2] [--steps 40] [--batch 64] [--repeats 3]

Each case is a fresh job; the best of ``--repeats`` runs is kept. ``--batch`` is per rank, so the
single-process run uses ``ranks * batch`` samples per step (the same global batch). Not a test.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from run import paddle_python  # noqa: E402

WORKLOAD = os.path.join(HERE, "distributed", "mlp_dp.py")
STARTUP = os.path.join(HERE, "distributed", "startup.py")


def _commands(backend, python, ranks, script, extra):
    """(launcher command for ``ranks`` processes, single-process command)."""
    if backend == "torchpaddle":
        return ([python, "-m", "torchpaddle.distributed.launch", "--nproc_per_node", str(ranks), script, *extra],
                [python, "-m", "torchpaddle", script, *extra])
    if backend == "paddle":
        return ([python, "-m", "paddle.distributed.launch", "--nproc_per_node", str(ranks), script, *extra],
                [python, script, *extra])
    return ([python, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node", str(ranks), script,
             "--torch", *extra], [python, script, "--torch", *extra])


def _run(command, timeout=600):
    env = dict(os.environ, OMP_NUM_THREADS="1", GLOG_minloglevel="3", PYTHONPATH=ROOT)
    with tempfile.TemporaryDirectory() as cwd:     # launchers write ./log here
        start = time.perf_counter()
        proc = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
        seconds = time.perf_counter() - start
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed:\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}")
    results = [json.loads(line.split("RESULT ", 1)[1]) for line in (proc.stdout + proc.stderr).splitlines()
               if "RESULT " in line]
    return seconds, (results[-1] if results else None)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ranks", type=int, default=2)
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--backends", default="torch,torchpaddle,paddle")
    parser.add_argument("--out", default=os.path.join(HERE, "results", "distributed.json"))
    args = parser.parse_args()
    pythons = {"torch": sys.executable, "torchpaddle": sys.executable, "paddle": paddle_python()}
    table = {}
    for backend in args.backends.split(","):
        python = pythons[backend]
        if python is None:
            table[backend] = None
            continue
        work = ["--steps", str(args.steps), "--batch", str(args.batch)]
        launch_dp, _ = _commands(backend, python, args.ranks, WORKLOAD, work)
        _, single = _commands(backend, python, args.ranks, WORKLOAD,
                              ["--steps", str(args.steps), "--batch", str(args.ranks * args.batch)])
        launch_startup, _ = _commands(backend, python, args.ranks, STARTUP, [])
        row = {}
        try:
            row["dp_samples_per_s"] = max(_run(launch_dp)[1]["samples_per_s"] for _ in range(args.repeats))
            row["single_samples_per_s"] = max(_run(single)[1]["samples_per_s"] for _ in range(args.repeats))
            row["startup_s"] = min(_run(launch_startup)[0] for _ in range(args.repeats))
        except (RuntimeError, subprocess.TimeoutExpired, TypeError) as e:
            row["error"] = str(e)[-500:]
        table[backend] = row
        print(f"{backend}: {row}", file=sys.stderr, flush=True)
    head = f"{'backend':<12} {'DP ' + str(args.ranks) + ' ranks samples/s':>24} {'1 process samples/s':>20} " \
           f"{'launch start-up s':>18}"
    print(head)
    for backend, row in table.items():
        if row is None:
            print(f"{backend:<12} {'n/a':>24} {'n/a':>20} {'n/a':>18}")
        elif "error" in row:
            print(f"{backend:<12} error: {row['error'][-200:]}")
        else:
            print(f"{backend:<12} {row['dp_samples_per_s']:>24.0f} {row['single_samples_per_s']:>20.0f} "
                  f"{row['startup_s']:>18.2f}")
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump({"ranks": args.ranks, "steps": args.steps, "batch_per_rank": args.batch, "results": table}, f,
                  indent=1)


if __name__ == "__main__":
    main()
