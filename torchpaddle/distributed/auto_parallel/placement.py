"""Paddle's placements (``Shard``, ``Replicate``, ``Partial``, ``ReduceType``) and ``DistAttr``, with the
conversion to and from torch DTensor placements.

torch's private placements (``_StridedShard``, ``_MaskPartial``, ``_NormPartial``) never reach the user: the
dispatch layer (dispatch.py) turns the last two into Replicate, and ``_StridedShard`` is Paddle's
``Shard(dim, split_factor=f)``.
"""
from torch.distributed.tensor import placement_types as _tp

from ...framework.dist_attr import ReduceType, TensorDistAttr, _REDUCE_NAMES
from ...framework.process_mesh import ProcessMesh

__all__ = ["ReduceType", "Placement", "Shard", "Replicate", "Partial", "DistAttr", "to_torch_placements",
           "from_torch_placements", "placements_to_dims_mapping"]

_TORCH_REDUCE = {ReduceType.kRedSum: "sum", ReduceType.kRedMax: "max", ReduceType.kRedMin: "min",
                 ReduceType.kRedProd: "product", ReduceType.kRedAvg: "avg", ReduceType.kRedAny: "bor",
                 ReduceType.kRedAll: "band"}
_FROM_TORCH_REDUCE = {v: k for k, v in _TORCH_REDUCE.items()}
_FROM_TORCH_REDUCE["mean"] = ReduceType.kRedAvg


def _int(value, what):
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{what} must be an int, got {type(value).__name__}")
    return int(value)


class Placement:
    """The base class of the placements; it describes nothing (``str`` is empty, every ``is_*`` is False)."""
    __slots__ = ()

    def is_shard(self, dim=None):
        return False

    def is_replicated(self):
        return False

    def is_partial(self):
        return False

    def __repr__(self):
        return ""

    __str__ = __repr__

    def _key(self):
        return (type(self),)

    def __eq__(self, other):
        return isinstance(other, Placement) and self._key() == other._key()

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):
        return hash(self._key())

    def __reduce__(self):
        return (type(self), ())


class Shard(Placement):
    """``Shard(dim, *, shard_order=None, split_factor=1)``: split tensor dim ``dim`` over a mesh dim, as
    ``torch.chunk``. ``shard_order`` orders co-sharding (several mesh dims on one tensor dim); ``split_factor``
    > 1 is a strided shard (a reshape of a sharded dim)."""
    __slots__ = ("_dim", "_shard_order", "_split_factor")

    def __init__(self, dim, *, shard_order=None, split_factor=1):
        if shard_order is not None and split_factor != 1:
            raise TypeError("Shard: give shard_order or split_factor, not both")
        self._dim = _int(dim, "Shard: dim")
        self._shard_order = 0 if shard_order is None else _int(shard_order, "Shard: shard_order")
        self._split_factor = _int(split_factor, "Shard: split_factor")
        if self._split_factor < 1:
            raise ValueError(f"Shard: split_factor must be >= 1, got {split_factor}")

    def get_dim(self):
        return self._dim

    def get_co_shard_order(self):
        return self._shard_order

    def get_split_factor(self):
        return self._split_factor

    def set_split_factor(self, split_factor):
        self._split_factor = _int(split_factor, "Shard.set_split_factor: split_factor")

    def is_shard(self, dim=None):
        return dim is None or dim == self._dim

    def _key(self):
        return (Shard, self._dim, self._shard_order, self._split_factor)

    def __repr__(self):
        if self._shard_order:
            return f"Shard(dim={self._dim}, shard_order={self._shard_order})"
        if self._split_factor != 1:
            return f"Shard(dim={self._dim}, split_factor={self._split_factor})"
        return f"Shard(dim={self._dim})"

    __str__ = __repr__

    def __reduce__(self):
        if self._shard_order:
            return (_shard, (self._dim, self._shard_order, 1))
        return (_shard, (self._dim, None, self._split_factor))


def _shard(dim, shard_order, split_factor):
    return Shard(dim, shard_order=shard_order, split_factor=split_factor)


class Replicate(Placement):
    """Every process of the mesh dim holds the whole tensor."""
    __slots__ = ()

    def is_replicated(self):
        return True

    def __repr__(self):
        return "Replicate()"

    __str__ = __repr__


class Partial(Placement):
    """Every process holds a part of a value still to be reduced with ``reduce_type`` over the mesh dim."""
    __slots__ = ("_reduce_type",)

    def __init__(self, reduce_type=ReduceType.kRedSum):
        if not isinstance(reduce_type, ReduceType):
            raise TypeError(f"Partial: reduce_type must be a paddle.distributed.ReduceType, got {reduce_type!r}")
        self._reduce_type = reduce_type

    def reduce_type(self):
        return self._reduce_type

    def is_partial(self):
        return True

    def _key(self):
        return (Partial, int(self._reduce_type))

    def __repr__(self):
        return f"Partial(reduce_type={_REDUCE_NAMES[self._reduce_type]})"

    __str__ = __repr__

    def __reduce__(self):
        return (Partial, (self._reduce_type,))


class DistAttr(TensorDistAttr):
    """``DistAttr(mesh, sharding_specs)``: a TensorDistAttr from a mesh and, per tensor dim, the name of the
    mesh dim that shards it (None: not sharded)."""

    def __init__(self, mesh, sharding_specs):
        if not isinstance(mesh, ProcessMesh):
            raise ValueError(f"DistAttr: mesh must be a ProcessMesh, got {type(mesh).__name__}")
        if not isinstance(sharding_specs, (list, tuple)):
            raise ValueError(f"DistAttr: sharding_specs must be a list, got {type(sharding_specs).__name__}")
        for spec in sharding_specs:
            if spec is not None and (not isinstance(spec, str) or spec not in mesh.dim_names):
                raise ValueError(f"DistAttr: each sharding spec must be None or one of the mesh's dim names "
                                 f"{mesh.dim_names}, got {spec!r}")
        super().__init__()
        self._sharding_specs = list(sharding_specs)
        self.process_mesh = mesh
        self.dims_mapping = [-1 if s is None else mesh.dim_names.index(s) for s in sharding_specs]

    @property
    def sharding_specs(self):
        return list(self._sharding_specs)


def _check_placements(placements, mesh, ndim, what):
    if not isinstance(placements, (list, tuple)):
        raise TypeError(f"{what}: placements must be a list of Placement, got {type(placements).__name__}")
    if len(placements) > mesh.ndim:
        raise ValueError(f"{what}: {len(placements)} placements are more than the {mesh.ndim} dimensions of the "
                         f"process mesh {mesh.shape}")
    for p in placements:
        if not isinstance(p, Placement) or type(p) is Placement:
            raise TypeError(f"{what}: each placement must be Shard, Replicate or Partial, got {p!r}")
        if isinstance(p, Shard) and not -ndim <= p.get_dim() < ndim:
            raise ValueError(f"{what}: {p} is out of range for a tensor with {ndim} dimensions")


def to_torch_placements(placements, mesh, ndim, what="shard_tensor"):
    """Paddle placements (a list no longer than the mesh's dims; missing ones Replicate) -> torch's tuple."""
    _check_placements(placements, mesh, ndim, what)
    out = []
    for p in list(placements) + [Replicate()] * (mesh.ndim - len(placements)):
        if isinstance(p, Shard):
            dim = p.get_dim() % ndim
            if p.get_split_factor() != 1:
                out.append(_tp._StridedShard(dim, split_factor=p.get_split_factor()))
            else:
                out.append(_tp.Shard(dim))
        elif isinstance(p, Partial):
            out.append(_tp.Partial(_TORCH_REDUCE[p.reduce_type()]))
        else:
            out.append(_tp.Replicate())
    return tuple(out)


def from_torch_placements(placements):
    """torch placements -> Paddle's list. A torch-private partial (mask, norm) should not get here: it is
    resharded away by dispatch.py; it is reported as Partial(kRedSum) only as a last resort."""
    out = []
    for p in placements:
        if isinstance(p, _tp._StridedShard):
            out.append(Shard(p.dim, split_factor=p.split_factor))
        elif isinstance(p, _tp.Shard):
            out.append(Shard(p.dim))
        elif isinstance(p, _tp.Partial):
            out.append(Partial(_FROM_TORCH_REDUCE.get(getattr(p, "reduce_op", "sum"), ReduceType.kRedSum)))
        else:
            out.append(Replicate())
    return out


def placements_to_dims_mapping(placements, ndim):
    """(dims_mapping, {mesh dim: ReduceType}) of a placement list, as a TensorDistAttr holds them."""
    mapping, partial = [-1] * ndim, {}
    for mesh_dim, p in enumerate(placements):
        if isinstance(p, Shard):
            mapping[p.get_dim() % ndim] = mesh_dim
        elif isinstance(p, Partial):
            partial[mesh_dim] = p.reduce_type()
    return mapping, partial


def is_private_placement(p):
    """A torch placement that Paddle has no name for."""
    return isinstance(p, _tp.Partial) and type(p) is not _tp.Partial

