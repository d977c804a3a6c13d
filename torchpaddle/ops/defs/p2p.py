"""Point-to-point op types of Paddle's static pipeline programs: ``send_v2`` and ``recv_v2`` (slots and attributes
as Paddle 3.3.1's OpProtos). ``peer`` is the other process' index in the group of ``ring_id``; the kernels call
torch.distributed send/recv on that group. With ``dynamic_shape`` the shape travels first (its rank, then its
dims), so ``out_shape`` may be left empty; otherwise ``recv_v2`` receives a tensor of ``out_shape``.
"""
import torch
import torch.distributed as _dist

from ...framework import hooks as _hooks
from .creation import torch_dtype
from ..registry import op


def _peer(op_type, ring_id, peer):
    group = _hooks.get("collective_group")(op_type, ring_id)
    if not 0 <= peer < group.nranks or peer == group.rank:
        raise ValueError(f"{op_type}: peer must be another process' index in the group of ring_id {ring_id} "
                         f"(0 <= peer < {group.nranks}, not {group.rank}), got {peer}")
    return group.ranks[peer], group.process_group


@op("send_v2", inputs=["X"], outputs=[], attrs={"ring_id": 0, "peer": 0, "use_calc_stream": False,
                                               "dynamic_shape": False}, differentiable=False)
def send_v2(X, *, ring_id, peer, use_calc_stream, dynamic_shape):
    """Send X to process ``peer`` of the group."""
    if X.device.type == "meta":
        return ()
    dst, pg = _peer("send_v2", ring_id, peer)
    if dynamic_shape:
        _dist.send(torch.tensor([X.dim()], dtype=torch.int64), dst, group=pg)
        if X.dim():
            _dist.send(torch.tensor(list(X.shape), dtype=torch.int64), dst, group=pg)
    _dist.send(X.detach().contiguous(), dst, group=pg)
    return ()


@op("recv_v2", inputs=[], outputs=["Out"], attrs={"ring_id": 0, "peer": 0, "dtype": 5, "out_shape": [],
                                                 "use_calc_stream": False, "dynamic_shape": False},
    differentiable=False)
def recv_v2(*, ring_id, peer, dtype, out_shape, use_calc_stream, dynamic_shape):
    """The tensor process ``peer`` of the group sends (of ``out_shape`` and ``dtype``)."""
    dt = torch_dtype("recv_v2", dtype)
    shape = [int(s) for s in out_shape]
    if not dynamic_shape and any(s < 0 for s in shape):
        raise ValueError(f"recv_v2: out_shape must be known (no -1) unless dynamic_shape is set, got {shape}")
    src, pg = _peer("recv_v2", ring_id, peer)
    if dynamic_shape:
        rank = torch.zeros(1, dtype=torch.int64)
        _dist.recv(rank, src, group=pg)   # NOTE: the rank, then the dims: one message of unknown length otherwise
        dims = torch.zeros(int(rank), dtype=torch.int64)
        if int(rank):
            _dist.recv(dims, src, group=pg)
        shape = dims.tolist()
    out = torch.empty(shape, dtype=dt)
    _dist.recv(out, src, group=pg)
    return out
