"""SPMD rules of split and slice (Paddle's SplitInferSpmd, SliceInferSpmd) and tile.

split and slice replicate the dims they cut; tile replicates the dims it repeats. concat and stack have no rule
here (Paddle's AlignDimsSharding moves shardings between dims in ways not reproduced yet): they are completed by
replicating.
"""
from ...registry import spmd_rule
from ._common import ALPHABET, dims_for, merge, new_attr, norm_axis, replicate_slots


def _cut(x, cut_axes):
    return [-1 if i in cut_axes else d for i, d in enumerate(x.dims_mapping)]


def _split_count(x, attrs, axis):
    sections = list(attrs.get("sections") or [])
    return len(sections) if sections else int(attrs.get("num", 0) or 0)


def _split_forward(inputs, attrs):
    x = inputs[0]
    axis = norm_axis(attrs.get("axis", 0), len(x.shape), "split spmd rule")
    dims = _cut(x, {axis})
    n = _split_count(x, attrs, axis)
    if n <= 0:
        raise ValueError(f"split spmd rule: give sections or num > 0, got {attrs.get('sections')} and "
                         f"{attrs.get('num')}")
    return [[new_attr(x, dims)] + replicate_slots(inputs[1:]), [[new_attr(x, dims) for _ in range(n)]]]


def _split_backward(inputs, outputs, attrs):
    x, outs = inputs[0], outputs[0]
    axis = norm_axis(attrs.get("axis", 0), len(x.shape), "split spmd rule")
    axes = ALPHABET[:len(x.shape)]
    mapping = merge([(axes, o.dims_mapping) for o in outs])
    dims = [-1 if i == axis else d for i, d in enumerate(dims_for(axes, mapping))]
    return [[new_attr(x, dims)] + replicate_slots(inputs[1:]), [[new_attr(o, dims) for o in outs]]]


spmd_rule("split", backward=_split_backward)(_split_forward)


def _slice_axes(x, attrs):
    return {norm_axis(a, len(x.shape), "slice spmd rule") for a in attrs.get("axes") or []}


def _slice_out(x, attrs, dims):
    drop = {norm_axis(a, len(x.shape), "slice spmd rule") for a in attrs.get("decrease_axis") or []}
    return [d for i, d in enumerate(dims) if i not in drop]


def _slice_forward(inputs, attrs):
    x = inputs[0]
    dims = _cut(x, _slice_axes(x, attrs))
    return [[new_attr(x, dims)] + replicate_slots(inputs[1:]), [new_attr(x, _slice_out(x, attrs, dims))]]


spmd_rule("slice")(_slice_forward)


def _tile_forward(inputs, attrs):
    x = inputs[0]
    repeat = list(attrs.get("repeat_times") or [])
    rank = max(len(x.shape), len(repeat))
    repeat = [1] * (rank - len(repeat)) + repeat
    dims = [-1] * (rank - len(x.shape)) + list(x.dims_mapping)
    dims = [-1 if r != 1 else d for r, d in zip(repeat, dims)]
    x_dims = dims[rank - len(x.shape):]
    return [[new_attr(x, x_dims)] + replicate_slots(inputs[1:]), [new_attr(x, dims)]]


spmd_rule("tile")(_tile_forward)
