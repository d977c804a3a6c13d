"""One rank of the collective checks: every collective, sync and async, results pickled for the test."""
import pickle
import sys

import numpy as np

import torchpaddle as paddle
import torchpaddle.distributed as dist
from _cases import OPS, data, rows, splits

out_template = sys.argv[1]
group = dist.init_parallel_env()
rank, n = dist.get_rank(), dist.get_world_size()
res = {"rank": rank, "n": n, "group_repr": repr(group), "backend": dist.get_backend(),
       "is_initialized": dist.is_initialized()}
T = paddle.to_tensor


def finish(task, sync):
    if not sync:
        assert task is not None
        task.wait()


for sync in (True, False):
    m = "sync" if sync else "async"
    for i, op in enumerate(OPS):
        x = T(data(rank, i))
        before = x
        finish(dist.all_reduce(x, op=getattr(dist.ReduceOp, op), sync_op=sync), sync)
        assert x is before
        res[f"{m}/all_reduce/{op}"] = x.numpy()
    # a non-contiguous tensor is updated in place too
    base = T(data(rank, 7, shape=(3, 2)))
    view = base.T if hasattr(base, "T") else base
    finish(dist.all_reduce(view, sync_op=sync), sync)
    res[f"{m}/all_reduce/transposed"] = view.numpy()
    x = T(data(rank, 1))
    finish(dist.broadcast(x, src=n - 1, sync_op=sync), sync)
    res[f"{m}/broadcast"] = x.numpy()
    for op in ("SUM", "MAX"):
        x = T(data(rank, 2))
        finish(dist.reduce(x, dst=1, op=getattr(dist.ReduceOp, op), sync_op=sync), sync)
        res[f"{m}/reduce/{op}"] = x.numpy()
    parts = []
    finish(dist.all_gather(parts, T(data(rank, 3)), sync_op=sync), sync)
    res[f"{m}/all_gather/list"] = np.stack([p.numpy() for p in parts])
    full = paddle.zeros([n * 2, 3])
    finish(dist.all_gather(full, T(data(rank, 3)), sync_op=sync), sync)
    res[f"{m}/all_gather/tensor"] = full.numpy()
    out = paddle.zeros(list(data(0).shape))
    pieces = [T(data(j, 4)) for j in range(n)] if rank == 0 else None
    finish(dist.scatter(out, pieces, src=0, sync_op=sync), sync)
    res[f"{m}/scatter"] = out.numpy()
    gathered = []
    finish(dist.gather(T(data(rank, 8)), gathered if rank == 0 else None, dst=0, sync_op=sync), sync)
    res[f"{m}/gather"] = np.stack([g.numpy() for g in gathered]) if rank == 0 else None
    out = paddle.zeros(list(data(0).shape))
    finish(dist.reduce_scatter(out, [T(data(rank, 5 + j)) for j in range(n)], sync_op=sync), sync)
    res[f"{m}/reduce_scatter/list"] = out.numpy()
    out = paddle.zeros([1, 3])
    finish(dist.reduce_scatter(out, T(data(rank, 5, shape=(n, 3))), op=dist.ReduceOp.MAX, sync_op=sync), sync)
    res[f"{m}/reduce_scatter/tensor"] = out.numpy()
    outs = []
    finish(dist.alltoall(outs, [T(rows(rank, 2) + j) for j in range(n)], sync_op=sync), sync)
    res[f"{m}/alltoall"] = np.stack([o.numpy() for o in outs])
    send = splits(rank, n)
    recv = [splits(j, n)[rank] for j in range(n)]
    src = np.concatenate([rows(rank, s) + 1000 * j for j, s in enumerate(send)])
    out = paddle.zeros([sum(recv), 2])
    finish(dist.alltoall_single(out, T(src), send, recv, sync_op=sync), sync)
    res[f"{m}/alltoall_single"] = out.numpy()
    # ring of send/recv
    got = paddle.zeros(list(data(0).shape))
    if rank % 2 == 0:
        finish(dist.send(T(data(rank, 6)), dst=(rank + 1) % n, sync_op=sync), sync)
        finish(dist.recv(got, src=(rank - 1) % n, sync_op=sync), sync)
    else:
        finish(dist.recv(got, src=(rank - 1) % n, sync_op=sync), sync)
        finish(dist.send(T(data(rank, 6)), dst=(rank + 1) % n, sync_op=sync), sync)
    res[f"{m}/send_recv"] = got.numpy()

got = paddle.zeros(list(data(0).shape))
tasks = [dist.isend(T(data(rank, 9)), dst=(rank + 1) % n), dist.irecv(got, src=(rank - 1) % n)]
for t in tasks:
    t.wait()
res["isend_irecv"] = got.numpy()
got = paddle.zeros(list(data(0).shape))
ops = [dist.P2POp(dist.isend, T(data(rank, 10)), (rank + 1) % n), dist.P2POp(dist.irecv, got, (rank - 1) % n)]
for t in dist.batch_isend_irecv(ops):
    t.wait()
res["batch_isend_irecv"] = got.numpy()

objs = []
dist.all_gather_object(objs, {"rank": rank, "text": "r" * rank})
res["all_gather_object"] = objs
lst = [rank, f"from {rank}", {"k": [rank]}]
dist.broadcast_object_list(lst, src=1)
res["broadcast_object_list"] = lst
out = ["stale"]
dist.scatter_object_list(out, [{"to": j, "payload": list(range(j))} for j in range(n)] if rank == 0 else None, src=0)
res["scatter_object_list"] = out

# groups: the even ranks, and a group this rank may not be in
evens = dist.new_group([r for r in range(n) if r % 2 == 0])
firsts = dist.new_group([0, 1])
res["group_ids"] = [evens.id, firsts.id, dist.get_group(evens.id) is evens]
res["group_rank"] = [dist.get_rank(evens), dist.get_world_size(evens), evens.is_member(), evens.ranks]
x = T(data(rank, 11))
ret = dist.all_reduce(x, group=evens)
res["group/all_reduce"] = x.numpy()
res["group/non_member_returns_none"] = ret is None
x = T(data(rank, 12))
dist.broadcast(x, src=1, group=firsts)
res["group/broadcast"] = x.numpy()
dist.barrier(evens)
dist.barrier()

# mismatches: every rank raises the same clear ValueError, and the job goes on
errors = {}
for name, call in [
    ("shape", lambda: dist.all_reduce(paddle.ones([2 + rank]))),
    ("dtype", lambda: dist.all_reduce(paddle.ones([2], dtype="float32" if rank else "float64"))),
    ("api", lambda: dist.all_reduce(paddle.ones([2])) if rank else dist.broadcast(paddle.ones([2]), 0)),
    ("alltoall_single", lambda: dist.alltoall_single(paddle.zeros([n]), paddle.ones([n]), [1] * n,
                                                     [2] + [1] * (n - 2) + [0] if rank == 0 else [1] * n)),
]:
    try:
        call()
        errors[name] = None
    except ValueError as e:
        errors[name] = str(e)
for name, call in [("bad_op", lambda: dist.all_reduce(paddle.ones([2]), op=9)),
                   ("bad_src", lambda: dist.broadcast(paddle.ones([2]), src=n)),
                   ("not_tensor", lambda: dist.all_reduce(np.ones(2))),
                   ("list_len", lambda: dist.all_gather([paddle.ones([2])], paddle.ones([2]))),
                   ("self_send", lambda: dist.send(paddle.ones([2]), dst=rank))]:
    try:
        call()
        errors[name] = None
    except (ValueError, TypeError) as e:
        errors[name] = f"{type(e).__name__}: {e}"
res["errors"] = errors
x = T(data(rank, 13))
dist.all_reduce(x)
res["after_errors"] = x.numpy()

dist.destroy_process_group(evens)
dist.destroy_process_group()
res["destroyed"] = dist.is_initialized()
with open(out_template.format(rank), "wb") as f:
    pickle.dump(res, f)
