"""``paddle.distributed``'s collectives on static Variables (they append the collective ops of
``ops/defs/collective.py``), and the process-group lookup those ops' kernels reach through the hook
``collective_group``.

``ring_id`` is a group id: 0 is the default group of ``init_parallel_env``, others come from ``new_group``.
"""
import torch.distributed as _dist

from ..framework import hooks as _hooks
from ..ops import (c_allgather, c_allreduce_max, c_allreduce_min, c_allreduce_prod, c_allreduce_sum,  # noqa: F401
                   c_broadcast, c_concat, c_embedding, c_identity, c_split, mp_allreduce_sum)
from . import group as _group

__all__ = ["c_allreduce_sum", "c_allreduce_max", "c_allreduce_min", "c_allreduce_prod", "c_broadcast",
           "c_allgather", "c_identity", "mp_allreduce_sum", "c_split", "c_concat", "c_embedding"]


def _group_of(op_type, ring_id):
    group = _group._STATE.groups.get(ring_id)
    if group is None:
        raise RuntimeError(f"{op_type}: ring_id {ring_id} names no communication group; call "
                           "paddle.distributed.init_parallel_env() (ring 0) or new_group() first")
    if group.process_group is None:
        raise RuntimeError(f"{op_type}: this process (global rank {_dist.get_rank()}) is not a member of the "
                           f"group of ring_id {ring_id} (ranks {group.ranks})")
    return group


_hooks.provide("collective_group", _group_of)


# -- paddle.distributed's collectives on static Variables (Paddle 2.x appended these ops) ------------------------------
_STATIC_REDUCE = {0: "c_allreduce_sum", 1: "c_allreduce_max", 2: "c_allreduce_min", 3: "c_allreduce_prod"}


def _ring_and_size(group):
    """(ring_id, nranks) of ``group`` while a program is built: the default group need not exist yet."""
    if group is not None:
        _group._check_group(group, "paddle.distributed")
        return group.id, group.nranks
    default = _group._STATE.groups.get(_group._GLOBAL_ID)
    if default is not None:
        return _group._GLOBAL_ID, default.nranks
    from .env import _global_env
    return _group._GLOBAL_ID, _global_env().world_size


def _append_in_place(op_type, var, attrs):
    block = var.block.program.current_block()
    block.append_op(op_type, {"X": [var.name]}, {"Out": [var.name]}, attrs)


def static_all_reduce(tensor, op, group, sync_op):
    """all_reduce on a static Variable: an in-place c_allreduce_<op> (X and Out are the same variable)."""
    if op not in _STATIC_REDUCE:
        raise ValueError(f"all_reduce: in static mode op must be ReduceOp.SUM/MAX/MIN/PROD (Paddle has no "
                         f"static AVG), got {op!r}")
    ring_id, _ = _ring_and_size(group)
    _append_in_place(_STATIC_REDUCE[op], tensor, {"ring_id": ring_id, "use_calc_stream": bool(sync_op),
                                                  "use_model_parallel": False})


def static_broadcast(tensor, src, group, sync_op):
    """broadcast on a static Variable: an in-place c_broadcast whose root is ``src``'s index in the group."""
    if not isinstance(src, int) or isinstance(src, bool):
        raise TypeError(f"broadcast: src must be an int (a global rank), got {type(src).__name__}")
    ring_id, nranks = _ring_and_size(group)
    root = src
    if group is not None:
        if src not in group.ranks:
            raise ValueError(f"broadcast: src={src} is not a rank of the group (ranks {group.ranks})")
        root = group.ranks.index(src)
    elif not 0 <= src < nranks:
        raise ValueError(f"broadcast: src={src} is not a rank of the default group ({nranks} ranks)")
    _append_in_place("c_broadcast", tensor, {"ring_id": ring_id, "root": root, "use_calc_stream": bool(sync_op)})


def static_all_gather(tensor_list, tensor, group, sync_op):
    """all_gather on a static Variable: a c_allgather op; ``tensor_list`` gets its output split on axis 0."""
    if not isinstance(tensor_list, list):
        raise TypeError(f"all_gather: in static mode tensor_list must be a list, got {type(tensor_list).__name__}")
    ring_id, nranks = _ring_and_size(group)
    out = c_allgather(tensor, ring_id=ring_id, nranks=nranks, use_calc_stream=bool(sync_op))
    from ..tensor.manipulation import split as _split
    tensor_list.clear()
    tensor_list.extend(_split(out, nranks, 0) if nranks > 1 else [out])
