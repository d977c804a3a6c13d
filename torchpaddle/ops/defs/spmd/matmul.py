"""SPMD rule of matmul (``mk,kn->mn`` with broadcast batch dims; the sharded contracted k makes Out partial).

Batch dims first, then m and n (the larger first), the contracted k last; k and batch dims shard only when the
mesh size divides them, m and n always. Where Paddle would co-shard a dim over several mesh dims
(``multi_dims_mapping``) this rule, like the IR, keeps one mesh dim, and may then differ from Paddle; so may it
where several batch and matrix dims contend for the mesh dims of a 3-D mesh (3 of 2600 random cases).
"""
from ...registry import spmd_rule
from ._common import mesh_shape as _mesh_shape, new_attr as _new_attr

# letters for batch dims; m, k and n name the matrix dims
_BATCH_AXES = "abcdefghijlopqrstuvwxyz"


# -- matmul ---------------------------------------------------------------------------------------------------
def _matmul_axes(x_rank, y_rank):
    """Einsum letters of x, y and the output (``mk,kn->mn`` with broadcast batch dims), as Paddle writes them."""
    if x_rank < 1 or y_rank < 1:
        raise ValueError(f"matmul spmd rule: X and Y must be at least 1-D, got ranks {x_rank} and {y_rank}")
    if x_rank == 1 and y_rank == 1:
        return "k", "k", ""
    if x_rank == 1:
        batch = _BATCH_AXES[:y_rank - 2]
        return "k", batch + "kn", batch + "n"
    if y_rank == 1:
        batch = _BATCH_AXES[:x_rank - 2]
        return batch + "mk", "k", batch + "m"
    top = max(x_rank, y_rank) - 2
    x_batch, y_batch = _BATCH_AXES[top - (x_rank - 2):top], _BATCH_AXES[top - (y_rank - 2):top]
    return x_batch + "mk", y_batch + "kn", (x_batch if x_rank > y_rank else y_batch) + "mn"


def _swap_last(values, swap):
    values = list(values)
    if swap:
        if len(values) < 2:
            raise ValueError(f"matmul spmd rule: a transposed operand must be at least 2-D, got rank {len(values)}")
        values[-2], values[-1] = values[-1], values[-2]
    return values


def _matmul_merge(axes_shapes_dims, out_axes, mesh_shape):
    """{axis letter: mesh dim}: each axis takes the first of the mesh dims proposed for it that is still free,
    batch axes first, then m/n by size, k last; k and batch axes only where the mesh size divides them."""
    sizes, proposals, first = {}, {}, {}
    for axes, shape, dims in axes_shapes_dims:
        for axis, size, d in zip(axes, shape, dims):
            sizes[axis] = max(sizes.get(axis, 1), size)
            proposed = proposals.setdefault(axis, [])
            if d >= 0 and d not in proposed:
                proposed.append(d)
                first.setdefault(axis, len(first))
    batch = [a for a in out_axes if a in first and a not in "mn"]
    matrix = sorted((a for a in out_axes if a in first and a in "mn"), key=lambda a: (-sizes[a], first[a]))
    order = batch + matrix + [a for a in proposals if a not in out_axes]
    taken, mapping = set(), {}
    for axis in order:
        free = [d for d in proposals[axis] if d not in taken] if axis in first else []
        if axis not in "mn" and free:
            product = 1
            for d in free:
                product *= mesh_shape[d]
            if sizes[axis] % product:   # cannot split over all of them: the largest mesh dim alone, if it divides
                best = max(free, key=lambda d: mesh_shape[d])
                free = [best] if sizes[axis] % mesh_shape[best] == 0 else []
        mapping[axis] = free[0] if free else -1
        taken.update(free)
    return mapping


def _matmul_forward(inputs, attrs):
    x, y = inputs[0], inputs[1]
    trans_x, trans_y = bool(attrs.get("trans_x", False)), bool(attrs.get("trans_y", False))
    x_axes, y_axes, out_axes = _matmul_axes(len(x.shape), len(y.shape))
    x_shape, x_dims = _swap_last(x.shape, trans_x), _swap_last(x.dims_mapping, trans_x)
    y_shape, y_dims = _swap_last(y.shape, trans_y), _swap_last(y.dims_mapping, trans_y)
    mapping = _matmul_merge([(x_axes, x_shape, x_dims), (y_axes, y_shape, y_dims)], out_axes, _mesh_shape(x))
    out_dims = [mapping.get(a, -1) for a in out_axes]
    partial = [d for a, d in mapping.items() if a not in out_axes and d >= 0]

    def operand(spec, axes, shape, trans):
        return _new_attr(spec, _swap_last([-1 if size == 1 else mapping.get(a, -1) for a, size in zip(axes, shape)],
                                          trans))
    return [[operand(x, x_axes, x_shape, trans_x), operand(y, y_axes, y_shape, trans_y)],
            [_new_attr(x, out_dims, partial)]]


def _matmul_backward(inputs, outputs, attrs):
    x, y, out = inputs[0], inputs[1], outputs[0]
    trans_x, trans_y = bool(attrs.get("trans_x", False)), bool(attrs.get("trans_y", False))
    x_axes, y_axes, out_axes = _matmul_axes(len(x.shape), len(y.shape))
    if len(out.shape) != len(out_axes):
        raise ValueError(f"matmul spmd rule: Out has rank {len(out.shape)}, X{x.shape} @ Y{y.shape} gives rank "
                         f"{len(out_axes)}")
    mapping = dict(zip(out_axes, out.dims_mapping))

    # NOTE: Paddle tests the size-1 dims of the operands before transposing them here (after, in forward)
    def operand(spec, axes, trans):
        return _new_attr(spec, _swap_last([-1 if size == 1 else mapping.get(a, -1)
                                           for a, size in zip(axes, spec.shape)], trans))
    return [[operand(x, x_axes, trans_x), operand(y, y_axes, trans_y)], [out.dist_attr._copy()]]


spmd_rule("matmul", backward=_matmul_backward)(_matmul_forward)
