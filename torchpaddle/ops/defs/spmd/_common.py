"""What the SPMD rules share: building dist attrs and Paddle's einsum-style sharding merge (spmd_rules/utils.cc).

A rule names each tensor dim with a letter; dims with the same letter must be sharded alike. ``merge`` gives each
letter one mesh dim, ``dims_for`` reads a tensor's dims mapping back, and the mesh dims of letters that vanish from
an output make it partial (``partial_dims``).
"""
from ....framework.dist_attr import DistTensorSpec, ReduceType, TensorDistAttr

ALPHABET = "abcdefghijklmnopqrstuvwxyz"


def new_attr(spec, dims_mapping, partial=(), reduce_type=ReduceType.kRedSum):
    """A TensorDistAttr on ``spec``'s mesh with ``dims_mapping`` and no other partial status than ``partial``."""
    attr = TensorDistAttr()
    attr.process_mesh = spec.dist_attr.process_mesh
    attr.batch_dim = spec.dist_attr.batch_dim
    attr.dims_mapping = list(dims_mapping)
    if partial:
        attr._set_partial_dims(sorted(partial), reduce_type)
    return attr


def replicated(spec):
    return new_attr(spec, [-1] * len(spec.shape))


def mesh_shape(spec):
    mesh = spec.process_mesh
    if mesh is None:
        raise ValueError(f"spmd rule: input {spec} has no process mesh")
    return mesh.shape


def flatten(slots):
    """The DistTensorSpecs of a slot list (lists expanded, absent optionals skipped)."""
    out = []
    for value in slots:
        if isinstance(value, (list, tuple)):
            out.extend(value)
        elif value is not None:
            out.append(value)
    return out


def regroup(slots, attrs):
    """Put ``attrs`` (one per present tensor, in order) back into the shape of ``slots``."""
    attrs, out = iter(attrs), []
    for value in slots:
        if isinstance(value, (list, tuple)):
            out.append([next(attrs) for _ in value])
        else:
            out.append(None if value is None else next(attrs))
    return out


def norm_axis(axis, rank, what):
    if not -max(rank, 1) <= axis < max(rank, 1):
        raise ValueError(f"{what}: axis {axis} is out of range for a rank-{rank} tensor")
    return axis + rank if axis < 0 else axis


def merge(pairs, merge_conflicts=True):
    """{letter: mesh dim} from (letters, dims mapping) pairs, as Paddle's ShardingMergeForTensors: a letter
    sharded on two different mesh dims raises NotImplementedError; a mesh dim claimed by several letters stays
    with the first (or raises RuntimeError when ``merge_conflicts`` is False)."""
    mapping, claims = {}, {}
    for axes, dims in pairs:
        for axis, d in zip(axes, dims):
            current = mapping.get(axis, -1)
            if current >= 0 and d >= 0 and d != current:
                raise NotImplementedError(f"spmd rule: tensor axis [{axis}] is sharded by two different mesh "
                                          f"dimensions [{d}] and [{current}]")
            merged = current if current >= 0 else d
            mapping[axis] = merged
            if merged >= 0:
                letters = claims.setdefault(merged, [])
                if axis not in letters:
                    letters.append(axis)
    for d, letters in claims.items():
        if len(letters) > 1:
            if not merge_conflicts:
                raise RuntimeError(f"spmd rule: tensor axes {letters} are sharded by the same mesh dimension [{d}]")
            for axis in letters[1:]:
                mapping[axis] = -1
    return mapping


def dims_for(axes, mapping):
    """The dims mapping of a tensor with letters ``axes`` ("1": never sharded; unknown letters replicate)."""
    return [-1 if a == "1" else mapping.get(a, -1) for a in axes]


def partial_dims(mapping, out_axes):
    """Mesh dims of letters sharded but absent from ``out_axes``: the output owes a reduction over them."""
    return sorted(d for a, d in mapping.items() if a not in out_axes and d >= 0)


def with_dims(spec, dims_mapping):
    """``spec`` laid out as ``dims_mapping`` (a reverse inference feeding the forward one)."""
    return DistTensorSpec(spec.shape, new_attr(spec, dims_mapping))


def replicate_slots(slots):
    """Each present tensor of ``slots`` replicated (lists and None kept)."""
    return regroup(slots, [replicated(s) for s in flatten(slots)])
