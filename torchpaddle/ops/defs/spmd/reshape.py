"""SPMD rules of ops that regroup dims: reshape, flatten, squeeze, unsqueeze (Paddle's DimTrans rules, dim_trans.cc
and reshape.cc), and transpose.

Each output dim is described by how it comes from input dims: one input dim, a flattening of several, a piece of
a split, or a new size-1 dim. A sharded input dim keeps its mesh dim only when it is the leftmost dim of a
flattening (the others must be replicated) and, when split, the first piece's size divides by the mesh size.
"""
from ...registry import spmd_rule
from ._common import new_attr, norm_axis

_ONE = ("one",)


def _flat(dims):
    if not dims:
        return _ONE
    return dims[0] if len(dims) == 1 else ("flat", dims)


def _split(dim, shape, index):
    if len(shape) == 1:
        return dim
    if shape[index] == 1:
        return _ONE
    return ("split", dim, list(shape), index)


def _target_shape(src, tgt, what):
    total = 1
    for s in src:
        total *= s
    out = [src[i] if s == 0 else s for i, s in enumerate(tgt)]
    if out.count(-1) > 1:
        raise ValueError(f"{what}: at most one -1 in shape {tgt}")
    if -1 in out:
        known = 1
        for s in out:
            if s != -1:
                known *= s
        if known == 0 or total % known:
            raise ValueError(f"{what}: cannot reshape {src} to {tgt}")
        out[out.index(-1)] = total // known
    size = 1
    for s in out:
        size *= s
    if size != total:
        raise ValueError(f"{what}: cannot reshape {src} ({total} elements) to {tgt}")
    return out


def reshape_trans(src, tgt):
    """Paddle's MakeReshapeDimTrans: the DimTrans of each dim of ``tgt`` (fully known) from ``src``."""
    out, i, j = [], 0, 0
    while i < len(src) or j < len(tgt):
        dims, pieces = [], []
        s = 1 if i >= len(src) else src[i]
        if i < len(src):
            dims.append(i)
            i += 1
        t = 1 if j >= len(tgt) else tgt[j]
        if j < len(tgt):
            pieces.append(t)
            j += 1
        if s == 1 and t != 1:
            j -= 1
            pieces = []
        elif s != 1 and t == 1:
            i -= 1
            dims = []
        else:
            while s != t:
                if s < t:
                    dims.append(i)
                    s *= src[i]
                    i += 1
                else:
                    pieces.append(tgt[j])
                    t *= tgt[j]
                    j += 1
        if pieces:
            flat = _flat([("in", d) for d in dims if src[d] > 1])
            out.extend(_split(flat, pieces, k) for k in range(len(pieces)))
    return out


def _used(trans, seen):
    if trans[0] == "in":
        seen.add(trans[1])
    elif trans[0] == "flat":
        for t in trans[1]:
            _used(t, seen)
    elif trans[0] == "split":
        _used(trans[1], seen)


def _source(trans, mesh, sharded, shardable):
    """The input dim whose mapping output ``trans`` takes, or None (Paddle's GetDimTrans)."""
    if trans[0] == "in":
        return trans if trans[1] in sharded else None
    if trans[0] == "flat":
        for t in trans[1][1:]:
            if t[0] == "in":
                shardable[t[1]] = [False] * len(mesh)
            _source(t, mesh, sharded, shardable)
        first = trans[1][0]
        return first if first[0] == "in" and first[1] in sharded else None
    if trans[0] == "split":
        dim = _source(trans[1], mesh, sharded, shardable)
        if trans[3] != 0:
            return None
        if dim is not None:
            shardable[dim[1]] = [trans[2][0] % m == 0 for m in mesh]
        return dim
    return None


def infer_from_trans(spec, trans):
    """(input dims mapping, output dims mapping) of ``spec`` through the DimTrans list (InferFromDimTrans)."""
    dims, mesh = spec.dims_mapping, spec.process_mesh.shape
    sharded = {i for i, d in enumerate(dims) if d > -1}
    seen = set()
    for t in trans:
        _used(t, seen)
    shardable = [[i in seen] * len(mesh) for i in range(len(dims))]
    target = [-1] * len(dims)
    for k, t in enumerate(trans):
        dim = _source(t, mesh, sharded, shardable)
        if dim is not None:
            target[dim[1]] = k
    out, new = [-1] * len(trans), list(dims)
    for i, d in enumerate(dims):
        if d > -1 and shardable[i][d] and target[i] > -1:
            out[target[i]] = d
        else:
            new[i] = -1
    return new, out


def _reshape_rule(target_of):
    """Forward and backward rules of a reshape whose output shape is ``target_of(x shape, attrs)``."""
    def forward(inputs, attrs):
        x = inputs[0]
        new, out = infer_from_trans(x, reshape_trans(x.shape, target_of(x.shape, attrs)))
        return [[new_attr(x, new)] + [None if s is None else _replicated(s) for s in inputs[1:]],
                [new_attr(x, out)]]

    def backward(inputs, outputs, attrs):
        x, out = inputs[0], outputs[0]
        new_out, x_dims = infer_from_trans(out, reshape_trans(out.shape, x.shape))
        return [[new_attr(x, x_dims)] + [None if s is None else _replicated(s) for s in inputs[1:]],
                [new_attr(out, new_out)]]
    return forward, backward


def _replicated(slot):
    if isinstance(slot, (list, tuple)):
        return [new_attr(s, [-1] * len(s.shape)) for s in slot]
    return new_attr(slot, [-1] * len(slot.shape))


def _reshape_target(shape, attrs):
    return _target_shape(shape, list(attrs.get("shape") or []), "reshape spmd rule")


def _flatten_target(shape, attrs):
    rank = len(shape)
    if rank == 0:
        return [1]
    start = norm_axis(attrs["start_axis"], rank, "flatten spmd rule")
    stop = norm_axis(attrs["stop_axis"], rank, "flatten spmd rule")
    size = 1
    for s in shape[start:stop + 1]:
        size *= s
    return list(shape[:start]) + [size] + list(shape[stop + 1:])


def _squeeze_target(shape, attrs):
    axes = [norm_axis(a, len(shape), "squeeze spmd rule") for a in (attrs.get("axes") or [])]
    if not axes:
        return [s for s in shape if s != 1]
    return [s for i, s in enumerate(shape) if not (i in axes and s == 1)]


def _unsqueeze_target(shape, attrs):
    out = list(shape)
    for a in attrs.get("axes") or []:
        out.insert(a + len(out) + 1 if a < 0 else a, 1)
    return out


for _name, _target in (("reshape", _reshape_target), ("flatten", _flatten_target), ("squeeze", _squeeze_target),
                       ("unsqueeze", _unsqueeze_target)):
    _forward, _backward = _reshape_rule(_target)
    spmd_rule(_name, backward=_backward)(_forward)


def _perm(x, attrs):
    rank = len(x.shape)
    perm = [norm_axis(p, rank, "transpose spmd rule") for p in attrs["axis"]]
    if sorted(perm) != list(range(rank)):
        raise ValueError(f"transpose spmd rule: axis {attrs['axis']} is not a permutation of {rank} dims")
    return perm


def _transpose_forward(inputs, attrs):
    x = inputs[0]
    perm = _perm(x, attrs)
    return [[new_attr(x, x.dims_mapping)], [new_attr(x, [x.dims_mapping[p] for p in perm])]]


def _transpose_backward(inputs, outputs, attrs):
    x, out = inputs[0], outputs[0]
    perm = _perm(x, attrs)
    dims = [-1] * len(perm)
    for k, p in enumerate(perm):
        dims[p] = out.dims_mapping[k]
    return [[new_attr(x, dims)], [new_attr(out, out.dims_mapping)]]


spmd_rule("transpose", backward=_transpose_backward)(_transpose_forward)
