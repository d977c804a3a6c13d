"""Where torch's DTensor dispatch lacks a rule or differs from Paddle, Paddle's choice, as DTensor op handlers.

``enable()`` runs when the first dist tensor is made, so dense eager ops never pay for any of this (the
handlers are only consulted by DTensor's own dispatch). It makes:
- a dense tensor mixed with dist ones count as Replicate (Paddle does this; torch raises by default);
- convolution follow Paddle's Conv2dInferSpmd (batch, out-channel or in-channel -> Partial sharding): torch
  returns a silently wrong value for in-channel sharding and errors on out-channel sharding;
- embedding with a vocab-sharded table replicate the table first (Paddle's rule; torch would make a private
  ``_MaskPartial``), and p-norms return Replicate (torch: a private ``_NormPartial``);
- ops torch has no rule for (im2col, searchsorted, data-dependent shapes: nonzero, unique, masked_select,
  bincount...) replicate their inputs, compute on whole values and return Replicate: slower, never wrong.
"""
import torch
from torch.distributed.tensor import DTensor, Replicate, Shard, Partial
from torch.utils import _pytree as pytree

__all__ = ["enable", "replicate_all"]

aten = torch.ops.aten
_STATE = {"on": False}


def _first_mesh(values):
    for v in values:
        if isinstance(v, DTensor):
            return v.device_mesh
    return None


def _whole(value):
    return value.full_tensor() if isinstance(value, DTensor) else value


def _wrap_replicated(result, mesh):
    def wrap_one(r):
        if isinstance(r, torch.Tensor) and not isinstance(r, DTensor):
            return DTensor.from_local(r, mesh, [Replicate()] * mesh.ndim, run_check=False)
        return r
    return pytree.tree_map(wrap_one, result)


def replicate_all(op_call, args, kwargs):
    """Paddle's fallback for an op without a rule: whole inputs in, Replicate outputs."""
    mesh = _first_mesh(pytree.tree_leaves((args, kwargs)))
    args, kwargs = pytree.tree_map(_whole, (args, kwargs))
    return _wrap_replicated(op_call(*args, **kwargs), mesh)


def _default(op_call, args, kwargs, fallback=False):
    """torch's own DTensor path (propagate, redistribute, local compute, wrap) for a handled op; with
    ``fallback``, replicate_all where torch's propagation refuses."""
    dispatcher = DTensor._op_dispatcher
    op_info = dispatcher.unwrap_to_op_info(op_call, args, kwargs)
    try:
        dispatcher.sharding_propagator.propagate(op_info)
    except (RuntimeError, NotImplementedError):
        if not fallback:
            raise
        return replicate_all(op_call, args, kwargs)
    sharding = op_info.output_sharding
    if not op_info.compute_mesh._is_current_rank_part_of_mesh():
        # a rank outside the mesh (another pipeline stage's op): torch's empty result of the right dtype
        return dispatcher.wrap(dispatcher._dispatch_get_local_results_slow_path(op_call, args, op_info),
                               sharding.output_spec)
    if sharding.needs_redistribute:
        dispatcher.redistribute_local_args(op_info, sharding.redistribute_schema,
                                           sharding.use_val_from_redistribute_schema)
    try:
        local = op_call(*op_info.local_args, **op_info.local_kwargs)
    except RuntimeError:
        if op_call not in (aten.view.default, aten._unsafe_view.default):
            raise
        # a DTensor's global strides can allow a view that its non-contiguous local part does not (a
        # transposed activation resharded, then matmul'd): view a contiguous copy instead
        local_args = [a.contiguous() if isinstance(a, torch.Tensor) else a for a in op_info.local_args]
        local = op_call(*local_args, **op_info.local_kwargs)
    return dispatcher.wrap(local, sharding.output_spec)


def _without_private(result):
    def fix(r):
        if isinstance(r, DTensor) and any(isinstance(p, Partial) and type(p) is not Partial for p in r.placements):
            return r.redistribute(r.device_mesh, [Replicate() if isinstance(p, Partial) and type(p) is not Partial
                                                  else p for p in r.placements])
        return r
    return pytree.tree_map(fix, result)


def _embedding(op_call, args, kwargs):
    weight = args[0]
    if isinstance(weight, DTensor) and any(p == Shard(0) for p in weight.placements):
        weight = weight.redistribute(weight.device_mesh, [Replicate() if p == Shard(0) else p
                                                          for p in weight.placements])
        args = (weight,) + tuple(args[1:])
    return _without_private(_default(op_call, args, kwargs))


def _private_to_replicate(op_call, args, kwargs):
    return _without_private(_default(op_call, args, kwargs))


def _default_or_replicate(op_call, args, kwargs):
    """torch's rule, or the replicate fallback where it has none for these shapes (a reshape that splits a
    sharded dim unevenly). Propagation looks at global shapes only, so every process takes the same branch."""
    return _default(op_call, args, kwargs, fallback=True)


def _as_dtensor(value, mesh):
    if isinstance(value, DTensor):
        return value
    return DTensor.from_local(value, mesh, [Replicate()] * mesh.ndim, run_check=False)


def _conv_plan(x, w):
    """Per mesh dim: (input placement, weight placement, output placement), as Paddle's conv rule."""
    plan = []
    for px, pw in zip(x.placements, w.placements):
        if px == Shard(0):
            plan.append((Shard(0), Replicate(), Shard(0)))
        elif pw == Shard(0):
            plan.append((Replicate(), Shard(0), Shard(1)))
        elif px == Shard(1) or pw == Shard(1):
            plan.append((Shard(1), Shard(1), Partial()))
        else:
            plan.append((Replicate(), Replicate(), Replicate()))
    return plan


def _convolution(op_call, args, kwargs):
    x, w, bias, stride, padding, dilation, transposed, output_padding, groups = args
    mesh = _first_mesh((x, w, bias))
    if transposed or groups != 1 or bias is not None or kwargs:
        return replicate_all(op_call, args, kwargs)
    x, w = _as_dtensor(x, mesh), _as_dtensor(w, mesh)
    plan = _conv_plan(x, w)
    x = x.redistribute(mesh, [p[0] for p in plan])
    w = w.redistribute(mesh, [p[1] for p in plan])
    # in-channel sharding splits the contraction: every process computes its partial sum
    local = op_call(x.to_local(), w.to_local(), None, stride, padding, dilation, transposed, output_padding, groups)
    shape = list(local.shape)
    shape[0], shape[1] = x.shape[0], w.shape[0]
    return DTensor.from_local(local, mesh, [p[2] for p in plan], run_check=False, shape=torch.Size(shape),
                              stride=torch.empty(shape, device="meta").stride())


def _like(value, reference):
    """A whole (replicated) gradient value laid out as its forward tensor (Partial there -> Replicate)."""
    if value is None or not isinstance(reference, DTensor):
        return value
    mesh = reference.device_mesh
    out = DTensor.from_local(value, mesh, [Replicate()] * mesh.ndim, run_check=False)
    target = [p if isinstance(p, Shard) else Replicate() for p in reference.placements]
    return out.redistribute(mesh, target)


def _convolution_backward(op_call, args, kwargs):
    grad_output, x, w = args[:3]
    mesh = _first_mesh(args)
    whole_args, whole_kwargs = pytree.tree_map(_whole, (args, kwargs))
    grads = op_call(*whole_args, **whole_kwargs)
    out = [_like(grads[0], x), _like(grads[1], w)]
    out.append(None if grads[2] is None else DTensor.from_local(grads[2], mesh, [Replicate()] * mesh.ndim,
                                                                 run_check=False))
    return tuple(out)


def _foreach_by_mesh(op_call, args, kwargs):
    """A foreach op over tensors on several meshes (an optimizer step over pipeline stages) runs once per mesh:
    torch's DTensor computes a foreach op on its first tensor's mesh only."""
    first = args[0]
    meshes = [t.device_mesh if isinstance(t, DTensor) else None for t in first]
    if len(set(meshes)) <= 1:
        dispatcher = DTensor._op_dispatcher
        op_info = dispatcher.unwrap_to_op_info(op_call, args, kwargs)
        dispatcher.sharding_propagator.propagate(op_info)
        local = dispatcher._dispatch_get_local_results_slow_path(op_call, args, op_info)
        return dispatcher.wrap(local, op_info.output_sharding.output_spec)
    n, groups = len(first), {}
    for i, m in enumerate(meshes):
        groups.setdefault(m, []).append(i)

    def pick(value, idx):
        return [value[i] for i in idx] if isinstance(value, (list, tuple)) and len(value) == n else value
    out = [None] * n
    for idx in groups.values():
        part = op_call(*[pick(a, idx) for a in args], **{k: pick(v, idx) for k, v in kwargs.items()})
        if part is None:
            continue
        for i, r in zip(idx, part):
            out[i] = r
    return None if all(r is None for r in out) else out


# aten ops torch 2.13's DTensor has no (working) rule for
_NO_RULE = ["im2col.default", "col2im.default", "searchsorted.Tensor", "searchsorted.Scalar", "nonzero.default",
            "_unique2.default", "unique_dim.default", "unique_consecutive.default", "masked_select.default",
            "bincount.default", "_embedding_bag_forward_only.default", "_embedding_bag.default",
            "histc.default", "unfold_backward.default"]


def _handlers():
    table = {aten.convolution.default: _convolution,
             aten.convolution_backward.default: _convolution_backward,
             aten.embedding.default: _embedding,
             aten.linalg_vector_norm.default: _private_to_replicate,
             aten.view.default: _default_or_replicate,
             aten._unsafe_view.default: _default_or_replicate,
             aten.reshape.default: _default_or_replicate}
    for name in dir(aten):
        if name.startswith("_foreach_"):
            packet = getattr(aten, name)
            for overload in packet.overloads():
                table[getattr(packet, overload)] = _foreach_by_mesh
    for name in _NO_RULE:
        packet, overload = name.split(".")
        op = getattr(getattr(aten, packet, None), overload, None)
        if op is not None:
            table[op] = replicate_all
    return table


def enable():
    """Install the handlers and Paddle's implicit replication of dense inputs (once)."""
    if _STATE["on"]:
        return
    dispatcher = DTensor._op_dispatcher
    dispatcher._custom_op_handlers.update(_handlers())
    dispatcher._allow_implicit_replication = True
    _STATE["on"] = True
