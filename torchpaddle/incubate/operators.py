"""The incubate graph operators (older spellings of paddle.geometric) and the fused masked softmaxes."""
import torch

from .. import geometric
from ..framework.tensor import Tensor, wrap


def graph_send_recv(x, src_index, dst_index, pool_type="sum", out_size=None, name=None):
    """Gather ``x[src_index]`` and pool it into rows ``dst_index`` (geometric.send_u_recv under its old name)."""
    if not isinstance(pool_type, str) or pool_type.lower() not in ("sum", "mean", "max", "min"):
        raise ValueError(f"graph_send_recv: pool_type should be one of 'sum', 'mean', 'max', 'min', got {pool_type!r}")
    return geometric.send_u_recv(x, src_index, dst_index, reduce_op=pool_type.lower(), out_size=out_size)


def graph_sample_neighbors(row, colptr, input_nodes, eids=None, perm_buffer=None, sample_size=-1, return_eids=False,
                           flag_perm_buffer=False, name=None):
    """geometric.sample_neighbors with the incubate argument order; the perm buffer only speeds up Paddle's GPU
    kernel, so it is accepted and ignored here."""
    return geometric.sample_neighbors(row, colptr, input_nodes, sample_size=sample_size, eids=eids,
                                      return_eids=return_eids)


def graph_reindex(x, neighbors, count, value_buffer=None, index_buffer=None, flag_buffer_hashtable=False,
                  name=None):
    """geometric.reindex_graph; the hashtable buffers are a GPU-kernel detail and are ignored."""
    return geometric.reindex_graph(x, neighbors, count)


def graph_khop_sampler(row, colptr, input_nodes, sample_sizes, sorted_eids=None, return_eids=False, name=None):
    """Sample ``len(sample_sizes)`` hops of neighbours from ``input_nodes``; -> (edge_src, edge_dst, sample_index,
    reindex_nodes[, edge_eids]) with edges in the reindexed id space and input nodes numbered first."""
    if not isinstance(sample_sizes, (list, tuple)) or not sample_sizes:
        raise TypeError(f"graph_khop_sampler: sample_sizes should be a non-empty list or tuple of int, "
                        f"got {sample_sizes!r}")
    if return_eids and sorted_eids is None:
        raise ValueError("graph_khop_sampler: sorted_eids should not be None if return_eids is True")
    frontier = input_nodes
    order = input_nodes._t.tolist()
    seen = set(order)
    centers, neighbors, eids = [], [], []
    for size in sample_sizes:
        got = geometric.sample_neighbors(row, colptr, frontier, sample_size=int(size), eids=sorted_eids,
                                         return_eids=return_eids)
        nbr, cnt = got[0]._t, got[1]._t.to(torch.int64)
        if return_eids:
            eids.append(got[2]._t)
        centers.append(torch.repeat_interleave(frontier._t, cnt))
        neighbors.append(nbr)
        # Paddle numbers each hop's newly reached nodes in ascending id order, after everything seen before
        fresh = sorted(set(nbr.tolist()) - seen)
        seen.update(fresh)
        order.extend(fresh)
        frontier = wrap(torch.tensor(fresh, dtype=nbr.dtype))
    lookup = {v: i for i, v in enumerate(order)}
    dtype = input_nodes._t.dtype

    def remap(t):
        return torch.tensor([lookup[v] for v in t.tolist()], dtype=dtype)
    out = [wrap(remap(torch.cat(neighbors)).reshape(-1, 1)), wrap(remap(torch.cat(centers)).reshape(-1, 1)),
           wrap(torch.tensor(order, dtype=dtype)), wrap(remap(input_nodes._t))]
    if return_eids:
        out.append(wrap(torch.cat(eids)))
    return tuple(out)


def softmax_mask_fuse(x, mask, name=None):
    """softmax(x + mask) over the last axis; ``mask`` broadcasts over the head axis (Paddle's fused kernel)."""
    if not isinstance(x, Tensor) or not isinstance(mask, Tensor):
        raise TypeError("softmax_mask_fuse: x and mask should be Tensors")
    if x.ndim != 4 or mask.ndim != 4:
        raise ValueError(f"softmax_mask_fuse: x and mask should be 4-D, got shapes {x.shape} and {mask.shape}")
    return wrap(torch.softmax(x._t + mask._t.to(x._t.dtype), dim=-1))


def softmax_mask_fuse_upper_triangle(x):
    """Causal softmax over the last axis: row i only attends to columns <= i (the rest come out 0)."""
    if not isinstance(x, Tensor) or x.ndim != 4:
        raise ValueError("softmax_mask_fuse_upper_triangle: x should be a 4-D Tensor [batch, heads, q, k]")
    q, k = x._t.shape[-2:]
    keep = torch.ones(q, k, dtype=torch.bool, device=x._t.device).tril()
    return wrap(torch.softmax(x._t.masked_fill(~keep, float("-inf")), dim=-1))
