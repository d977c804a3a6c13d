"""Run the selected workloads on ONE backend and write the timings as JSON.

``python benchmarks/worker.py --backend {torch,torchpaddle,paddle} [--only PATTERNS] [--quick] --out FILE``

``benchmarks/run.py`` starts one of these per backend (the real-Paddle one in the reference interpreter),
so every backend runs in a fresh process and none of them can disturb another's state.
"""
import argparse
import gc
import json
import os
import platform
import statistics
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

# (seconds per timed repeat, repeats, warm-up seconds). Many short repeats (shorter than a scheduler time
# slice), because the minimum over them is what survives a busy machine: a repeat that another process
# preempted is simply not the best one.
SETTINGS = {"full": (0.002, 300, 0.3), "quick": (0.002, 50, 0.05)}


def load_backend(name, num_threads):
    """The module the workloads receive as ``paddle``, plus a version string."""
    if name != "paddle" and num_threads:
        import torch
        torch.set_num_threads(num_threads)
    if name == "torchpaddle":
        sys.path.insert(0, ROOT)
        import torch
        import torchpaddle
        return torchpaddle, f"torchpaddle {torchpaddle.__version__} (torch {torch.__version__})"
    if name == "paddle":
        import paddle
        paddle.disable_static()
        paddle.set_device("cpu")
        return paddle, f"paddle {paddle.__version__}"
    if name == "torch":
        import torch
        import torch_shim
        return torch_shim, f"torch {torch.__version__}"
    raise SystemExit(f"unknown backend {name!r}")


def threads(name):
    try:
        if name == "paddle":
            return int(os.environ.get("OMP_NUM_THREADS", "0")) or None
        import torch
        return torch.get_num_threads()
    except Exception:
        return None


def checksum(value):
    """A float summarising a workload's last result, to catch backends that compute different things."""
    import numpy as np
    if isinstance(value, (list, tuple)):
        return float(sum(checksum(v) for v in value))
    try:
        if hasattr(value, "detach"):
            value = value.detach()
        array = value.numpy() if hasattr(value, "numpy") else np.asarray(value)
        return float(np.asarray(array, dtype=np.float64).sum())
    except Exception:
        return None


def measure(run, ops, mode, max_repeats=None):
    """Warm up, calibrate the iteration count, then time ``repeats`` runs; returns per-op microseconds."""
    target, repeats, warm = SETTINGS[mode]
    if max_repeats:
        repeats = min(repeats, max_repeats if mode == "full" else max(5, max_repeats // 3))
    deadline = time.perf_counter() + warm
    while time.perf_counter() < deadline:
        run(1)
    n = 1
    while True:
        start = time.perf_counter()
        run(n)
        elapsed = time.perf_counter() - start
        if elapsed >= target / 2 or n >= 1 << 24:
            break
        n *= 2
    n = max(1, round(n * target / elapsed))
    gc.collect()
    gc_was_enabled = gc.isenabled()
    gc.disable()  # as timeit does: a collection landing in one repeat is noise, not overhead
    try:
        times = []
        for _ in range(repeats):
            start = time.perf_counter()
            out = run(n)
            times.append(time.perf_counter() - start)
    finally:
        if gc_was_enabled:
            gc.enable()
    per_op = [t / (n * ops) * 1e6 for t in times]
    return {"iterations": n, "repeats": repeats, "best_us": min(per_op), "median_us": statistics.median(per_op),
            "all_us": [round(v, 4) for v in per_op]}, out


def run_backend(backend, only, mode, num_threads):
    sys.path.insert(0, HERE)
    import workloads
    chosen = workloads.select(only)
    module, version = load_backend(backend, num_threads)
    results = {}
    for wl in chosen:
        entry = {"group": wl.group, "ops": wl.ops, "doc": wl.doc}
        build = wl.build_for(backend)
        missing = wl.missing(module, backend) if build is not None else []
        if build is None:
            entry.update(status="unsupported")
        elif missing:
            entry.update(status="missing", missing=missing)
        else:
            try:
                start = time.perf_counter()
                run = build(module)   # setup: where a compiled workload compiles
                setup_s = time.perf_counter() - start
                timing, out = measure(run, wl.ops, mode, wl.repeats)
                entry.update(status="ok", checksum=checksum(out), setup_s=round(setup_s, 3), **timing)
            except Exception as exc:
                entry.update(status="error", error=f"{type(exc).__name__}: {exc}",
                             traceback=traceback.format_exc(limit=6))
        results[wl.name] = entry
    return {"backend": backend, "version": version, "python": platform.python_version(),
            "threads": threads(backend), "mode": mode, "workloads": results}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", required=True, choices=["torch", "torchpaddle", "paddle"])
    parser.add_argument("--only", default="")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--threads", type=int, default=0, help="torch intra-op threads (0: leave as is); "
                        "real Paddle takes OMP_NUM_THREADS from the environment, which run.py sets")
    parser.add_argument("--out", required=True)
    args = parser.parse_args(argv)
    report = run_backend(args.backend, args.only, "quick" if args.quick else "full", args.threads)
    with open(args.out, "w") as f:
        json.dump(report, f)


if __name__ == "__main__":
    main()
