"""``reshard``: move a dist tensor to other placements, on its mesh or onto another one; differentiable.

Same mesh: torch's ``redistribute`` does S<->R, P->R, P->S, S(i)->S(j) and n-D meshes one dim at a time;
it refuses X->Partial (internal use only in torch), which Paddle allows: here the value is first replicated on
those mesh dims, then every process but the first keeps the reduction's identity (zeros for a sum). Another
mesh: the value is replicated on the source mesh, sent whole to the target processes that are not in it
(send/recv), and sliced there; the gradient goes back the same way.
"""
import torch
import torch.distributed as _dist
from torch.distributed.tensor import DTensor, distribute_tensor
from torch.distributed.tensor import placement_types as _tp

__all__ = ["redistribute", "to_partial", "cross_mesh"]

# the identity element each partial reduction starts from (what the other processes hold after R->P)
_IDENTITY = {"sum": 0, "avg": None, "max": None, "min": None, "product": 1, "bor": 0, "band": 1}


def _replicate_partials(placements, target):
    """The placements to redistribute to before the partial ones are made by hand."""
    return tuple(_tp.Replicate() if isinstance(t, _tp.Partial) and t != p else t for p, t in zip(placements, target))


class _ToPartial(torch.autograd.Function):
    """Replicate -> Partial on the mesh dims where ``target`` is Partial; the gradient is the output's,
    brought back to the input's placements."""

    @staticmethod
    def forward(ctx, dt, target):
        ctx.source = dt.placements
        mesh = dt.device_mesh
        local = dt.to_local()
        coordinate = mesh.get_coordinate()
        if coordinate is not None:
            for mesh_dim, (p, t) in enumerate(zip(dt.placements, target)):
                if isinstance(t, _tp.Partial) and p != t and coordinate[mesh_dim] != 0:
                    fill = _IDENTITY.get(t.reduce_op, 0)
                    if fill is not None:
                        local = torch.full_like(local, fill)
        return DTensor.from_local(local, mesh, target, run_check=False, shape=dt.shape, stride=dt.stride())

    @staticmethod
    def backward(ctx, grad):
        if isinstance(grad, DTensor):
            grad = redistribute(grad, ctx.source)
        return grad, None


def to_partial(dt, target):
    return _ToPartial.apply(dt, tuple(target))


def redistribute(dt, target):
    """Same-mesh reshard of a DTensor to torch placements ``target`` (any transition)."""
    current = tuple(dt.placements)
    target = tuple(target)
    if current == target:
        return dt
    if any(isinstance(t, _tp.Partial) and t != p for p, t in zip(current, target)):
        middle = _replicate_partials(current, target)
        if middle != current:
            dt = dt.redistribute(dt.device_mesh, middle)
        return to_partial(dt, target)
    return dt.redistribute(dt.device_mesh, target)


def _pairs(senders, receivers):
    """(sender, receiver) for every receiver that is not a sender, round robin over the senders."""
    out, k = [], 0
    for r in receivers:
        if r not in senders:
            out.append((senders[k % len(senders)], r))
            k += 1
    return out


def _move_whole(value, shape, dtype, source_ids, target_ids):
    """Every target process ends with the whole ``value`` (held by every source process)."""
    rank = _dist.get_rank()
    works = []
    for sender, receiver in _pairs(source_ids, target_ids):
        if rank == sender:
            works.append(_dist.isend(value.contiguous(), receiver))
        elif rank == receiver:
            value = torch.empty(shape, dtype=dtype)
            _dist.recv(value, sender)
    for w in works:
        w.wait()
    return value


def _replicated(dt):
    return tuple(_tp.Replicate() for _ in dt.placements)


class _CrossMesh(torch.autograd.Function):
    @staticmethod
    def forward(ctx, dt, target_mesh, target):
        ctx.source_mesh, ctx.source = dt.device_mesh, tuple(dt.placements)
        ctx.source_ids = dt.device_mesh.mesh.flatten().tolist()
        ctx.target_ids = target_mesh.mesh.flatten().tolist()
        ctx.shape, ctx.dtype = dt.shape, dt.dtype
        full = redistribute(dt, _replicated(dt)).to_local()
        full = _move_whole(full, dt.shape, dt.dtype, ctx.source_ids, ctx.target_ids)
        if _dist.get_rank() not in ctx.target_ids:
            full = torch.empty(dt.shape, dtype=dt.dtype)
        rep = tuple(_tp.Replicate() for _ in target)
        out = distribute_tensor(full.detach(), target_mesh, rep, src_data_rank=None)
        return redistribute(out, target)

    @staticmethod
    def backward(ctx, grad):
        if not isinstance(grad, DTensor):
            return None, None, None
        full = redistribute(grad, _replicated(grad)).to_local()
        full = _move_whole(full, ctx.shape, ctx.dtype, ctx.target_ids, ctx.source_ids)
        if _dist.get_rank() not in ctx.source_ids:
            full = torch.empty(ctx.shape, dtype=ctx.dtype)
        rep = tuple(_tp.Replicate() for _ in ctx.source)
        back = distribute_tensor(full, ctx.source_mesh, rep, src_data_rank=None)
        keep = tuple(_tp.Replicate() if isinstance(p, _tp.Partial) else p for p in ctx.source)
        return back.redistribute(ctx.source_mesh, keep), None, None


def cross_mesh(dt, target_mesh, target):
    return _CrossMesh.apply(dt, target_mesh, tuple(target))
