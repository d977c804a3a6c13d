"""Collectives on Tensors and picklable objects, over torch.distributed.

On static Variables (paddle.enable_static()) all_reduce, broadcast and all_gather append Paddle's
c_allreduce_*/c_broadcast/c_allgather ops to the program instead (see static_ops.py).

Every collective writes into the caller's Tensor objects (their torch tensors are updated in place). With
``sync_op=False`` it returns a ``Task`` at once; ``task.wait()`` waits for it. Before the tensors move, the
ranks compare what each passes (operation, dtype, shapes, split sizes) with one small all-gather, so a
mismatch is a ValueError on every rank rather than gloo aborting the process; TORCHPADDLE_DIST_CHECK=0 turns
that check off.
"""
import datetime
import os

import torch
import torch.distributed as _dist

from ..framework.program import Variable
from ..framework.tensor import Tensor, wrap
from . import group as _group
from . import static_ops as _static

__all__ = ["ReduceOp", "all_reduce", "broadcast", "reduce", "all_gather", "all_gather_object",
           "broadcast_object_list", "scatter", "scatter_object_list", "gather", "reduce_scatter", "alltoall",
           "alltoall_single", "barrier", "wait"]


class ReduceOp:
    """Reduction of ``all_reduce``/``reduce``/``reduce_scatter`` (Paddle's int codes)."""
    SUM = 0
    MAX = 1
    MIN = 2
    PROD = 3
    AVG = 4


# AVG runs as SUM and a division, which every backend has (gloo's own AVG is newer than some torch builds).
_TORCH_OPS = {ReduceOp.SUM: _dist.ReduceOp.SUM, ReduceOp.MAX: _dist.ReduceOp.MAX,
              ReduceOp.MIN: _dist.ReduceOp.MIN, ReduceOp.PROD: _dist.ReduceOp.PRODUCT,
              ReduceOp.AVG: _dist.ReduceOp.SUM}
# torch 2.13 renamed the single-tensor forms (the old names warn); older torch has only the old names.
_all_gather_single = getattr(_dist, "all_gather_single", None) or _dist.all_gather_into_tensor
_reduce_scatter_single = getattr(_dist, "reduce_scatter_single", None) or _dist.reduce_scatter_tensor


class Task:
    """What an async collective returns: ``wait()`` blocks until the result is in the output tensors."""

    def __init__(self, works=(), finish=None):
        self._works = [w for w in works if w is not None]
        self._finish = finish

    def wait(self, timeout=None):
        for work in self._works:
            if timeout is None:
                work.wait()
            else:
                work.wait(timeout if isinstance(timeout, datetime.timedelta)
                          else datetime.timedelta(milliseconds=timeout))
        self._works = []
        if self._finish is not None:
            finish, self._finish = self._finish, None
            finish()
        return True

    def is_completed(self):
        return all(w.is_completed() for w in self._works)

    def synchronize(self):
        self.wait()

    def is_sync(self):
        return not self._works

    def __repr__(self):
        return f"Task(completed={self.is_completed()})"


def _issue(works, finish, sync_op):
    task = Task(works, finish)
    if sync_op:
        task.wait()
    return task


# -- argument checks ----------------------------------------------------------------------------------------

def _check_tensor(value, arg, api):
    if isinstance(value, Variable):
        raise TypeError(f"{api}: {arg} is a static Variable; in static mode only all_reduce, broadcast and "
                        "all_gather append collective ops to the program")
    if not isinstance(value, Tensor):
        raise TypeError(f"{api}: {arg} must be a paddle.Tensor, got {type(value).__name__}")
    return value


def _check_list(value, arg, api, length=None, like=None):
    if not isinstance(value, (list, tuple)):
        raise TypeError(f"{api}: {arg} must be a list of paddle.Tensor, got {type(value).__name__}")
    for i, item in enumerate(value):
        _check_tensor(item, f"{arg}[{i}]", api)
    if length is not None and len(value) != length:
        raise ValueError(f"{api}: {arg} must hold {length} tensors (one per rank of the group), got {len(value)}")
    if like is not None:
        for i, item in enumerate(value):
            if item._t.shape != like._t.shape or item._t.dtype != like._t.dtype:
                raise ValueError(f"{api}: {arg}[{i}] is {list(item.shape)} {item.dtype}, but tensor is "
                                 f"{list(like.shape)} {like.dtype}; they must match")
    return value


def _check_op(op, api):
    if op not in _TORCH_OPS or isinstance(op, bool):
        raise ValueError(f"{api}: op must be one of ReduceOp.SUM/MAX/MIN/PROD/AVG, got {op!r}")
    return op


def _check_peer(rank, arg, group, api):
    if not isinstance(rank, int) or isinstance(rank, bool):
        raise TypeError(f"{api}: {arg} must be an int (a global rank), got {type(rank).__name__}")
    if rank not in group.ranks:
        raise ValueError(f"{api}: {arg}={rank} is not a rank of the group (ranks {group.ranks})")
    return rank


def _out(tensor):
    """(torch buffer torch may write into, copy-back to run after) for the caller's Tensor."""
    t = tensor._t.detach()
    if t.is_contiguous():
        return t, None
    buf = t.contiguous()
    return buf, lambda: t.copy_(buf)


def _chain(*steps):
    steps = [s for s in steps if s is not None]
    if not steps:
        return None

    def run():
        for step in steps:
            step()
    return run


def _average(buf, n):
    def run():
        if buf.is_floating_point() or buf.is_complex():
            buf.div_(n)
        else:
            buf.copy_(torch.div(buf, n, rounding_mode="trunc"))
    return run


# -- cross-rank agreement ---------------------------------------------------------------------------------

_API_CODES = {name: i for i, name in enumerate(__all__)}
_DTYPES = [torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int8, torch.uint8, torch.int16,
           torch.int32, torch.int64, torch.bool, torch.complex64, torch.complex128]
_DTYPE_CODES = {d: i for i, d in enumerate(_DTYPES)}
_MAX_DIMS = 9
_HEAD = 3 + _MAX_DIMS


def _describe(row, n):
    dtype = _DTYPES[row[1]] if 0 <= row[1] < len(_DTYPES) else "?"
    text = f"{__all__[row[0]] if 0 <= row[0] < len(__all__) else '?'} {str(dtype).replace('torch.', '')}"
    if row[2] >= 0:
        text += f" {row[3:3 + row[2]]}"
    if row[_HEAD] >= 0:
        text += f" send {row[_HEAD:_HEAD + n]} recv {row[_HEAD + n:]}"
    return text


def _agree(group, api, dtype, shape=None, send=None, recv=None):
    """Check that every rank of ``group`` called ``api`` with the same dtype and shape (when given) and, for
    all-to-all, that what each rank sends to each peer is what that peer expects (element counts)."""
    if os.environ.get("TORCHPADDLE_DIST_CHECK", "1") == "0":
        return
    n = group.nranks
    row = [-1] * (_HEAD + 2 * n)
    row[0], row[1] = _API_CODES[api], _DTYPE_CODES.get(dtype, len(_DTYPES))
    if shape is not None:
        shape = list(shape)[:_MAX_DIMS]
        row[2] = len(shape)
        row[3:3 + len(shape)] = shape
    if send is not None:
        row[_HEAD:_HEAD + n], row[_HEAD + n:] = send, recv
    mine = torch.tensor(row, dtype=torch.int64)
    if group.backend == "NCCL":
        mine = mine.cuda()
    rows = [torch.empty_like(mine) for _ in range(n)]
    _dist.all_gather(rows, mine, group=group.process_group)
    rows = [r.tolist() for r in rows]
    heads = [r[:_HEAD] for r in rows]
    ok = all(h == heads[0] for h in heads)
    if ok and send is not None:
        ok = all(rows[i][_HEAD + j] == rows[j][_HEAD + n + i] for i in range(n) for j in range(n))
    if not ok:
        ranks = "; ".join(f"rank {group.ranks[i]}: {_describe(r, n)}" for i, r in enumerate(rows))
        raise ValueError(f"paddle.distributed.{api}: the ranks of the group disagree on the call ({ranks})")


# -- tensor collectives -----------------------------------------------------------------------------------

def all_reduce(tensor, op=ReduceOp.SUM, group=None, sync_op=True):
    """Reduce ``tensor`` over the group; every rank gets the result in ``tensor``."""
    api = "all_reduce"
    if isinstance(tensor, Variable):   # static mode: append the op to the program (Paddle 2.x)
        return _static.static_all_reduce(tensor, op, group, sync_op)
    g = _group._resolve(group, api)
    _check_tensor(tensor, "tensor", api)
    _check_op(op, api)
    if g is None:
        return None
    _agree(g, api, tensor._t.dtype, tensor._t.shape)
    buf, copy_back = _out(tensor)
    work = _dist.all_reduce(buf, op=_TORCH_OPS[op], group=g.process_group, async_op=True)
    return _issue([work], _chain(_average(buf, g.nranks) if op == ReduceOp.AVG else None, copy_back), sync_op)


def broadcast(tensor, src, group=None, sync_op=True):
    """Copy global rank ``src``'s ``tensor`` into every rank's ``tensor``."""
    api = "broadcast"
    if isinstance(tensor, Variable):
        return _static.static_broadcast(tensor, src, group, sync_op)
    g = _group._resolve(group, api)
    _check_tensor(tensor, "tensor", api)
    if g is None:
        return None
    _check_peer(src, "src", g, api)
    _agree(g, api, tensor._t.dtype, tensor._t.shape)
    buf, copy_back = _out(tensor)
    return _issue([_dist.broadcast(buf, src, group=g.process_group, async_op=True)], copy_back, sync_op)


def reduce(tensor, dst, op=ReduceOp.SUM, group=None, sync_op=True):
    """Reduce ``tensor`` over the group into global rank ``dst``'s ``tensor``."""
    api = "reduce"
    g = _group._resolve(group, api)
    _check_tensor(tensor, "tensor", api)
    _check_op(op, api)
    if g is None:
        return None
    _check_peer(dst, "dst", g, api)
    _agree(g, api, tensor._t.dtype, tensor._t.shape)
    mine = tensor._t.detach()
    # torch may use a non-destination buffer as scratch; Paddle leaves it alone, so reduce a copy there.
    buf = mine.contiguous() if _dist.get_rank() == dst else mine.clone(memory_format=torch.contiguous_format)
    work = _dist.reduce(buf, dst, op=_TORCH_OPS[op], group=g.process_group, async_op=True)
    finish = None
    if _dist.get_rank() == dst:
        finish = _chain(_average(buf, g.nranks) if op == ReduceOp.AVG else None,
                        None if buf.data_ptr() == mine.data_ptr() else (lambda: mine.copy_(buf)))
    return _issue([work], finish, sync_op)


def all_gather(tensor_list, tensor, group=None, sync_op=True):
    """Gather every rank's ``tensor``: into ``tensor_list`` (a list, filled when empty) or into one Tensor
    of shape ``[nranks * tensor.shape[0], ...]``."""
    api = "all_gather"
    if isinstance(tensor, Variable):
        return _static.static_all_gather(tensor_list, tensor, group, sync_op)
    g = _group._resolve(group, api)
    _check_tensor(tensor, "tensor", api)
    if g is None:
        return None
    n = g.nranks
    src = tensor._t.detach().contiguous()
    if isinstance(tensor_list, Tensor):
        expect = [n * (src.shape[0] if src.dim() else 1), *src.shape[1:]]
        if list(tensor_list._t.shape) != expect or tensor_list._t.dtype != src.dtype:
            raise ValueError(f"{api}: the output tensor must be {expect} {tensor.dtype} for input "
                             f"{list(tensor.shape)} on {n} ranks, got {list(tensor_list.shape)} {tensor_list.dtype}")
        _agree(g, api, src.dtype, src.shape)
        buf, copy_back = _out(tensor_list)
        work = _all_gather_single(buf, src, group=g.process_group, async_op=True)
        return _issue([work], copy_back, sync_op)
    _check_list(tensor_list, "tensor_list", api)
    if tensor_list:
        _check_list(tensor_list, "tensor_list", api, n, tensor)
    else:
        tensor_list.extend(wrap(torch.empty_like(src)) for _ in range(n))
    _agree(g, api, src.dtype, src.shape)
    outs = [_out(t) for t in tensor_list]
    work = _dist.all_gather([b for b, _ in outs], src, group=g.process_group, async_op=True)
    return _issue([work], _chain(*(c for _, c in outs)), sync_op)


def gather(tensor, gather_list=None, dst=0, group=None, sync_op=True):
    """Gather every rank's ``tensor`` into ``gather_list`` on global rank ``dst`` (filled when empty)."""
    api = "gather"
    g = _group._resolve(group, api)
    _check_tensor(tensor, "tensor", api)
    if g is None:
        return None
    _check_peer(dst, "dst", g, api)
    src = tensor._t.detach().contiguous()
    outs = None
    if _dist.get_rank() == dst:
        if gather_list is None:
            raise ValueError(f"{api}: gather_list must be a list on the destination rank {dst}")
        _check_list(gather_list, "gather_list", api)
        if gather_list:
            _check_list(gather_list, "gather_list", api, g.nranks, tensor)
        else:
            gather_list.extend(wrap(torch.empty_like(src)) for _ in range(g.nranks))
        outs = [_out(t) for t in gather_list]
    _agree(g, api, src.dtype, src.shape)
    work = _dist.gather(src, [b for b, _ in outs] if outs else None, dst=dst, group=g.process_group,
                        async_op=True)
    return _issue([work], _chain(*(c for _, c in outs or ())), sync_op)


def scatter(tensor, tensor_list=None, src=0, group=None, sync_op=True):
    """Global rank ``src`` sends ``tensor_list[i]`` (or the i-th axis-0 slice of a Tensor) to the group's
    i-th rank, which receives it in ``tensor``."""
    api = "scatter"
    g = _group._resolve(group, api)
    _check_tensor(tensor, "tensor", api)
    if g is None:
        return None
    _check_peer(src, "src", g, api)
    pieces = None
    if _dist.get_rank() == src:
        if isinstance(tensor_list, Tensor):
            if tensor_list.shape[0] % g.nranks:
                raise ValueError(f"{api}: tensor_list's axis 0 ({tensor_list.shape[0]}) must divide evenly over "
                                 f"{g.nranks} ranks")
            tensor_list = [wrap(p) for p in torch.chunk(tensor_list._t.detach(), g.nranks)]
        if tensor_list is None:
            raise ValueError(f"{api}: tensor_list must be given on the source rank {src}")
        _check_list(tensor_list, "tensor_list", api, g.nranks, tensor)
        pieces = [t._t.detach().contiguous() for t in tensor_list]
    _agree(g, api, tensor._t.dtype, tensor._t.shape)
    buf, copy_back = _out(tensor)
    work = _dist.scatter(buf, pieces, src=src, group=g.process_group, async_op=True)
    return _issue([work], copy_back, sync_op)


def reduce_scatter(tensor, tensor_list, op=ReduceOp.SUM, group=None, sync_op=True):
    """Reduce ``tensor_list`` (a list of one tensor per rank, or one Tensor split on axis 0) over the group;
    the group's i-th rank gets the i-th reduced piece in ``tensor``."""
    api = "reduce_scatter"
    g = _group._resolve(group, api)
    _check_tensor(tensor, "tensor", api)
    _check_op(op, api)
    if g is None:
        return None
    buf, copy_back = _out(tensor)
    if isinstance(tensor_list, Tensor):
        expect = [g.nranks * (buf.shape[0] if buf.dim() else 1), *buf.shape[1:]]
        if list(tensor_list._t.shape) != expect or tensor_list._t.dtype != buf.dtype:
            raise ValueError(f"{api}: the input tensor must be {expect} {tensor.dtype} for output "
                             f"{list(tensor.shape)} on {g.nranks} ranks, got {list(tensor_list.shape)} "
                             f"{tensor_list.dtype}")
        _agree(g, api, buf.dtype, buf.shape)
        work = _reduce_scatter_single(buf, tensor_list._t.detach().contiguous(), op=_TORCH_OPS[op],
                                           group=g.process_group, async_op=True)
    else:
        _check_list(tensor_list, "tensor_list", api, g.nranks, tensor)
        _agree(g, api, buf.dtype, buf.shape)
        work = _dist.reduce_scatter(buf, [t._t.detach().contiguous() for t in tensor_list], op=_TORCH_OPS[op],
                                    group=g.process_group, async_op=True)
    return _issue([work], _chain(_average(buf, g.nranks) if op == ReduceOp.AVG else None, copy_back), sync_op)


def alltoall(out_tensor_list, in_tensor_list, group=None, sync_op=True):
    """Send ``in_tensor_list[i]`` to the group's i-th rank; what rank i sends here lands in
    ``out_tensor_list[i]`` (filled, shaped like ``in_tensor_list[i]``, when empty)."""
    api = "alltoall"
    g = _group._resolve(group, api)
    if g is None:
        return None
    n = g.nranks
    _check_list(in_tensor_list, "in_tensor_list", api, n)
    _check_list(out_tensor_list, "out_tensor_list", api)
    dtypes = {t._t.dtype for t in list(in_tensor_list) + list(out_tensor_list)}
    if len(dtypes) > 1:
        raise ValueError(f"{api}: all tensors must have one dtype, got {sorted(str(d) for d in dtypes)}")
    if not out_tensor_list:
        out_tensor_list.extend(wrap(torch.empty_like(t._t.detach())) for t in in_tensor_list)
    _check_list(out_tensor_list, "out_tensor_list", api, n)
    _agree(g, api, in_tensor_list[0]._t.dtype, send=[t._t.numel() for t in in_tensor_list],
           recv=[t._t.numel() for t in out_tensor_list])
    outs = [_out(t) for t in out_tensor_list]
    work = _dist.all_to_all([b for b, _ in outs], [t._t.detach().contiguous() for t in in_tensor_list],
                            group=g.process_group, async_op=True)
    return _issue([work], _chain(*(c for _, c in outs)), sync_op)


def _splits(sizes, tensor, arg, n, api):
    rows = tensor._t.shape[0] if tensor._t.dim() else 1
    if sizes is None:
        if rows % n:
            raise ValueError(f"{api}: axis 0 of {arg.split('_')[0]}_tensor ({rows}) must divide evenly over {n} "
                             f"ranks when {arg} is None")
        return [rows // n] * n
    sizes = [int(s) for s in sizes]
    if len(sizes) != n or any(s < 0 for s in sizes) or sum(sizes) != rows:
        raise ValueError(f"{api}: {arg} {sizes} must be {n} non-negative sizes summing to axis 0 ({rows})")
    return sizes


def alltoall_single(out_tensor, in_tensor, in_split_sizes=None, out_split_sizes=None, group=None, sync_op=True):
    """All-to-all of axis-0 slices of one tensor: slice i of ``in_tensor`` goes to the group's i-th rank;
    the slices received are laid out along axis 0 of ``out_tensor``."""
    api = "alltoall_single"
    g = _group._resolve(group, api)
    _check_tensor(out_tensor, "out_tensor", api)
    _check_tensor(in_tensor, "in_tensor", api)
    if g is None:
        return None
    if out_tensor._t.dtype != in_tensor._t.dtype or out_tensor._t.shape[1:] != in_tensor._t.shape[1:]:
        raise ValueError(f"{api}: out_tensor {list(out_tensor.shape)} {out_tensor.dtype} and in_tensor "
                         f"{list(in_tensor.shape)} {in_tensor.dtype} must share dtype and trailing dims")
    ins = _splits(in_split_sizes, in_tensor, "in_split_sizes", g.nranks, api)
    outs = _splits(out_split_sizes, out_tensor, "out_split_sizes", g.nranks, api)
    row = int(torch.tensor(in_tensor._t.shape[1:]).prod()) if in_tensor._t.dim() > 1 else 1
    _agree(g, api, in_tensor._t.dtype, send=[s * row for s in ins], recv=[s * row for s in outs])
    buf, copy_back = _out(out_tensor)
    work = _dist.all_to_all_single(buf, in_tensor._t.detach().contiguous(), outs, ins, group=g.process_group,
                                   async_op=True)
    return _issue([work], copy_back, sync_op)


def barrier(group=None):
    """Block until every rank of the group reaches the barrier."""
    g = _group._resolve(group, "barrier")
    if g is not None:
        _dist.barrier(group=g.process_group)


def wait(tensor, group=None, use_calc_stream=True):
    """Make the compute stream wait for communication on ``tensor`` (CUDA); on CPU collectives are already
    complete when they return (or when their Task is waited on)."""
    _check_tensor(tensor, "tensor", "wait")
    if tensor._t.is_cuda:
        torch.cuda.current_stream(tensor._t.device).synchronize()


# -- objects ------------------------------------------------------------------------------------------------

def _check_object_list(value, arg, api):
    if not isinstance(value, list):
        raise TypeError(f"{api}: {arg} must be a list, got {type(value).__name__}")
    return value


def _object_call(api, objects, arg, group, src=None):
    """Checks shared by the object collectives: the group (None when this rank is not in it)."""
    _check_object_list(objects, arg, api)
    g = _group._resolve(group, api)
    if g is not None and src is not None:
        _check_peer(src, "src", g, api)
    return g


def all_gather_object(object_list, obj, group=None):
    """Append every rank's picklable ``obj`` to ``object_list``, in rank order."""
    g = _object_call("all_gather_object", object_list, "object_list", group)
    if g is None:
        return
    out = [None] * g.nranks
    _dist.all_gather_object(out, obj, group=g.process_group)
    object_list.extend(out)


def broadcast_object_list(object_list, src, group=None):
    """Replace the items of ``object_list`` with those of global rank ``src``'s list (same length)."""
    g = _object_call("broadcast_object_list", object_list, "object_list", group, src)
    if g is None:
        return
    _dist.broadcast_object_list(object_list, src=src, group=g.process_group)


def scatter_object_list(out_object_list, in_object_list=None, src=0, group=None):
    """Global rank ``src`` sends ``in_object_list[i]`` to the group's i-th rank; ``out_object_list`` becomes
    ``[the object received]``."""
    api = "scatter_object_list"
    g = _object_call(api, out_object_list, "out_object_list", group, src)
    if g is None:
        return
    if _dist.get_rank() == src:
        _check_object_list(in_object_list, "in_object_list", api)
        if len(in_object_list) != g.nranks:
            raise ValueError(f"{api}: in_object_list must hold {g.nranks} objects, got {len(in_object_list)}")
    out = [None]
    _dist.scatter_object_list(out, in_object_list if _dist.get_rank() == src else None, src=src,
                              group=g.process_group)
    out_object_list.clear()
    out_object_list.append(out[0])
