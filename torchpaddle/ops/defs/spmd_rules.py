"""SPMD rules (see registry.SpmdRule): elementwise ops (one input, or several broadcast together) and matmul.

They give Paddle 3.3.1's answers (``core.get_phi_spmd_rule(name).infer_forward / infer_backward``), checked case
by case in tests/static/test_dist_attr.py, including its choices that are not obvious:
- inputs' partial status is dropped (the caller reduces them first); only matmul's contracted dim makes an
  output partial;
- a one-input elementwise op keeps a tensor dim sharded only when the mesh dim's size divides it;
- several inputs: a tensor dim of size 1 (a broadcast) never shards, but a mesh dim it names is taken, so a
  later input's dim sharded on that mesh dim is replicated; the same dim sharded on two mesh dims raises
  NotImplementedError, as Paddle does; a mesh dim wanted by two dims goes to the first;
- matmul: batch dims first, then m and n (the larger first), the contracted k last; k and batch dims shard
  only when the mesh size divides them, m and n always.
Where Paddle would co-shard a dim over several mesh dims (``multi_dims_mapping``) these rules, like the IR,
keep one mesh dim, and they may then differ from Paddle; so may matmul where several batch and matrix dims
contend for the mesh dims of a 3-D mesh (3 of 2600 random cases).
"""
from ...framework.dist_attr import TensorDistAttr
from ..registry import spmd_rule

# letters for batch dims; m, k and n name the matrix dims
_BATCH_AXES = "abcdefghijlopqrstuvwxyz"


def _new_attr(spec, dims_mapping, partial=()):
    """A TensorDistAttr on ``spec``'s mesh with ``dims_mapping`` and no other partial status than ``partial``."""
    attr = TensorDistAttr()
    attr.process_mesh = spec.dist_attr.process_mesh
    attr.batch_dim = spec.dist_attr.batch_dim
    attr.dims_mapping = dims_mapping
    if partial:
        attr._set_partial_dims(sorted(partial))
    return attr


def _mesh_shape(spec):
    mesh = spec.process_mesh
    if mesh is None:
        raise ValueError(f"spmd rule: input {spec} has no process mesh")
    return mesh.shape


def _flatten(slots):
    """The DistTensorSpecs of a slot list (lists expanded, absent optionals skipped)."""
    out = []
    for value in slots:
        if isinstance(value, (list, tuple)):
            out.extend(value)
        elif value is not None:
            out.append(value)
    return out


def _regroup(slots, attrs):
    """Put ``attrs`` (one per present tensor, in order) back into the shape of ``slots``."""
    attrs, out = iter(attrs), []
    for value in slots:
        if isinstance(value, (list, tuple)):
            out.append([next(attrs) for _ in value])
        else:
            out.append(None if value is None else next(attrs))
    return out


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
