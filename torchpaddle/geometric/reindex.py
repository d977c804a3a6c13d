"""Renumber a sampled subgraph's nodes from 0: reindex_graph, reindex_heter_graph."""
from .. import ops as _ops
from ..tensor.manipulation import concat
from ._args import check_tensor

_INDEX = ("int32", "int64")


def reindex_graph(x, neighbors, count, value_buffer=None, index_buffer=None, name=None):
    """(reindex_src, reindex_dst, out_nodes): x keeps ids 0..len(x)-1, new neighbours follow in order seen."""
    for argument, value in (("x", x), ("neighbors", neighbors), ("count", count)):
        check_tensor("reindex_graph", argument, value, _INDEX)
    return _ops.graph_reindex(x, neighbors, count, value_buffer, index_buffer)


def reindex_heter_graph(x, neighbors, count, value_buffer=None, index_buffer=None, name=None):
    """reindex_graph over several edge types: ``neighbors`` and ``count`` are lists, one entry per type."""
    if not isinstance(neighbors, (list, tuple)) or not isinstance(count, (list, tuple)):
        raise TypeError("reindex_heter_graph: neighbors and count must be lists of Tensors, one per edge type")
    if len(neighbors) != len(count) or not neighbors:
        raise ValueError(f"reindex_heter_graph: neighbors ({len(neighbors)}) and count ({len(count)}) must "
                         "have the same non-zero length")
    check_tensor("reindex_heter_graph", "x", x, _INDEX)
    for i, (n, c) in enumerate(zip(neighbors, count)):
        check_tensor("reindex_heter_graph", f"neighbors[{i}]", n, _INDEX)
        check_tensor("reindex_heter_graph", f"count[{i}]", c, _INDEX)
    return _ops.graph_reindex(x, concat(list(neighbors)), concat(list(count)), value_buffer, index_buffer)
