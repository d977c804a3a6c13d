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
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
BACKENDS = ("torch", "torchpaddle", "paddle")
TARGET_VS_TORCH = 1.5   # torchpaddle per-op time at most this multiple of plain torch
TARGET_VS_PADDLE = 1.0  # torchpaddle faster than real Paddle


def paddle_python():
    candidates = [os.environ.get("PADDLE_REF_PYTHON"), os.path.join(ROOT, ".paddle_venv", "bin", "python"),
                  os.path.join(os.path.dirname(ROOT), "paddle_venv", "bin", "python")]
    for path in candidates:
        if path and os.path.exists(path):
            return path
    return None


def run_worker(backend, python, only, quick, timeout):
    """Run worker.py for one backend; returns its JSON report, or {"error": ...}."""
    env = dict(os.environ, GLOG_minloglevel="3", FLAGS_call_stack_level="0", PYTHONWARNINGS="ignore")
    if backend == "torchpaddle":
        env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    fd, out = tempfile.mkstemp(prefix=f"bench_{backend}_", suffix=".json")
    os.close(fd)
    cmd = [python, os.path.join(HERE, "worker.py"), "--backend", backend, "--out", out]
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


def cell(report, name, stat):
    """(display text, value or None) for one backend and workload."""
    if report is None:
        return "n/a", None
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
                    if r and "workloads" in r and name in r["workloads"]), "")
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
        if r is None:
            out.append(f"{b}: n/a" + (" (no reference Paddle interpreter; set PADDLE_REF_PYTHON)" if b == "paddle" else ""))
        elif "error" in r:
            out.append(f"{b}: {r['error']}")
    for name in names:
        sums = {}
        for b in BACKENDS:
            entry = (reports.get(b) or {}).get("workloads", {}).get(name)
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


def main(argv=None):
    parser = argparse.ArgumentParser(description="Paddle-API workloads on torch, torchpaddle and real Paddle.")
    parser.add_argument("--only", default="", help="comma-separated workload names, groups or glob patterns")
    parser.add_argument("--quick", action="store_true", help="short timings (smoke run; noisier)")
    parser.add_argument("--stat", choices=["best", "median"], default="best",
                        help="which statistic of the repeats the table shows (both are in the JSON)")
    parser.add_argument("--backends", default=",".join(BACKENDS), help="comma-separated subset of " + ",".join(BACKENDS))
    parser.add_argument("--out", default=os.path.join(HERE, "results", "latest.json"))
    parser.add_argument("--timeout", type=int, default=3600, help="seconds per backend")
    args = parser.parse_args(argv)

    sys.path.insert(0, HERE)
    import workloads
    names = [wl.name for wl in workloads.select(args.only)]
    wanted = [b.strip() for b in args.backends.split(",") if b.strip()]
    unknown = set(wanted) - set(BACKENDS)
    if unknown:
        raise SystemExit(f"unknown backends {sorted(unknown)}; expected a subset of {BACKENDS}")

    reports = {}
    for backend in BACKENDS:
        if backend not in wanted:
            continue
        python = paddle_python() if backend == "paddle" else sys.executable
        if python is None:
            reports[backend] = None
            continue
        print(f"running {backend} ...", file=sys.stderr, flush=True)
        reports[backend] = run_worker(backend, python, args.only, args.quick, args.timeout)

    print(f"per-op microseconds ({args.stat} of repeats; {'quick' if args.quick else 'full'} run; "
          f"{platform.machine()}, {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.2f})")
    for b in wanted:
        r = reports.get(b)
        if r and "version" in r:
            print(f"  {b}: {r['version']}, python {r['python']}, threads {r['threads'] or 'default'}")
    print()
    summary = print_table(names, reports, args.stat)
    lines = notes(names, reports)
    if lines:
        print()
        for ln in lines:
            print(ln)

    result = {"timestamp": datetime.datetime.now().isoformat(timespec="seconds"), "quick": args.quick,
              "stat": args.stat, "machine": {"platform": platform.platform(), "cpus": os.cpu_count(),
                                             "loadavg": os.getloadavg()},
              "targets": {"torchpaddle_over_torch_max": TARGET_VS_TORCH,
                          "torchpaddle_over_paddle_max": TARGET_VS_PADDLE},
              "summary": summary, "backends": reports}
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(result, f, indent=1)
    print(f"\nwrote {os.path.relpath(args.out)}")


if __name__ == "__main__":
    main()
