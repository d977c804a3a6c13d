"""Neighbour sampling on a CSC graph (row, colptr): sample_neighbors, weighted_sample_neighbors."""
from .. import ops as _ops
from ._args import check_tensor

_INDEX = ("int32", "int64")


def _check(api, row, colptr, input_nodes, eids, return_eids):
    for argument, value in (("row", row), ("colptr", colptr), ("input_nodes", input_nodes)):
        check_tensor(api, argument, value, _INDEX)
    if return_eids and eids is None:
        raise ValueError(f"{api}: eids should not be None if return_eids is True")


def sample_neighbors(row, colptr, input_nodes, sample_size=-1, eids=None, return_eids=False, perm_buffer=None,
                     name=None):
    """Up to sample_size in-neighbours of each input node (all when sample_size=-1), with their counts."""
    _check("sample_neighbors", row, colptr, input_nodes, eids, return_eids)
    out, count, out_eids = _ops.graph_sample_neighbors(row, colptr, input_nodes, eids, perm_buffer,
                                                       sample_size=int(sample_size), return_eids=return_eids,
                                                       flag_perm_buffer=perm_buffer is not None)
    return (out, count, out_eids) if return_eids else (out, count)


def weighted_sample_neighbors(row, colptr, edge_weight, input_nodes, sample_size=-1, eids=None,
                              return_eids=False, name=None):
    """As sample_neighbors, drawing neighbours with probability proportional to edge_weight."""
    _check("weighted_sample_neighbors", row, colptr, input_nodes, eids, return_eids)
    check_tensor("weighted_sample_neighbors", "edge_weight", edge_weight, ("float32", "float64"))
    out, count, out_eids = _ops.weighted_sample_neighbors(row, colptr, edge_weight, input_nodes, eids,
                                                          sample_size=int(sample_size), return_eids=return_eids)
    return (out, count, out_eids) if return_eids else (out, count)
