"""Where the time goes on torchpaddle's eager path, and what thinner variants would save.

    .venv/bin/python benchmarks/profile_eager.py [--calls] [--layers] [--primitives]   (default: all)

--calls        every Python frame and C call between the user's expression and the torch kernel
--layers       timing of each layer (raw torch kernel, op kernel, op entry point, public function, operator)
--primitives   the cost of each thing the eager path does per call (attribute reads, exceptions, keyword
               calls, method vs function forms of torch calls)

Thinner entry points built as copies, and their measured gains: benchmarks/thin_variants.py.

Timings are the minimum over many short repeats (nanoseconds per call), the statistic that survives a
busy machine. torch runs single-threaded, as in run.py.
"""
import argparse
import os
import sys
import timeit

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import torchpaddle as paddle  # noqa: E402
from torchpaddle import ops as _ops  # noqa: E402
from torchpaddle.framework.tensor import Tensor, _new  # noqa: E402

torch.set_num_threads(1)


def ns_per_call(rows, budget=1.0, repeat_s=0.001):
    """{label: minimum ns per call} for ``rows`` = [(label, fn)], timed round-robin (one short repeat of
    each in turn), so that a burst of load from elsewhere hits every variant alike."""
    timers = []
    for label, fn in rows:
        timer = timeit.Timer(fn)
        number = 1
        while timer.timeit(number) < repeat_s / 2:
            number *= 2
        timers.append((label, timer, number))
    best = {label: float("inf") for label, _, _ in timers}
    rounds = max(5, int(budget / (repeat_s * len(rows))))
    for _ in range(rounds):
        for label, timer, number in timers:
            best[label] = min(best[label], timer.timeit(number) / number * 1e9)
    return best


# -- inputs ------------------------------------------------------------------------------------------
_rng = np.random.RandomState(0)
X = paddle.to_tensor(_rng.standard_normal([16, 16]).astype("float32"))
Y = paddle.to_tensor(_rng.standard_normal([16, 16]).astype("float32"))
A = paddle.to_tensor((_rng.standard_normal([64, 64]) * 0.125).astype("float32"))
B = paddle.to_tensor((_rng.standard_normal([64, 64]) * 0.125).astype("float32"))
x, y, a, b = X._t, Y._t, A._t, B._t


def _has(*names):
    return all(hasattr(paddle, n) for n in names)


# -- 1. call trace -----------------------------------------------------------------------------------
def trace(label, fn):
    events = []

    def hook(frame, event, arg):
        if event == "call":
            code = frame.f_code
            where = code.co_filename.split("torchpaddle/")[-1]
            events.append(f"py  {code.co_name:<24} {where}:{code.co_firstlineno}")
        elif event == "c_call":
            events.append(f"C   {getattr(arg, '__qualname__', arg)}")

    sys.setprofile(hook)
    fn()
    sys.setprofile(None)
    events = events[1:-1]  # drop the lambda itself and the setprofile(None) call
    n_py = sum(e.startswith("py") for e in events)
    print(f"{label}: {n_py} Python frames, {len(events) - n_py} C calls")
    for e in events:
        print("    " + e)


def calls():
    trace("paddle.add(x, y)", lambda: paddle.add(X, Y))
    trace("x + y", lambda: X + Y)
    trace("x * 0.5", lambda: X * 0.5)
    if _has("matmul"):
        trace("paddle.matmul(a, b)", lambda: paddle.matmul(A, B))
        trace("a @ b", lambda: A @ B)


# -- 2. layers ---------------------------------------------------------------------------------------
def _layer_table(title, rows):
    print(title)
    times = ns_per_call(rows)
    base = prev = None
    for label, _ in rows:
        t = times[label]
        base = t if base is None else base
        delta = "" if prev is None else f"{t - prev:+7.0f}"
        print(f"    {label:<44} {t:8.0f} ns  {delta:>8}  {t / base:5.2f}x")
        prev = t


def layers():
    add_kernel = _ops.elementwise_add.opdef.call_kernel
    _layer_table("add [16,16] (ns per call; delta vs the row above; ratio to raw torch)", [
        ("torch.add(x, y)", lambda: torch.add(x, y)),
        ("x + y  (torch)", lambda: x + y),
        ("kernel(x, y, axis=-1)", lambda: add_kernel(x, y, axis=-1)),
        ("ops.elementwise_add(X, Y)", lambda: _ops.elementwise_add(X, Y)),
        ("paddle.add(X, Y)", lambda: paddle.add(X, Y)),
        ("X + Y", lambda: X + Y),
        ("X * 0.5  (scalar operand)", lambda: X * 0.5),
    ])
    _layer_table("Tensor creation", [
        ("object.__new__(Tensor)", lambda: _new(Tensor)),
        ("wrap(t)  (new + 2 stores)", lambda: paddle.framework.tensor.wrap(x)),
    ])
    if _has("matmul"):
        mm = _ops.matmul_v2
        kernel = mm.opdef.call_kernel
        _layer_table("matmul [64,64]", [
            ("torch.matmul(a, b)", lambda: torch.matmul(a, b)),
            ("kernel(a, b, trans_x=False, trans_y=False)", lambda: kernel(a, b, trans_x=False, trans_y=False)),
            ("ops.matmul_v2(A, B)", lambda: mm(A, B)),
            ("paddle.matmul(A, B)", lambda: paddle.matmul(A, B)),
            ("A @ B", lambda: A @ B),
        ])
    else:
        print("matmul: paddle.matmul is not in torchpaddle yet")


# -- 3. primitive costs -----------------------------------------------------------------------------
def _raise_attr():
    try:
        (0.5)._t
    except AttributeError:
        pass


def _class_check():
    if (0.5).__class__ is Tensor:
        pass


def _kw(p, q, *, axis):
    return p


def _pos(p, q, axis):
    return p


def _wrap_local(t):
    o = _new(Tensor)
    o._t = t
    o._name = None
    return o


class _CachedDtypeTensor:
    """A wrapper that keeps its dtype in a slot, to price the dtype check without torch attribute reads."""
    __slots__ = ("_t", "_name", "_dt", "__dict__", "__weakref__")


def _fast_no_check(p, q):
    o = _new(Tensor)
    o._t = torch.add(p._t, q._t)
    o._name = None
    return o


def _fast_torch_dtype(p, q):
    a, b = p._t, q._t
    if a.dtype is b.dtype:
        o = _new(Tensor)
        o._t = torch.add(a, b)
        o._name = None
        return o


def _fast_cached_dtype(p, q):
    d = p._dt
    if d is q._dt:
        o = _new(_CachedDtypeTensor)
        o._t = torch.add(p._t, q._t)
        o._name = None
        o._dt = d
        return o


def primitives():
    """The costs the suggestions rest on: each row is one thing the eager path does per call."""
    rows = [
        ("x.dtype (any torch attribute read)", lambda: x.dtype),
        ("x.dtype is y.dtype", lambda: x.dtype is y.dtype),
        ("x.is_floating_point()", lambda: x.is_floating_point()),
        ("wrap: new Tensor + 2 stores (+ free)", lambda: _wrap_local(x)),
        ("call f(a, b, axis=-1), keyword-only attr", lambda: _kw(x, y, axis=-1)),
        ("call f(a, b, -1), positional", lambda: _pos(x, y, -1)),
        ("raise + catch AttributeError (0.5)._t", _raise_attr),
        ("class check instead: (0.5).__class__ is T", _class_check),
        ("torch.permute(x, [1, 0])", lambda: torch.permute(x, [1, 0])),
        ("x.permute([1, 0])  (method, list arg)", lambda: x.permute([1, 0])),
        ("torch.reshape(x, [8, 32])", lambda: torch.reshape(x, [8, 32])),
        ("x.reshape([8, 32])  (method, list arg)", lambda: x.reshape([8, 32])),
        ("torch.mul(x, 0.5)", lambda: torch.mul(x, 0.5)),
        ("torch.mul(x, y)", lambda: torch.mul(x, y)),
    ]
    print("primitive costs (ns per call, including the calling lambda, ~40 ns)")
    for label, t in ns_per_call(rows, budget=2.0).items():
        print(f"    {label:<44} {t:8.0f} ns")
    # NOTE: timed apart: interleaved with the rows above, torch.mean sometimes measured 2-4x slower here.
    rows = [("torch.mean(x, 1, True)", lambda: torch.mean(x, 1, True)),
            ("torch.mean(x, dim=(1,), keepdim=True)", lambda: torch.mean(x, dim=(1,), keepdim=True))]
    for label, t in ns_per_call(rows).items():
        print(f"    {label:<44} {t:8.0f} ns")
    xc, yc = _new(_CachedDtypeTensor), _new(_CachedDtypeTensor)
    xc._t, xc._dt, yc._t, yc._dt = x, x.dtype, y, y.dtype
    rows = [("torch.add(x, y)", lambda: torch.add(x, y)),
            ("unwrap + add + wrap, no dtype check", lambda: _fast_no_check(X, Y)),
            ("  + check a.dtype is b.dtype (torch reads)", lambda: _fast_torch_dtype(X, Y)),
            ("  + check with dtype cached in a slot", lambda: _fast_cached_dtype(xc, yc))]
    print("the dtype check of a same-dtype binary op, in context")
    for label, t in ns_per_call(rows, budget=2.0).items():
        print(f"    {label:<44} {t:8.0f} ns")
    print("(thinner entry points built from these, and their measured gains: benchmarks/thin_variants.py)")


def main():
    parser = argparse.ArgumentParser(description="Profile torchpaddle's eager path.")
    parser.add_argument("--calls", action="store_true")
    parser.add_argument("--layers", action="store_true")
    parser.add_argument("--primitives", action="store_true")
    args = parser.parse_args()
    every = not (args.calls or args.layers or args.primitives)
    if every or args.calls:
        calls()
        print()
    if every or args.layers:
        layers()
        print()
    if every or args.primitives:
        primitives()


if __name__ == "__main__":
    main()
