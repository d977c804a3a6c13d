"""Dist attributes between the static IR (Variable/Operator ``dist_attr``) and the PIR file's tuples
(serialization.pir_dist): a value's ``t_dist_dtensor`` type and an op's ``op_dist_attr``.

PIR gives an op's attributes per operand and result position; the IR keys them by argument name, so the
reader and writer map positions to the variables there."""
from ..framework.dist_attr import TensorDistAttr
from ..framework.process_mesh import ProcessMesh
from .serialization import pir_dist as _pd


def mesh_of(mesh):
    return ProcessMesh(shape=list(mesh.shape), process_ids=list(mesh.process_ids), dim_names=list(mesh.dim_names))


def tensor_attr(dist, var=None):
    """A TensorDistAttr from a pir_dist.TensorDist (checked against ``var``'s rank when given)."""
    attr = TensorDistAttr()
    attr.process_mesh = mesh_of(dist.mesh)
    attr.dims_mapping = list(dist.dims_mapping)
    for dim, reduce_type in dist.partial:
        attr._set_partial_dims([dim], reduce_type)
    return attr if var is None else attr._copy(var)


def mesh_tuple(mesh):
    return _pd.Mesh(tuple(mesh.shape), tuple(mesh.process_ids), tuple(mesh.dim_names))


def tensor_dist(attr, rank, mesh=None):
    """A pir_dist.TensorDist from a TensorDistAttr (None: replicated over ``mesh``), for a value of ``rank``."""
    if attr is None or attr.process_mesh is None:
        return _pd.TensorDist(mesh_tuple(mesh), (-1,) * rank, ())
    dims = attr.dims_mapping or [-1] * rank
    partial = tuple(sorted((int(d), int(t)) for d, t in attr._partial_status().items()))
    return _pd.TensorDist(mesh_tuple(attr.process_mesh), tuple(dims), partial)


def var_dist(var):
    """The TensorDist of a Variable with a mesh, else None."""
    attr = var._dist_attr
    if attr is None or attr.process_mesh is None:
        return None
    return tensor_dist(attr, len(var.desc_shape))


def set_op_attr(op, dist, operand_names, result_names):
    """Give the appended ``op`` the mesh of a pir_dist.OpDist and its entries for the named operands/results
    (None: a position with no variable, a constant folded into an attribute)."""
    attr = op.dist_attr
    attr.process_mesh = mesh_of(dist.mesh)
    attr.chunk_id = dist.chunk_id
    for kind, names, dists in (("input", operand_names, dist.operands), ("output", result_names, dist.results)):
        for name, item in zip(names, dists):
            if name is not None and len(item.dims_mapping) == len(op.block._find_var_recursive(name).desc_shape):
                attr._set(kind, name, tensor_attr(item))


def op_dist(op, operand_vars, result_vars, types):
    """The pir_dist.OpDist of an Operator with a mesh (else None): ``operand_vars``/``result_vars`` name the
    variable at each position (None where there is none; ``types`` gives the rank of each operand's value)."""
    attr = op._dist_attr
    if attr is None or attr.process_mesh is None:
        return None
    mesh = attr.process_mesh

    def entry(kind, name, rank):
        table = attr._inputs if kind == "input" else attr._outputs
        found = table.get(name) if name is not None else None
        return tensor_dist(found if found is not None and found.process_mesh is not None else None, rank, mesh)
    operands = tuple(entry("input", n, r) for n, r in zip(operand_vars, types[0]))
    results = tuple(entry("output", n, r) for n, r in zip(result_vars, types[1]))
    return _pd.OpDist(mesh_tuple(mesh), operands, results, int(attr.chunk_id))
