"""Peak memory of one static training step of a Transformer encoder, with and without the recompute pass.

    .venv/bin/python benchmarks/recompute_memory.py          # prints one JSON line; run.py prints it as a table

The program is built with torchpaddle's Paddle API (``append_backward(loss, checkpoints=...)``: each encoder
layer's output is a checkpoint, the layers' insides are recomputed in the backward). Both programs run their grad
ops one by one, so that only the recompute differs. The peak is that of the bytes torch's CPU allocator holds for
tensors made during the step (torch profiler's memory timeline: every allocation and free of a storage), measured
on the second run (the first one fills the scope). The losses and gradients of the two runs must agree. The
fused backward (one torch.autograd.grad over the recorded forward) without recompute is measured too.
"""
import json
import sys

import numpy as np

CONFIG = {"layers": 4, "d_model": 64, "heads": 4, "batch": 8, "seq": 64}


def _program(paddle, recompute, layers, d_model, heads, batch, seq):
    main, startup = paddle.static.Program(), paddle.static.Program()
    main.random_seed = startup.random_seed = 7
    with paddle.utils.unique_name.guard(), paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [batch, seq, d_model], "float32")
        h, checkpoints = x, []
        for _ in range(layers):
            h = paddle.nn.TransformerEncoderLayer(d_model, heads, 4 * d_model, dropout=0.0)(h)
            checkpoints.append(h)
        loss = paddle.mean(h * h)
        pairs = paddle.static.append_backward(loss, checkpoints=checkpoints if recompute else None)
    return main, startup, [loss] + [g for _, g in pairs]


def _peak_bytes(fn):
    import torch
    from torch.profiler import ProfilerActivity, profile
    from torch.profiler._memory_profiler import Action
    with profile(activities=[ProfilerActivity.CPU], profile_memory=True, record_shapes=True, with_stack=True) as prof:
        fn()
    now = peak = 0
    for _, action, _, size in prof._memory_profile().timeline:
        if action == Action.CREATE:
            now += size
        elif action == Action.DESTROY:
            now -= size
        peak = max(peak, now)
    del torch
    return peak


def measure(config=CONFIG):
    import torch
    import torchpaddle as paddle
    from torchpaddle.static.executor import run_grad_ops_one_by_one
    torch.set_num_threads(1)
    paddle.enable_static()
    feed = {"x": np.random.RandomState(0).randn(config["batch"], config["seq"], config["d_model"]).astype("float32")}
    peaks, values = {}, {}
    for name, recompute, per_op in (("without", False, True), ("with", True, True), ("fused", False, False)):
        main, startup, fetch = _program(paddle, recompute, **config)
        run_grad_ops_one_by_one(main, per_op)
        exe = paddle.static.Executor(paddle.CPUPlace())
        with paddle.static.scope_guard(paddle.static.Scope()):
            exe.run(startup)
            values[name] = exe.run(main, feed=feed, fetch_list=fetch)
            peaks[name] = _peak_bytes(lambda: exe.run(main, feed=feed, fetch_list=fetch))
    same = all(np.allclose(a, b, rtol=1e-4, atol=1e-6) for a, b in zip(values["with"], values["without"]))
    return {"config": config, "peak_bytes_without": peaks["without"], "peak_bytes_with": peaks["with"],
            "peak_bytes_fused": peaks["fused"], "ratio": peaks["with"] / peaks["without"], "same_values": bool(same)}


def describe(result):
    """Lines for run.py's report."""
    c = result["config"]
    mib = 1 << 20
    return [f"recompute peak memory: Transformer encoder ({c['layers']} layers, d_model {c['d_model']}, "
            f"{c['heads']} heads, batch {c['batch']} x seq {c['seq']}), one static training step, per-op backward",
            f"  without recompute {result['peak_bytes_without'] / mib:8.2f} MiB   with recompute "
            f"{result['peak_bytes_with'] / mib:8.2f} MiB   ratio {result['ratio']:.2f}x   "
            f"same losses and gradients: {'yes' if result['same_values'] else 'NO'}",
            f"  (without recompute, fused backward: {result['peak_bytes_fused'] / mib:.2f} MiB)"]


if __name__ == "__main__":
    print(json.dumps(measure()))
    sys.exit(0)
