"""The compiled backend against eager and torch.compile: the ``training`` group's models beside their
``compiled`` rows (workloads/compiled.py), on torch, torchpaddle and real Paddle.

    .venv/bin/python benchmarks/compiled_bench.py [--rounds N] [--quick] [--only mlp,resnet18_infer]

One row per model, milliseconds per step (median of the timed repeats; with --rounds, the median of the rounds'
medians): torch eager, torch.compile, torchpaddle eager, torchpaddle to_static compiled, real Paddle eager and
to_static. Compile time is not in the step times; the compile columns give the compiled rows' setup time
(the first three steps, compiling included) less the eager rows'. Targets (issue 14): compiled to_static at
most 0.8x torch eager on Transformer training and ResNet inference, and within 1.1x of torch.compile on every
model. Results go to ``results/compiled.json``.
"""
import argparse
import json
import os
import platform
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from run import merge, paddle_python, run_worker  # noqa: E402

MODELS = ["mlp_adam_train", "lenet_momentum_train", "resnet18_sgd_train", "resnet18_infer", "transformer_adamw_train"]
VS_EAGER_TARGETS = {"transformer_adamw_train": 0.8, "resnet18_infer": 0.8}
VS_COMPILE_TARGET = 1.1


def _entry(reports, backend, name):
    report = reports.get(backend)
    if not isinstance(report, dict) or "workloads" not in report:
        return None
    entry = report["workloads"].get(name)
    return entry if entry and entry.get("status") == "ok" else None


def _ms(entry):
    return None if entry is None else entry["median_us"] / 1000.0


def _fmt(v, spec=".2f"):
    return "-" if v is None else format(v, spec)


def table(models, reports):
    header = ["model", "torch", "torch.compile", "tp eager", "tp compiled", "paddle", "paddle to_static",
              "tpc/torch", "tpc/t.compile", "compile s tp", "compile s torch", "targets"]
    rows, summary = [], {}
    for m in models:
        e = {(b, kind): _entry(reports, b, m if kind == "eager" else f"compiled_{m}")
             for b in ("torch", "torchpaddle", "paddle") for kind in ("eager", "compiled")}
        ms = {k: _ms(v) for k, v in e.items()}
        tpc = ms["torchpaddle", "compiled"]
        vs_eager = None if tpc is None or not ms["torch", "eager"] else tpc / ms["torch", "eager"]
        vs_compile = None if tpc is None or not ms["torch", "compiled"] else tpc / ms["torch", "compiled"]

        def compile_s(backend):
            c, plain = e[backend, "compiled"], e[backend, "eager"]
            if c is None or "setup_s" not in c:
                return None
            return c["setup_s"] - (plain.get("setup_s", 0.0) if plain else 0.0)
        marks = []
        if m in VS_EAGER_TARGETS and vs_eager is not None:
            marks.append(f"<={VS_EAGER_TARGETS[m]}x torch " + ("ok" if vs_eager <= VS_EAGER_TARGETS[m] else "MISS"))
        if vs_compile is not None:
            marks.append(f"<={VS_COMPILE_TARGET}x t.compile " + ("ok" if vs_compile <= VS_COMPILE_TARGET else "MISS"))
        rows.append([m, _fmt(ms["torch", "eager"]), _fmt(ms["torch", "compiled"]), _fmt(ms["torchpaddle", "eager"]),
                     _fmt(tpc), _fmt(ms["paddle", "eager"]), _fmt(ms["paddle", "compiled"]),
                     _fmt(vs_eager, ".2f") + ("x" if vs_eager else ""),
                     _fmt(vs_compile, ".2f") + ("x" if vs_compile else ""),
                     _fmt(compile_s("torchpaddle"), ".1f"), _fmt(compile_s("torch"), ".1f"), ", ".join(marks) or "-"])
        summary[m] = {"ms": {f"{b}_{k}": v for (b, k), v in ms.items()}, "compiled_over_torch_eager": vs_eager,
                      "compiled_over_torch_compile": vs_compile, "compile_s_torchpaddle": compile_s("torchpaddle"),
                      "compile_s_torch": compile_s("torch")}
    widths = [max(len(r[i]) for r in rows + [header]) for i in range(len(header))]
    for r in [header, ["-" * w for w in widths]] + rows:
        print("  ".join(c.ljust(w) if i in (0, len(header) - 1) else c.rjust(w)
                        for i, (c, w) in enumerate(zip(r, widths))))
    return summary


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default="", help="comma-separated models (default: all of " + ", ".join(MODELS) + ")")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--backends", default="torch,torchpaddle,paddle")
    parser.add_argument("--timeout", type=int, default=3600)
    parser.add_argument("--out", default=os.path.join(HERE, "results", "compiled.json"))
    args = parser.parse_args(argv)
    models = [m for m in MODELS if not args.only or any(p.strip() in m for p in args.only.split(","))]
    only = ",".join(models + [f"compiled_{m}" for m in models])
    reports = {}
    for round_ in range(args.rounds):
        for backend in [b.strip() for b in args.backends.split(",") if b.strip()]:
            python = paddle_python() if backend == "paddle" else sys.executable
            if python is None:
                continue
            print(f"running {backend} (round {round_ + 1}/{args.rounds}) ...", file=sys.stderr, flush=True)
            report = run_worker(backend, python, only, args.quick, args.timeout, args.threads)
            if isinstance(reports.get(backend), dict):
                for name, entry in report.get("workloads", {}).items():   # compile time: the smallest seen
                    held = reports[backend]["workloads"].get(name, {})
                    if "setup_s" in entry and "setup_s" in held:
                        entry["setup_s"] = min(entry["setup_s"], held["setup_s"])
            reports[backend] = report if round_ == 0 else merge(reports[backend], report)
    print(f"ms per step (median; {args.rounds} round(s), {args.threads} thread(s); {platform.machine()}, "
          f"{os.cpu_count()} CPUs, load {os.getloadavg()[0]:.2f}); tpc = torchpaddle to_static compiled")
    summary = table(models, reports)
    for b, r in reports.items():
        if isinstance(r, dict) and "error" in r:
            print(f"{b}: {r['error'][-800:]}")
        for name, entry in (r.get("workloads", {}) if isinstance(r, dict) else {}).items():
            if entry.get("status") not in ("ok", None):
                print(f"{name} on {b}: {entry.get('status')} {entry.get('error', '')} {entry.get('missing', '')}")
    sums = {}
    for b, r in reports.items():
        for name, entry in (r.get("workloads", {}) if isinstance(r, dict) else {}).items():
            if entry.get("checksum") is not None:
                sums.setdefault(name.replace("compiled_", ""), {})[f"{b}:{name}"] = entry["checksum"]
    for name, each in sums.items():
        ref = next(iter(each.values()))
        if any(abs(v - ref) > 1e-3 * max(1.0, abs(ref)) for v in each.values()):
            print(f"{name}: results differ ({each})")
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump({"rounds": args.rounds, "threads": args.threads, "quick": args.quick,
                   "machine": {"platform": platform.platform(), "cpus": os.cpu_count(), "loadavg": os.getloadavg()},
                   "summary": summary, "backends": reports}, f, indent=1)
    print(f"\nwrote {args.out}")


if __name__ == "__main__":
    main()
