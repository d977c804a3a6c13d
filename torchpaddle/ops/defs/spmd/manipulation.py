"""SPMD rules of split and slice (Paddle's SplitInferSpmd, SliceInferSpmd) and tile.

split and slice replicate the dims they cut; tile replicates the dims it repeats (repeat_times longer than X's
rank adds replicated leading dims). concat and stack: concat.py.
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


def _slice_backward(inputs, outputs, attrs):
    x, out = inputs[0], outputs[0]
    drop = {norm_axis(a, len(x.shape), "slice spmd rule") for a in attrs.get("decrease_axis") or []}
    it = iter(out.dims_mapping)
    dims = [-1 if i in drop else next(it) for i in range(len(x.shape))]
    dims = _cut(new_attr(x, dims), _slice_axes(x, attrs))
    return [[new_attr(x, dims)] + replicate_slots(inputs[1:]), [new_attr(out, _slice_out(x, attrs, dims))]]


spmd_rule("slice", backward=_slice_backward)(_slice_forward)


def _tile_forward(inputs, attrs):
    x = inputs[0]
    repeat = list(attrs.get("repeat_times") or [])
    rank = max(len(x.shape), len(repeat))
    repeat = [1] * (rank - len(repeat)) + repeat
    dims = [-1] * (rank - len(x.shape)) + list(x.dims_mapping)
    dims = [-1 if r != 1 else d for r, d in zip(repeat, dims)]
    x_dims = dims[rank - len(x.shape):]
    return [[new_attr(x, x_dims)] + replicate_slots(inputs[1:]), [new_attr(x, dims)]]


def _tile_backward(inputs, outputs, attrs):
    x, out = inputs[0], outputs[0]
    repeat = list(attrs.get("repeat_times") or [])
    repeat = [1] * (len(x.shape) - len(repeat)) + repeat
    if len(repeat) != len(out.shape):
        raise ValueError(f"tile spmd rule: Out has rank {len(out.shape)}, repeat_times {attrs.get('repeat_times')}")
    lead = len(repeat) - len(x.shape)
    # NOTE: as Paddle, the new leading dims of Out keep their sharding; only the repeated ones are replicated
    dims = [-1 if i >= lead and r != 1 else d for i, (r, d) in enumerate(zip(repeat, out.dims_mapping))]
    return [[new_attr(x, dims[lead:])] + replicate_slots(inputs[1:]), [new_attr(out, dims)]]


spmd_rule("tile", backward=_tile_backward)(_tile_forward)
