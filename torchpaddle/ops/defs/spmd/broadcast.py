"""SPMD rules of ops that broadcast to a shape: where (Paddle's WhereInferSpmd), expand_as (ExpandAsInferSpmd), and
expand_v2 (Paddle 3.3.1 registers no static rule for it: ours follows expand_as).

where: Condition's rank names the dims; X and Y are right-aligned onto them. Paddle merges Y's dims with X's
dims mapping, not Y's own (followed, so completion agrees with Paddle's planner).
expand_as / expand: an input dim keeps the sharding of the output dim it lands on only when it is not expanded
(same size); expanded dims and new leading dims are replicated in the input.
"""
from ...registry import spmd_rule
from ._common import ALPHABET, dims_for, merge, new_attr, replicate_slots


def _where_axes(cond, x, y):
    rank = len(cond.shape)
    if len(x.shape) > rank or len(y.shape) > rank:
        raise ValueError(f"where spmd rule: Condition's rank {rank} must be at least X's {len(x.shape)} and Y's "
                         f"{len(y.shape)}")
    axes = ALPHABET[:rank]
    return axes, axes[rank - len(x.shape):], axes[rank - len(y.shape):]


def _where_forward(inputs, attrs):
    cond, x, y = inputs
    axes, x_axes, y_axes = _where_axes(cond, x, y)
    # NOTE: Y's letters paired with X's dims mapping, as Paddle does
    mapping = merge([(axes, cond.dims_mapping), (x_axes, x.dims_mapping), (y_axes, x.dims_mapping)])
    dims = dims_for(axes, mapping)
    return [[new_attr(cond, dims), new_attr(x, dims_for(x_axes, mapping)), new_attr(y, dims_for(y_axes, mapping))],
            [new_attr(cond, dims)]]


def _where_backward(inputs, outputs, attrs):
    cond, x, y = inputs
    axes, x_axes, y_axes = _where_axes(cond, x, y)
    mapping = merge([(axes, outputs[0].dims_mapping)])
    dims = dims_for(axes, mapping)
    return [[new_attr(cond, dims), new_attr(x, dims_for(x_axes, mapping)), new_attr(y, dims_for(y_axes, mapping))],
            [new_attr(cond, dims)]]


spmd_rule("where", backward=_where_backward)(_where_forward)


def _align_to(x, target_shape, target_dims):
    """X's dims mapping under a broadcast to ``target_shape`` laid out as ``target_dims``."""
    diff = len(target_shape) - len(x.shape)
    if diff < 0:
        raise ValueError(f"expand spmd rule: cannot expand a rank-{len(x.shape)} tensor to {list(target_shape)}")
    return [target_dims[i + diff] if size == target_shape[i + diff] else -1 for i, size in enumerate(x.shape)]


def _expand_as_forward(inputs, attrs):
    x, y = inputs[0], inputs[1]
    if y is None:
        # NOTE: without Y (target_shape only) the output follows X where X is not expanded
        return _expand_to(x, list(attrs.get("target_shape") or []), inputs[1:])
    dims = list(y.dims_mapping)
    return [[new_attr(x, _align_to(x, y.shape, dims)), new_attr(y, dims)], [new_attr(y, dims)]]


def _expand_as_backward(inputs, outputs, attrs):
    x, y, out = inputs[0], inputs[1], outputs[0]
    dims = list(out.dims_mapping)
    y_attr = None if y is None else new_attr(y, dims)
    return [[new_attr(x, _align_to(x, out.shape, dims)), y_attr], [new_attr(out, dims)]]


spmd_rule("expand_as", backward=_expand_as_backward)(_expand_as_forward)


def _target(x, shape):
    if not shape:
        raise ValueError("expand spmd rule: the target shape is given by a tensor, unknown at completion")
    diff = len(shape) - len(x.shape)
    if diff < 0:
        raise ValueError(f"expand spmd rule: cannot expand a rank-{len(x.shape)} tensor to {shape}")
    return [x.shape[i - diff] if s == -1 and i >= diff else s for i, s in enumerate(shape)]


def _expand_to(x, shape, rest):
    target = _target(x, shape)
    diff = len(target) - len(x.shape)
    x_dims = [d if size == target[i + diff] else -1 for i, (size, d) in enumerate(zip(x.shape, x.dims_mapping))]
    return [[new_attr(x, x_dims)] + replicate_slots(rest), [new_attr(x, [-1] * diff + x_dims)]]


def _expand_forward(inputs, attrs):
    return _expand_to(inputs[0], list(attrs.get("shape") or []), inputs[1:])


def _expand_backward(inputs, outputs, attrs):
    x, out = inputs[0], outputs[0]
    x_dims = _align_to(x, out.shape, out.dims_mapping)
    diff = len(out.shape) - len(x.shape)
    return [[new_attr(x, x_dims)] + replicate_slots(inputs[1:]), [new_attr(out, [-1] * diff + x_dims)]]


spmd_rule("expand", backward=_expand_backward)(_expand_forward)
