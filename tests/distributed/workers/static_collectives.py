"""One rank of the static collective checks: programs holding c_allreduce_*/c_broadcast/c_allgather ops (from
paddle.distributed's collectives on Variables), run by the Executor; values and gradients pickled for the test."""
import pickle
import sys

import numpy as np

import torchpaddle as paddle
import torchpaddle.distributed as dist
from torchpaddle.distributed import static_ops
from _cases import data

out_template = sys.argv[1]
dist.init_parallel_env()
rank, n = dist.get_rank(), dist.get_world_size()
pair = dist.new_group([0, 1])
res = {"rank": rank, "n": n}
paddle.enable_static()
exe = paddle.static.Executor(paddle.CPUPlace())

# -- values: every collective appended by paddle.distributed on static Variables ----------------------------------
main, startup = paddle.static.Program(), paddle.static.Program()
with paddle.static.program_guard(main, startup):
    x = paddle.static.data("x", [2, 3], "float32")
    outs = {}
    for name, op in (("SUM", dist.ReduceOp.SUM), ("MAX", dist.ReduceOp.MAX), ("MIN", dist.ReduceOp.MIN),
                     ("PROD", dist.ReduceOp.PROD)):
        v = x * 1.0
        assert dist.all_reduce(v, op=op) is None
        outs["all_reduce/" + name] = v
    v = x * 1.0
    dist.all_reduce(v, group=pair)
    outs["all_reduce/pair"] = v
    v = x * 1.0
    dist.broadcast(v, src=n - 1)
    outs["broadcast"] = v
    parts = []
    dist.all_gather(parts, x * 1.0)
    for k, p in enumerate(parts):
        outs[f"all_gather/{k}"] = p
res["op_types"] = [op.type for op in main.global_block().ops]
res["ring_ids"] = [op.attr("ring_id") for op in main.global_block().ops if op.type.startswith("c_")]
res["inplace"] = all(op.input("X") == op.output("Out") for op in main.global_block().ops
                     if op.type.startswith("c_allreduce") or op.type == "c_broadcast")
exe.run(startup)
names = list(outs)
fetched = exe.run(main, feed={"x": data(rank)}, fetch_list=[outs[k] for k in names])
res["values"] = dict(zip(names, fetched))
# the same program again (a cached plan) gives the same values
res["again"] = exe.run(main, feed={"x": data(rank)}, fetch_list=[outs["all_reduce/SUM"]])[0]

# -- gradients through c_allreduce_sum (another c_allreduce_sum) and c_allgather (a reduce-scatter) -----------------
main, startup = paddle.static.Program(), paddle.static.Program()
with paddle.static.program_guard(main, startup):
    x = paddle.static.data("x", [2, 3], "float32")
    c = paddle.static.data("c", [2, 3], "float32")
    big = paddle.static.data("big", [2 * n, 3], "float32")
    w = paddle.static.create_parameter([3], "float32", name="w",
                                       default_initializer=paddle.nn.initializer.Constant(0.5))
    v = paddle.static.create_parameter([3], "float32", name="v",
                                       default_initializer=paddle.nn.initializer.Constant(-1.5))
    summed = static_ops.c_allreduce_sum(x * w)
    gathered = static_ops.c_allgather(x * v, nranks=n)
    loss = paddle.sum(summed * c) + paddle.sum(gathered * big)
    grads = paddle.static.append_backward(loss)
exe.run(startup)
got = exe.run(main, feed={"x": data(rank), "c": data(rank, 5), "big": data(rank, 6, shape=(2 * n, 3))},
              fetch_list=[summed, gathered, loss] + [g for _, g in grads])
res["grad"] = dict(zip(["summed", "gathered", "loss"] + [p.name + "@GRAD" for p, _ in grads], got))

# -- errors ----------------------------------------------------------------------------------------------------------
errors = {}
with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):
    try:
        dist.all_reduce(paddle.static.data("e", [2], "float32"), op=dist.ReduceOp.AVG)
    except ValueError as e:
        errors["avg"] = str(e)
bad, bad_startup = paddle.static.Program(), paddle.static.Program()
with paddle.static.program_guard(bad, bad_startup):
    y = static_ops.c_allreduce_sum(paddle.static.data("e", [2], "float32"), ring_id=77)
try:
    exe.run(bad, feed={"e": np.ones(2, "float32")}, fetch_list=[y])
except RuntimeError as e:
    errors["ring"] = str(e)
bad, bad_startup = paddle.static.Program(), paddle.static.Program()
with paddle.static.program_guard(bad, bad_startup):
    y = static_ops.c_allgather(paddle.static.data("e", [2], "float32"), nranks=n + 1)
try:
    exe.run(bad, feed={"e": np.ones(2, "float32")}, fetch_list=[y])
except ValueError as e:
    errors["nranks"] = str(e)
with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):
    try:
        dist.reduce(paddle.static.data("e", [2], "float32"), dst=0)
    except TypeError as e:
        errors["reduce"] = str(e)
res["errors"] = errors
paddle.disable_static()
dist.barrier()
dist.destroy_process_group()
with open(out_template.format(rank), "wb") as f:
    pickle.dump(res, f)
