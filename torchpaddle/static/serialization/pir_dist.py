"""Auto-parallel attributes in Paddle's PIR JSON (dialect 4, ``pd_dist``), parsed into plain tuples and back.

What Paddle 3.3.1 writes for a sharded program::

    mesh:         {"#": "4.a_process_mesh", "D": [shape, process_ids, dim_names]}
    tensor attr:  {"#": "4.a_tensor_dist", "D": [mesh, dims_mapping, [[mesh dim, reduce type], ...]]}
    op attr:      {"#": "4.a_op_dist", "D": [mesh, [operand tensor attrs], [result tensor attrs], chunk_id]}
    value type:   {"#": "4.t_dist_dtensor", "D": [dense type, tensor attr, local dims]}

An op carries its attribute as ``op_dist_attr``. The partial list gives each mesh dim whose reduction is still
owed and the ``ReduceType`` number (0 sum). Anything malformed is a ValueError through ``fail``.
"""
import collections

__all__ = ["DIALECT", "ATTR_TAGS", "Mesh", "TensorDist", "OpDist", "parse_attr", "attr_json", "local_shape"]

DIALECT = "4"
ATTR_TAGS = frozenset(["a_process_mesh", "a_tensor_dist", "a_op_dist"])

Mesh = collections.namedtuple("Mesh", "shape process_ids dim_names")
TensorDist = collections.namedtuple("TensorDist", "mesh dims_mapping partial")   # partial: ((dim, type), ...)
OpDist = collections.namedtuple("OpDist", "mesh operands results chunk_id")


def _ints(value):
    return isinstance(value, list) and all(isinstance(v, int) and not isinstance(v, bool) for v in value)


def _tagged(obj, tag, fail):
    if not isinstance(obj, dict) or obj.get("#") != f"{DIALECT}.{tag}" or "D" not in obj:
        fail(f"expected a {DIALECT}.{tag} with 'D', got {str(obj)[:80]}")
    return obj["D"]


def _mesh(data, fail):
    if not (isinstance(data, list) and len(data) == 3 and _ints(data[0]) and _ints(data[1])
            and isinstance(data[2], list) and all(isinstance(n, str) for n in data[2])):
        fail(f"a process mesh must be [shape, process ids, dim names], got {str(data)[:80]}")
    shape, ids, names = data
    size = 1
    for d in shape:
        size *= d
    if any(d <= 0 for d in shape) or size != len(ids) or len(names) != len(shape):
        fail(f"process mesh shape {shape}, {len(ids)} process ids and dim names {names} do not agree")
    return Mesh(tuple(shape), tuple(ids), tuple(names))


def _tensor(data, fail):
    if not (isinstance(data, list) and len(data) == 3):
        fail(f"a tensor dist attr must be [mesh, dims_mapping, partial], got {str(data)[:80]}")
    mesh = _mesh(_tagged(data[0], "a_process_mesh", fail), fail)
    dims, partial = data[1], data[2]
    if not _ints(dims) or any(not -1 <= d < len(mesh.shape) for d in dims):
        fail(f"dims_mapping {dims} must hold -1 or dims of the {len(mesh.shape)}-D mesh")
    if not (isinstance(partial, list) and all(_ints(p) and len(p) == 2 and 0 <= p[0] < len(mesh.shape)
                                              and 0 <= p[1] <= 6 for p in partial)):
        fail(f"partial status must be [[mesh dim, reduce type 0..6], ...], got {str(partial)[:80]}")
    return TensorDist(mesh, tuple(dims), tuple(tuple(p) for p in partial))


def parse_attr(tag, data, fail):
    """The tuple form of a dist attribute's data (``tag`` in ATTR_TAGS)."""
    if tag == "a_process_mesh":
        return _mesh(data, fail)
    if tag == "a_tensor_dist":
        return _tensor(data, fail)
    if not (isinstance(data, list) and len(data) == 4 and isinstance(data[1], list) and isinstance(data[2], list)
            and isinstance(data[3], int)):
        fail(f"an op dist attr must be [mesh, operands, results, chunk_id], got {str(data)[:80]}")
    mesh = _mesh(_tagged(data[0], "a_process_mesh", fail), fail)
    operands, results = ([_tensor(_tagged(t, "a_tensor_dist", fail), fail) for t in part] for part in data[1:3])
    return OpDist(mesh, tuple(operands), tuple(results), data[3])


def attr_json(value):
    """The JSON object of a Mesh, TensorDist or OpDist."""
    if isinstance(value, Mesh):
        return {"#": f"{DIALECT}.a_process_mesh", "D": [list(value.shape), list(value.process_ids),
                                                        list(value.dim_names)]}
    if isinstance(value, TensorDist):
        return {"#": f"{DIALECT}.a_tensor_dist", "D": [attr_json(value.mesh), list(value.dims_mapping),
                                                       [list(p) for p in value.partial]]}
    return {"#": f"{DIALECT}.a_op_dist", "D": [attr_json(value.mesh), [attr_json(t) for t in value.operands],
                                                [attr_json(t) for t in value.results], value.chunk_id]}


def local_shape(shape, dist):
    """Each process's share of ``shape``: a sharded dim divided (rounded up) by its mesh dim's size."""
    return [d if d < 0 or m < 0 else -(-d // dist.mesh.shape[m]) for d, m in zip(shape, dist.dims_mapping)]
