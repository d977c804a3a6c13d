"""SPMD rules of reductions (Paddle's ReductionInferSpmdBase / ReductionInferSpmdReverse).

The input keeps its layout; a sharded reduced dim leaves the output partial over that mesh dim, with the reduction
the op does (sum, mean -> AVG, max, min, prod, all, any). Paddle's static rule registry answers SUM for every
reduction (its dygraph ops use the typed variants, ReductionMaxInferSpmdDynamic and so on): these rules use the
typed ones. Reductions that are not linear (median, quantile, kthvalue, mode, var) have no Paddle rule: they
replicate the reduced dims of the input, so the output is never partial (hand-worked in the tests).
"""
from ....framework.dist_attr import ReduceType
from ...registry import spmd_rule
from ._common import ALPHABET, dims_for, merge, new_attr, partial_dims, replicate_slots, with_dims


def _axes_keep(spec, attrs):
    """(reduced dims, keepdim) from either attribute spelling (dim/keep_dim or axis/keepdim)."""
    rank = len(spec.shape)
    axis = attrs.get("dim", attrs.get("axis", []))
    axis = [axis] if isinstance(axis, int) else list(axis or [])
    if attrs.get("reduce_all", False) or not axis:
        axis = list(range(rank))
    for a in axis:
        if not -max(rank, 1) <= a < max(rank, 1):
            raise ValueError(f"reduction spmd rule: axis {a} is out of range for X of rank {rank}")
    keep = attrs.get("keep_dim", attrs.get("keepdim", False))
    return sorted({a % rank for a in axis} if rank else set()), bool(keep)


def _notation(spec, attrs):
    reduced, keep = _axes_keep(spec, attrs)
    x_axes = ALPHABET[:len(spec.shape)]
    out_axes = "".join(("1" if keep else "") if i in reduced else a for i, a in enumerate(x_axes))
    return x_axes, out_axes, reduced


def _typed(reduce_type):
    def forward(inputs, attrs):
        x = inputs[0]
        x_axes, out_axes, _ = _notation(x, attrs)
        mapping = merge([(x_axes, x.dims_mapping)])
        return [[new_attr(x, x.dims_mapping)],
                [new_attr(x, dims_for(out_axes, mapping), partial_dims(mapping, out_axes), reduce_type)]]

    def backward(inputs, outputs, attrs):
        x, out = inputs[0], outputs[0]
        x_axes, out_axes, _ = _notation(x, attrs)
        if len(out.shape) != len(out_axes):
            raise ValueError(f"reduction spmd rule: Out has rank {len(out.shape)}, expected {len(out_axes)}")
        mapping = merge([(out_axes, out.dims_mapping)])
        return [[new_attr(x, dims_for(x_axes, mapping))], [out.dist_attr._copy()]]
    return forward, backward


for _name, _type in (("reduction", ReduceType.kRedSum), ("reduction_mean", ReduceType.kRedAvg),
                     ("reduction_max", ReduceType.kRedMax), ("reduction_min", ReduceType.kRedMin),
                     ("reduction_prod", ReduceType.kRedProd), ("reduction_all", ReduceType.kRedAll),
                     ("reduction_any", ReduceType.kRedAny)):
    _forward, _backward = _typed(_type)
    spmd_rule(_name, backward=_backward)(_forward)


def _nonlinear(n_outputs):
    """Rule of a reduction that needs the whole reduced dims on one rank; ``n_outputs`` outputs laid out alike
    (the value and, for median/kthvalue/mode, its index)."""
    def forward(inputs, attrs):
        x = inputs[0]
        x_axes, out_axes, reduced = _notation(x, attrs)
        dims = [-1 if i in reduced else d for i, d in enumerate(x.dims_mapping)]
        mapping = merge([(x_axes, dims)])
        return [[new_attr(x, dims)] + replicate_slots(inputs[1:]),
                [new_attr(x, dims_for(out_axes, mapping)) for _ in range(n_outputs)]]

    def backward(inputs, outputs, attrs):
        x, out = inputs[0], outputs[0]
        x_axes, out_axes, _ = _notation(x, attrs)
        mapping = merge([(out_axes, out.dims_mapping)])
        x_dims = dims_for(x_axes, mapping)
        return forward([with_dims(x, x_dims)] + list(inputs[1:]), attrs)
    return forward, backward


spmd_rule("reduction_nonlinear", backward=_nonlinear(1)[1])(_nonlinear(1)[0])
spmd_rule("reduction_nonlinear_indexed", backward=_nonlinear(2)[1])(_nonlinear(2)[0])
