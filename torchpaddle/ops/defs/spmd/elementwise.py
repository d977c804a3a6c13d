"""SPMD rule of elementwise ops: one input, or several broadcast together (Paddle's ElementwiseUnary/Binary rules).

Paddle's choices that are not obvious, checked in tests/static/test_dist_attr.py:
- inputs' partial status is dropped (the caller reduces them first);
- a one-input elementwise op keeps a tensor dim sharded only when the mesh dim's size divides it;
- several inputs: a tensor dim of size 1 (a broadcast) never shards, but a mesh dim it names is taken, so a
  later input's dim sharded on that mesh dim is replicated; the same dim sharded on two mesh dims raises
  NotImplementedError, as Paddle does; a mesh dim wanted by two dims goes to the first.
"""
from ...registry import spmd_rule
from ._common import flatten as _flatten, mesh_shape as _mesh_shape, new_attr as _new_attr, regroup as _regroup


# -- elementwise ----------------------------------------------------------------------------------------------
def _unary_dims(spec, dims_mapping):
    mesh_shape = _mesh_shape(spec)
    return [d if d >= 0 and spec.shape[i] % mesh_shape[d] == 0 else -1 for i, d in enumerate(dims_mapping)]


def _broadcast_merge(specs):
    """{output position: mesh dim} of the broadcast of ``specs``, and each spec's dims read from it."""
    rank = max(len(s.shape) for s in specs)
    out_size = [1] * rank
    for s in specs:
        for i, size in enumerate(s.shape):
            j = rank - len(s.shape) + i
            out_size[j] = max(out_size[j], size)
    mapping, claims = {}, []   # claims: (position, or "1" for the size-1 dims, mesh dim) in order
    for s in specs:
        for i, d in enumerate(s.dims_mapping):
            # NOTE: Paddle names every size-1 dim the same axis "1": it shards nothing, but takes the mesh dim it
            # names (first come), and two different mesh dims for it raise as for any axis
            j = "1" if s.shape[i] == 1 else rank - len(s.shape) + i
            current = mapping.get(j, -1)
            if d < 0 or d == current:
                mapping.setdefault(j, -1)
                continue
            if current >= 0:
                raise NotImplementedError(f"elementwise spmd rule: tensor axis {j!r} is sharded by two different "
                                          f"mesh dims [{current}] and [{d}]")
            mapping[j] = d
            claims.append((j, d))
    taken = set()
    for j, d in claims:
        if d in taken:
            mapping[j] = -1
        else:
            taken.add(d)
    out = [mapping.get(j, -1) for j in range(rank)]
    ins = [[-1 if size == 1 else out[rank - len(s.shape) + i] for i, size in enumerate(s.shape)] for s in specs]
    return out, ins


def _elementwise_forward(inputs, attrs):
    specs = _flatten(inputs)
    if len(specs) == 1:
        dims = _unary_dims(specs[0], specs[0].dims_mapping)
        return [_regroup(inputs, [_new_attr(specs[0], dims)]), [_new_attr(specs[0], dims)]]
    out, ins = _broadcast_merge(specs)
    return [_regroup(inputs, [_new_attr(s, d) for s, d in zip(specs, ins)]), [_new_attr(specs[0], out)]]


def _elementwise_backward(inputs, outputs, attrs):
    specs, out = _flatten(inputs), _flatten(outputs)[0]
    if len(specs) == 1:
        dims = _unary_dims(out, out.dims_mapping)
        return [_regroup(inputs, [_new_attr(specs[0], dims)]), [_new_attr(out, dims)]]
    rank = len(out.shape)
    ins = [[-1 if size == 1 else out.dims_mapping[rank - len(s.shape) + i] for i, size in enumerate(s.shape)]
           for s in specs]
    return [_regroup(inputs, [_new_attr(s, d) for s, d in zip(specs, ins)]), [_new_attr(out, out.dims_mapping)]]


spmd_rule("elementwise", backward=_elementwise_backward)(_elementwise_forward)


