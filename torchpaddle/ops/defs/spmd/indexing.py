"""SPMD rules of gather / index_select / scatter (Paddle's GatherInferSpmd, IndexSelectInferSpmd, ScatterInferSpmd),
and of ops that need one axis whole: cumsum, argmax, triu/tril, one_hot.

gather: the gathered axis of X is replicated, Out takes Index's layout there (X's other dims first when they
claim the same mesh dim; Index keeps its own layout). scatter: the scattered axis is replicated; Updates' first dim follows Index, and a
sharded Index leaves Out partial (sum) over that mesh dim. Reverse inference (backward) for all but argmax and
one_hot, which have no gradient.
"""
from ...registry import spmd_rule
from ._common import ALPHABET, dims_for, merge, new_attr, norm_axis, partial_dims, replicate_slots

_ALPHABET = "abcdefghijlmnopqrstuvwxyz"   # k names the index


def _gather(x, index, axis, keep_index):
    axis = norm_axis(axis, len(x.shape), "gather spmd rule")
    if len(index.shape) > 1:
        raise ValueError(f"gather spmd rule: Index must be 0-D or 1-D, got shape {index.shape}")
    x_axes = _ALPHABET[:len(x.shape)]
    x_axes = x_axes[:axis] + "1" + x_axes[axis + 1:]
    index_axes = "k" * len(index.shape)
    out_axes = x_axes[:axis] + index_axes + x_axes[axis + 1:]
    x_dims = [-1 if i == axis else d for i, d in enumerate(x.dims_mapping)]
    mapping = merge([(x_axes, x_dims), (index_axes, index.dims_mapping)])
    # NOTE: Paddle's gather leaves Index as it is even when X's other dims took its mesh dim; index_select does not
    index_dims = index.dims_mapping if keep_index else dims_for(index_axes, mapping)
    return [new_attr(x, dims_for(x_axes, mapping)), new_attr(index, index_dims)], \
        new_attr(x, dims_for(out_axes, mapping))


def _gather_forward(inputs, attrs):
    ins, out = _gather(inputs[0], inputs[1], attrs.get("axis", 0), True)
    return [ins + replicate_slots(inputs[2:]), [out]]


def _index_select_forward(inputs, attrs):
    ins, out = _gather(inputs[0], inputs[1], attrs.get("dim", 0), False)
    return [ins, [out]]


def _gather_reverse(x, index, out, axis):
    axis = norm_axis(axis, len(x.shape), "gather spmd rule")
    x_axes = _ALPHABET[:len(x.shape)]
    x_axes = x_axes[:axis] + "1" + x_axes[axis + 1:]
    out_axes = x_axes[:axis] + "k" * len(index.shape) + x_axes[axis + 1:]
    mapping = merge([(out_axes, out.dims_mapping)])
    return [new_attr(x, dims_for(x_axes, mapping)), new_attr(index, dims_for("k" * len(index.shape), mapping))], \
        new_attr(out, dims_for(out_axes, mapping))


def _gather_backward(inputs, outputs, attrs):
    ins, out = _gather_reverse(inputs[0], inputs[1], outputs[0], attrs.get("axis", 0))
    return [ins + replicate_slots(inputs[2:]), [out]]


def _index_select_backward(inputs, outputs, attrs):
    # NOTE: Paddle registers index_select's gradient rule as its infer_backward; this is the reverse inference
    ins, out = _gather_reverse(inputs[0], inputs[1], outputs[0], attrs.get("dim", 0))
    return [ins, [out]]


spmd_rule("gather", backward=_gather_backward)(_gather_forward)
spmd_rule("index_select", backward=_index_select_backward)(_index_select_forward)


def _scatter_forward(inputs, attrs):
    x, index, updates = inputs[0], inputs[1], inputs[2]
    if len(index.shape) != 1 or len(updates.shape) != len(x.shape):
        raise ValueError(f"scatter spmd rule: Index must be 1-D and Updates of X's rank, got {index.shape} and "
                         f"{updates.shape} for X {x.shape}")
    rest = _ALPHABET[1:len(x.shape)]
    # NOTE: Paddle reads the layout from Index and Updates only; X follows them
    mapping = merge([("k", index.dims_mapping), ("k" + rest, updates.dims_mapping)])
    out = new_attr(x, dims_for("1" + rest, mapping), partial_dims(mapping, "1" + rest))
    return [[new_attr(x, dims_for("1" + rest, mapping)), new_attr(index, dims_for("k", mapping)),
             new_attr(updates, dims_for("k" + rest, mapping))], [out]]


def _scatter_backward(inputs, outputs, attrs):
    x, index, updates, out = inputs[0], inputs[1], inputs[2], outputs[0]
    rest = _ALPHABET[1:len(x.shape)]
    mapping = merge([("1" + rest, out.dims_mapping)])
    dims = dims_for("1" + rest, mapping)
    return [[new_attr(x, dims), new_attr(index, dims_for("k", mapping)), new_attr(updates, dims_for("k" + rest, mapping))],
            [new_attr(out, dims)]]


spmd_rule("scatter", backward=_scatter_backward)(_scatter_forward)


def _whole_axes(x, axes):
    return [-1 if i in axes else d for i, d in enumerate(x.dims_mapping)]


def _cumsum_forward(inputs, attrs):
    x = inputs[0]
    if attrs.get("flatten", False):
        dims = [-1] * len(x.shape)
        return [[new_attr(x, dims)], [new_attr(x, [-1])] * 1]
    axis = attrs.get("axis", attrs.get("dim", -1))
    dims = _whole_axes(x, {norm_axis(axis, len(x.shape), "cumsum spmd rule")}) if x.shape else []
    return [[new_attr(x, dims)], [new_attr(x, dims), new_attr(x, dims)]]


def _cumsum_backward(inputs, outputs, attrs):
    x, out = inputs[0], outputs[0]
    if attrs.get("flatten", False):
        return [[new_attr(x, [-1] * len(x.shape))], [new_attr(out, [-1] * len(out.shape))]]
    axis = attrs.get("axis", attrs.get("dim", -1))
    dims = _whole_axes(out, {norm_axis(axis, len(out.shape), "cumsum spmd rule")}) if out.shape else []
    return [[new_attr(x, dims)], [new_attr(out, dims)]]


spmd_rule("cumsum", backward=_cumsum_backward)(_cumsum_forward)


def _argmax_forward(inputs, attrs):
    x = inputs[0]
    if attrs.get("flatten", False):
        out_rank = len(x.shape) if attrs.get("keepdims", False) else 0
        return [[new_attr(x, [-1] * len(x.shape))], [new_attr(x, [-1] * out_rank)]]
    axis = norm_axis(attrs["axis"], len(x.shape), "arg_max spmd rule")
    dims = _whole_axes(x, {axis})
    out = dims if attrs.get("keepdims", False) else dims[:axis] + dims[axis + 1:]
    return [[new_attr(x, dims)], [new_attr(x, out)]]


spmd_rule("argmax")(_argmax_forward)


def _triu_forward(inputs, attrs):
    x = inputs[0]
    dims = _whole_axes(x, {len(x.shape) - 2, len(x.shape) - 1})
    return [[new_attr(x, dims)], [new_attr(x, dims)]]


def _triu_backward(inputs, outputs, attrs):
    x, out = inputs[0], outputs[0]
    dims = _whole_axes(out, {len(out.shape) - 2, len(out.shape) - 1})
    return [[new_attr(x, dims)], [new_attr(out, dims)]]


spmd_rule("triu", backward=_triu_backward)(_triu_forward)


def _one_hot_forward(inputs, attrs):
    x = inputs[0]
    axes = ALPHABET[:len(x.shape)]
    mapping = merge([(axes, x.dims_mapping)])
    dims = dims_for(axes, mapping)
    return [[new_attr(x, dims)] + replicate_slots(inputs[1:]), [new_attr(x, dims + [-1])]]


spmd_rule("one_hot")(_one_hot_forward)
