"""Paddle 3.3.1's profiler step machinery: make_scheduler's state sequences, the steps at which on_trace_ready
runs for a scheduler, and step_info's text. Run inside the reference virtualenv:
``python -m tests.profiler.profiler_cases OUT.pkl``."""
import gc
import pickle
import re
import sys

SCHEDULERS = {
    "cycle": dict(closed=1, ready=1, record=2, repeat=2, skip_first=1),
    "always": dict(closed=0, ready=0, record=3),
    "one_record": dict(closed=2, ready=1, record=1, repeat=0),
    "skip": dict(closed=0, ready=2, record=2, repeat=1, skip_first=3),
}
WINDOWS = {"tuple_1_3": (1, 3), "tuple_0_2": (0, 2), "cycle": SCHEDULERS["cycle"]}
STEPS = 12


def run(profiler):
    out = {"states": {k: [profiler.make_scheduler(**kw)(i).name for i in range(16)] for k, kw in SCHEDULERS.items()}}
    ready = {}
    for key, sched in WINDOWS.items():
        seen = []
        sched = profiler.make_scheduler(**sched) if isinstance(sched, dict) else sched
        p = profiler.Profiler(scheduler=sched, on_trace_ready=lambda prof: seen.append(prof.step_num))
        p.start()
        for _ in range(STEPS):
            p.step()
        p.stop()
        ready[key] = seen
        del p   # Paddle holds one native profiler at a time: the next one is made only after this one is freed
        gc.collect()
    out["ready"] = ready
    p = profiler.Profiler(timer_only=True)
    p.start()
    p.step()
    p.step()
    # the text with the numbers masked: its layout is what is compared
    out["step_info"] = re.sub(r"[0-9.]+", "N", p.step_info())
    out["step_info_again"] = p.step_info()
    p.stop()
    return out


if __name__ == "__main__":
    import paddle.profiler
    with open(sys.argv[1], "wb") as f:
        pickle.dump({"results": run(paddle.profiler)}, f)
