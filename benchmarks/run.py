"""Run the Paddle-API workloads on plain PyTorch, torchpaddle and real Paddle 3.3.1, and compare.

    .venv/bin/python benchmarks/run.py [--only NAME[,NAME...]] [--quick] [--stat best|median]

Each backend runs in its own process (``worker.py``); real Paddle runs in the reference interpreter
(``$PADDLE_REF_PYTHON``, else ``.paddle_venv/bin/python`` in the repo, else ``../paddle_venv/bin/python``)
and is reported as n/a when there is none. Results go to ``benchmarks/results/latest.json``.
This is a measurement, not a test: it never fails on a missed target.
"""
import argparse
import datetime
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
BACKENDS = ("torch", "torchpaddle", "paddle")
TARGET_VS_TORCH = 1.5   # torchpaddle per-op time at most this multiple of plain torch
TARGET_VS_PADDLE = 1.0  # torchpaddle faster than real Paddle


def paddle_python():
    """The reference interpreter: $PADDLE_REF_PYTHON when set (even if it does not exist: then none),
    else the repo's .paddle_venv, else a paddle_venv beside the repo."""
    explicit = os.environ.get("PADDLE_REF_PYTHON")
    candidates = [explicit] if explicit else [os.path.join(ROOT, ".paddle_venv", "bin", "python"),
                                              os.path.join(os.path.dirname(ROOT), "paddle_venv", "bin", "python")]
    for path in candidates:
        if os.path.exists(path):
            return path
    return None


def run_worker(backend, python, only, quick, timeout, num_threads):
    """Run worker.py for one backend; returns its JSON report, or {"error": ...}."""
    env = dict(os.environ, GLOG_minloglevel="3", FLAGS_call_stack_level="0", PYTHONWARNINGS="ignore")
    if num_threads:
        for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
            env[var] = str(num_threads)
    if backend == "torchpaddle":
        env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    fd, out = tempfile.mkstemp(prefix=f"bench_{backend}_", suffix=".json")
    os.close(fd)
    cmd = [python, os.path.join(HERE, "worker.py"), "--backend", backend, "--out", out,
           "--threads", str(num_threads)]
    if only:
        cmd += ["--only", only]
    if quick:
        cmd.append("--quick")
    try:
        proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout)
        if proc.returncode != 0:
            return {"error": f"worker exited with {proc.returncode}:\n{proc.stderr[-3000:]}"}
        with open(out) as f:
            return json.load(f)
    except subprocess.TimeoutExpired:
        return {"error": f"worker timed out after {timeout}s"}
    finally:
        os.unlink(out)


def merge(first, later):
    """Fold a later round's report for the same backend into ``first``: best = min, median = median of
    the rounds' medians."""
    if first is None or "error" in first:
        return later
    if later is None or "error" in later:
        return first
    for name, entry in first["workloads"].items():
        other = later["workloads"].get(name, {})
        if entry["status"] != "ok" or other.get("status") != "ok":
            continue
        entry.setdefault("round_medians_us", [entry["median_us"]]).append(other["median_us"])
        entry["best_us"] = min(entry["best_us"], other["best_us"])
        entry["median_us"] = statistics.median(entry["round_medians_us"])
        entry["all_us"] = entry["all_us"] + other["all_us"]
    return first


def cell(report, name, stat):
    """(display text, value or None) for one backend and workload."""
    if report is None:
        return "n/a", None
    if report == "skipped":
        return "-", None
    if "error" in report:
        return "failed", None
    entry = report["workloads"].get(name)
    if entry is None:
        return "-", None
    status = entry["status"]
    if status == "ok":
        value = entry[f"{stat}_us"]
        return f"{value:.2f}", value
    return {"missing": "missing", "unsupported": "n/a", "error": "error"}[status], None


def ratio(a, b):
    return None if a is None or b is None or b == 0 else a / b


def fmt_ratio(r):
    return "-" if r is None else f"{r:.2f}x"


def print_table(names, reports, stat):
    header = ["workload", "ops", "torch us", "torchpaddle us", "paddle us", "tp/torch", "tp/paddle", "targets"]
    rows = []
    summary = {}
    for name in names:
        texts, values = {}, {}
        for b in BACKENDS:
            texts[b], values[b] = cell(reports.get(b), name, stat)
        ops = next((r["workloads"][name]["ops"] for r in reports.values()
                    if isinstance(r, dict) and name in r.get("workloads", {})), "")
        vs_torch = ratio(values["torchpaddle"], values["torch"])
        vs_paddle = ratio(values["torchpaddle"], values["paddle"])
        marks = []
        if vs_torch is not None:
            marks.append(f"<={TARGET_VS_TORCH}x torch " + ("ok" if vs_torch <= TARGET_VS_TORCH else "MISS"))
        if vs_paddle is not None:
            marks.append("<paddle " + ("ok" if vs_paddle < TARGET_VS_PADDLE else "MISS"))
        rows.append([name, str(ops), texts["torch"], texts["torchpaddle"], texts["paddle"],
                     fmt_ratio(vs_torch), fmt_ratio(vs_paddle), ", ".join(marks) or "-"])
        summary[name] = {"torch_us": values["torch"], "torchpaddle_us": values["torchpaddle"],
                         "paddle_us": values["paddle"], "torchpaddle_over_torch": vs_torch,
                         "torchpaddle_over_paddle": vs_paddle,
                         "meets_torch_target": None if vs_torch is None else vs_torch <= TARGET_VS_TORCH,
                         "meets_paddle_target": None if vs_paddle is None else vs_paddle < TARGET_VS_PADDLE}
    widths = [max(len(r[i]) for r in rows + [header]) for i in range(len(header))]
    line = lambda r: "  ".join(c.ljust(w) if i in (0, 7) else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths)))
    print(line(header))
    print("  ".join("-" * w for w in widths))
    for r in rows:
        print(line(r))
    return summary


def notes(names, reports):
    """Lines about missing APIs, errors and results that differ between backends."""
    out = []
    for b in BACKENDS:
        r = reports.get(b)
        if r == "skipped":
            continue
        if r is None:
            why = " (no reference Paddle interpreter; set PADDLE_REF_PYTHON)" if b == "paddle" else ""
            out.append(f"{b}: n/a{why}")
        elif "error" in r:
            out.append(f"{b}: {r['error']}")
    for name in names:
        sums = {}
        for b in BACKENDS:
            report = reports.get(b)
            entry = report.get("workloads", {}).get(name) if isinstance(report, dict) else None
            if not entry:
                continue
            if entry["status"] == "missing":
                out.append(f"{name} on {b}: missing API {', '.join(entry['missing'])}")
            elif entry["status"] == "error":
                out.append(f"{name} on {b}: {entry['error']}")
            elif entry.get("checksum") is not None:
                sums[b] = entry["checksum"]
        if sums:
            ref = next(iter(sums.values()))
            if any(not math.isclose(v, ref, rel_tol=1e-3, abs_tol=1e-3) for v in sums.values()):
                out.append(f"{name}: results differ between backends (checksums {sums})")
    return out


PER_OP_TARGET = 1.3


def per_op_ratios(names, reports, stat):
    """The static per-op backward against the fused one: ``X_per_op`` / ``X`` in torchpaddle's column."""
    out = []
    for name in names:
        base = name[:-len("_per_op")] if name.endswith("_per_op") else None
        if base not in names:
            continue
        a, b = cell(reports.get("torchpaddle"), name, stat)[1], cell(reports.get("torchpaddle"), base, stat)[1]
        r = ratio(a, b)
        if r is None:
            continue
        if not out:
            out.append(f"static grad ops one by one / fused backward (target <= {PER_OP_TARGET}x):")
        out.append(f"  {name}: {r:.2f}x {'ok' if r <= PER_OP_TARGET else 'MISS'}")
    return out


def run_memory(timeout):
    """benchmarks/recompute_memory.py in a fresh torchpaddle process -> its result, or lines saying why not."""
    proc = subprocess.run([sys.executable, os.path.join(HERE, "recompute_memory.py")], capture_output=True,
                          text=True, timeout=timeout)
    last = proc.stdout.strip().splitlines()[-1:] if proc.stdout.strip() else []
    if proc.returncode != 0 or not last:
        return [f"recompute peak memory: failed (exit {proc.returncode}): {proc.stderr.strip()[-300:]}"]
    return json.loads(last[0])


def main(argv=None):
    parser = argparse.ArgumentParser(description="Paddle-API workloads on torch, torchpaddle and real Paddle.")
    parser.add_argument("--only", default="", help="comma-separated workload names, groups or glob patterns")
    parser.add_argument("--quick", action="store_true", help="short timings (smoke run; noisier)")
    parser.add_argument("--stat", choices=["best", "median"], default="best",
                        help="which statistic of the repeats the table shows (both are in the JSON)")
    parser.add_argument("--backends", default=",".join(BACKENDS),
                        help="comma-separated subset of " + ",".join(BACKENDS))
    parser.add_argument("--out", default=os.path.join(HERE, "results", "latest.json"))
    parser.add_argument("--threads", type=int, default=1,
                        help="CPU threads per backend (default 1: per-op overhead, not parallel kernels; "
                             "0 leaves each library's default)")
    parser.add_argument("--rounds", type=int, default=1,
                        help="run the backends round-robin this many times and keep the best (busy machines)")
    parser.add_argument("--timeout", type=int, default=3600, help="seconds per backend")
    parser.add_argument("--no-memory", action="store_true",
                        help="skip the recompute peak-memory measurement (run by default with every workload, or "
                             "when --only names 'memory')")
    parser.add_argument("--auto-parallel", action="store_true",
                        help="also time the 2-rank tensor-parallel MLP step (workloads/auto_parallel.py: dygraph dist "
                             "tensors, torch DTensor, DistModel, one process, real Paddle)")
    args = parser.parse_args(argv)

    sys.path.insert(0, HERE)
    import recompute_memory
    import workloads
    names = [wl.name for wl in workloads.select(args.only)]
    wanted = [b.strip() for b in args.backends.split(",") if b.strip()]
    unknown = set(wanted) - set(BACKENDS)
    if unknown:
        raise SystemExit(f"unknown backends {sorted(unknown)}; expected a subset of {BACKENDS}")

    reports = {b: "skipped" for b in BACKENDS if b not in wanted}
    for round_ in range(args.rounds):
        for backend in BACKENDS:
            if backend not in wanted:
                continue
            python = paddle_python() if backend == "paddle" else sys.executable
            if python is None:
                reports[backend] = None
                continue
            print(f"running {backend}" + (f" (round {round_ + 1}/{args.rounds})" if args.rounds > 1 else "") + " ...",
                  file=sys.stderr, flush=True)
            report = run_worker(backend, python, args.only, args.quick, args.timeout, args.threads)
            reports[backend] = report if round_ == 0 else merge(reports[backend], report)

    print(f"per-op microseconds ({args.stat} of repeats; {'quick' if args.quick else 'full'} run, "
          f"{args.rounds} round(s), {args.threads or 'default'} thread(s); "
          f"{platform.machine()}, {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.2f})")
    for b in wanted:
        r = reports.get(b)
        if isinstance(r, dict) and "version" in r:
            print(f"  {b}: {r['version']}, python {r['python']}, threads {r['threads'] or 'default'}")
    print()
    summary = print_table(names, reports, args.stat)
    lines = notes(names, reports)
    if lines:
        print()
        for ln in lines:
            print(ln)
    lines = per_op_ratios(names, reports, args.stat)
    if lines:
        print()
        for ln in lines:
            print(ln)
    memory = None
    if "torchpaddle" in wanted and not args.no_memory and (not args.only or "memory" in args.only):
        memory = run_memory(args.timeout)
        print()
        for ln in memory if isinstance(memory, list) else recompute_memory.describe(memory):
            print(ln)

    auto_parallel = None
    if args.auto_parallel:
        from workloads import auto_parallel as ap_bench
        print()
        auto_parallel = ap_bench.main(["--json", os.path.join(os.path.dirname(os.path.abspath(args.out)),
                                                              "auto_parallel.json")])

    result = {"timestamp": datetime.datetime.now().isoformat(timespec="seconds"), "quick": args.quick,
              "stat": args.stat, "threads": args.threads, "rounds": args.rounds,
              "machine": {"platform": platform.platform(), "cpus": os.cpu_count(), "loadavg": os.getloadavg()},
              "targets": {"torchpaddle_over_torch_max": TARGET_VS_TORCH,
                          "torchpaddle_over_paddle_max": TARGET_VS_PADDLE},
              "summary": summary, "backends": reports,
              "recompute_memory": memory if isinstance(memory, dict) else None, "auto_parallel": auto_parallel}
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(result, f, indent=1)
    print(f"\nwrote {args.out}")


if __name__ == "__main__":
    main()
