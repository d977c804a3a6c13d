"""SPMD rules of concat and stack (Paddle's ConcatInferSpmd, StackInferSpmd and their reverses).

Both align every input on one layout with Paddle's AlignDimsSharding (spmd_rules/utils.cc): a mesh dim on which
all inputs agree keeps its sharding (unless it shards concat's axis); a mesh dim on which they disagree goes to
the dim whose resharding moves the fewest elements (ties: the dim named first), never to a dim shorter than the
mesh dim nor to one already sharded. So a sharding can move from one tensor dim to another: concat of
``[0, 1]`` and ``[1, -1]`` along axis 0 on a 2x2 mesh gives ``[-1, 0]`` for both.
"""
import math

from ...registry import spmd_rule
from ._common import new_attr, norm_axis


def _empty(shape):
    return len(shape) == 1 and shape[0] == 0


def _placements(spec, ndim):
    """Per mesh dim: the tensor dim it shards, or None (replicated; inputs' partial status is dropped)."""
    where = [None] * ndim
    for i, d in enumerate(spec.dims_mapping):
        if d >= 0:
            where[d] = i
    return where


def _local_numel(shape, placements, mesh):
    local = list(shape)
    for m, dim in enumerate(placements):
        if dim is not None:
            local[dim] = -(-shape[dim] // mesh[m])
    return math.prod(local)


def align_dims(specs, align):
    """The dims mapping every spec of ``specs`` (same rank) gets; ``align``: the tensor dims that may be sharded."""
    mesh = list(specs[0].process_mesh.shape)
    live = [i for i, s in enumerate(specs) if not _empty(s.shape)]
    ref = live[0] if live else 0
    places = [_placements(s, len(mesh)) for s in specs]

    def mismatch(m):
        return any(places[i][m] != places[ref][m] for i in live)

    taken, chosen = set(), {}
    for m in range(len(mesh)):
        dim = places[ref][m]
        if not mismatch(m) and dim is not None and dim in align:
            taken.add(dim)
            chosen[m] = dim
    for m in range(len(mesh)):
        if not mismatch(m):
            continue
        costs = []
        for dim in align:
            cost = math.inf
            if dim not in taken:
                cost = 0.0
                for i in live:
                    shape = specs[i].shape
                    if shape[dim] < mesh[m]:
                        cost = math.inf
                        continue
                    if specs[i].dims_mapping[dim] >= 0 or math.prod(shape) == 0:
                        continue
                    cost += _local_numel(shape, places[i], mesh) * mesh[m]
            costs.append((cost, dim))
        for cost, dim in sorted(costs):
            if cost != math.inf and dim not in taken:
                taken.add(dim)
                chosen[m] = dim
                break
    dims = [-1] * len(specs[ref].shape)
    for m, dim in chosen.items():
        dims[dim] = m
    return dims


def _concat_forward(inputs, attrs):
    xs = inputs[0]
    live = [s for s in xs if not _empty(s.shape)]
    if not live:
        return [[[new_attr(s, s.dims_mapping) for s in xs]], [new_attr(xs[0], [-1] * len(xs[0].shape))]]
    rank = len(live[0].shape)
    axis = norm_axis(attrs.get("axis", 0), rank, "concat spmd rule")
    dims = align_dims(xs, [d for d in range(rank) if d != axis])
    return [[[new_attr(s, dims if len(s.shape) == rank else [-1] * len(s.shape)) for s in xs]],
            [new_attr(live[0], dims)]]


def _concat_backward(inputs, outputs, attrs):
    xs, out = inputs[0], outputs[0]
    axis = norm_axis(attrs.get("axis", 0), len(out.shape), "concat spmd rule")
    dims = [-1 if i == axis else d for i, d in enumerate(out.dims_mapping)]
    # NOTE: Paddle hands the wanted output layout back unchanged, the concatenated axis sharded or not
    return [[[new_attr(s, dims) for s in xs]], [new_attr(out, out.dims_mapping)]]


spmd_rule("concat", backward=_concat_backward)(_concat_forward)


def _stack_forward(inputs, attrs):
    xs = inputs[0]
    live = [i for i, s in enumerate(xs) if not _empty(s.shape)]
    ref = xs[live[0] if live else 0]
    rank = len(ref.shape)
    axis = attrs.get("axis", 0)
    if not -rank - 1 <= axis <= rank:
        raise ValueError(f"stack spmd rule: axis {axis} is out of range for stacking rank-{rank} tensors")
    axis = axis + rank + 1 if axis < 0 else axis
    dims = align_dims(xs, list(range(rank))) if live else list(ref.dims_mapping)
    return [[[new_attr(s, dims) for s in xs]], [new_attr(ref, dims[:axis] + [-1] + dims[axis:])]]


def _stack_backward(inputs, outputs, attrs):
    xs, out = inputs[0], outputs[0]
    axis = norm_axis(attrs.get("axis", 0), len(out.shape), "stack spmd rule")
    dims = out.dims_mapping[:axis] + out.dims_mapping[axis + 1:]
    return [[[new_attr(s, dims) for s in xs]], [new_attr(out, out.dims_mapping)]]


spmd_rule("stack", backward=_stack_backward)(_stack_forward)
