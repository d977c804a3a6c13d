"""The tables ``Profiler.summary`` prints, from the torch profiler's events, in Paddle's layout: an overview by
event type, then user-defined ranges and operators with Calls and CPU Total / Avg / Max / Min / Ratio(%)."""
import enum

__all__ = ["SortedKeys", "SummaryView", "summary_text"]


class SortedKeys(enum.Enum):
    CPUTotal = 0
    CPUAvg = 1
    CPUMax = 2
    CPUMin = 3
    GPUTotal = 4
    GPUAvg = 5
    GPUMax = 6
    GPUMin = 7


class SummaryView(enum.Enum):
    DeviceView = 0
    OverView = 1
    ModelView = 2
    DistributedView = 3
    KernelView = 4
    OperatorView = 5
    MemoryView = 6
    MemoryManipulationView = 7
    UDFView = 8


_SCALE = {"s": 1e-6, "ms": 1e-3, "us": 1.0, "ns": 1e3}   # from torch's microseconds


def _kind(name):
    if name.startswith("ProfileStep#"):
        return "ProfileStep"
    if name.startswith(("aten::", "prim::", "cuda", "c10d::")):
        return "Operator"
    return "UserDefined"


def _stats(events):
    """name -> [calls, total, max, min] of the events' wall times (microseconds)."""
    out = {}
    for e in events:
        t = e.time_range.elapsed_us()
        s = out.setdefault(e.name, [0, 0.0, 0.0, float("inf")])
        s[0] += 1
        s[1] += t
        s[2] = max(s[2], t)
        s[3] = min(s[3], t)
    return out


def _table(title, header, rows):
    widths = [max(len(str(r[i])) for r in [header] + rows) + 2 for i in range(len(header))]
    line = "  ".join("-" * w for w in widths) + "  "
    fmt = lambda r: "  ".join(str(c).ljust(w) for c, w in zip(r, widths)) + "  "   # noqa: E731
    width = len(line)
    return "\n".join([title.center(width, "-"), "{unit}", line, fmt(header), line] + [fmt(r) for r in rows] +
                     [line, ""])


def summary_text(events, sorted_by, time_unit, views, op_detail=True):
    scale = _SCALE[time_unit]
    stats = _stats(events)
    steps = [s for n, s in stats.items() if _kind(n) == "ProfileStep"]
    base = sum(s[1] for s in steps) or sum(s[1] for n, s in stats.items() if _kind(n) != "Operator") or \
        sum(s[1] for s in stats.values()) or 1.0
    key = {SortedKeys.CPUAvg: lambda s: s[1] / s[0], SortedKeys.CPUMax: lambda s: s[2],
           SortedKeys.CPUMin: lambda s: -s[3]}.get(sorted_by, lambda s: s[1])
    views = [views] if isinstance(views, SummaryView) else list(views) if views else \
        [SummaryView.OverView, SummaryView.OperatorView, SummaryView.UDFView]
    v = lambda x: f"{x * scale:.2f}"   # noqa: E731
    parts = []
    if SummaryView.OverView in views:
        kinds = {}
        for name, s in stats.items():
            k = kinds.setdefault(_kind(name), [0, 0.0])
            k[0] += s[0]
            k[1] += s[1]
        order = ["ProfileStep", "UserDefined", "Operator"]
        rows = [[("" if k == "ProfileStep" else "  ") + k, kinds[k][0], v(kinds[k][1]),
                 f"{100 * kinds[k][1] / base:.2f}"] for k in order if k in kinds]
        parts.append(_table("Overview Summary", ["Event Type", "Calls", "CPU Time", "Ratio (%)"], rows))
    for view, kind, title in [(SummaryView.UDFView, "UserDefined", "UserDefined Summary"),
                              (SummaryView.OperatorView, "Operator", "Operator Summary")]:
        if view not in views or (kind == "Operator" and not op_detail and SummaryView.OperatorView not in views):
            continue
        chosen = sorted([(n, s) for n, s in stats.items() if _kind(n) == kind], key=lambda p: -key(p[1]))
        rows = [[n, s[0], f"{v(s[1])} / {v(s[1] / s[0])} / {v(s[2])} / {v(s[3])} / {100 * s[1] / base:.2f}"]
                for n, s in chosen]
        parts.append(_table(title, ["Name", "Calls", "CPU Total / Avg / Max / Min / Ratio(%)"], rows))
    return "\n".join(parts).replace("{unit}", f"Time unit: {time_unit}")
