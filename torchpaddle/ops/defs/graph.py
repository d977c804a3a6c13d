"""Graph ops of paddle.geometric: segment_pool, graph_send_recv, graph_send_ue_recv, graph_send_uv,
graph_sample_neighbors, weighted_sample_neighbors, graph_reindex."""
import torch

from ..registry import REQUIRED, op

_REDUCE = {"SUM": "sum", "MEAN": "mean", "MAX": "amax", "MIN": "amin"}
_MESSAGE = {"ADD": torch.add, "SUB": torch.sub, "MUL": torch.mul, "DIV": torch.div}


def _index(op_type, slot, index, limit=None):
    if index.dim() != 1 or index.dtype not in (torch.int32, torch.int64):
        raise ValueError(f"{op_type}: {slot} must be a 1-D int32/int64 Tensor, got {index.dtype} "
                         f"of shape {list(index.shape)}")
    if index.numel() and (int(index.min()) < 0 or (limit is not None and int(index.max()) >= limit)):
        raise ValueError(f"{op_type}: {slot} values must lie in [0, {limit}), got "
                         f"[{int(index.min())}, {int(index.max())}]")
    return index.long()


def _pool(op_type, values, index, rows, reduce):
    """Rows ``index`` of ``values`` reduced into ``rows`` output rows (empty rows 0) and the row counts."""
    how = _REDUCE.get(reduce.upper()) if isinstance(reduce, str) else None
    if how is None:
        raise ValueError(f"{op_type}: the reduce op must be one of sum/mean/max/min, got {reduce!r}")
    shape = (rows,) + tuple(values.shape[1:])
    count = torch.zeros(rows, dtype=torch.int32).index_add_(0, index, torch.ones_like(index, dtype=torch.int32))
    where = index.view(-1, *([1] * (values.dim() - 1))).expand_as(values)
    if how == "sum":
        return values.new_zeros(shape).index_add(0, index, values), count
    if how == "mean":
        total = values.new_zeros(shape).index_add(0, index, values)
        scale = count.clamp(min=1).to(values.dtype) if values.is_floating_point() else count.clamp(min=1)
        out = total / scale.view(-1, *([1] * (values.dim() - 1)))
        return (out if values.is_floating_point() else out.to(values.dtype)), count
    out = values.new_zeros(shape).scatter_reduce(0, where, values, how, include_self=False)
    if values.requires_grad:
        # NOTE: Paddle's max/min gradient goes whole to every element equal to the extreme (torch splits ties)
        hit = (values == out.detach().gather(0, where)).to(values.dtype)
        out = out.detach() + values.new_zeros(shape).index_add(0, index, hit * (values - values.detach()))
    return out, count


@op("segment_pool", inputs=["X", "SegmentIds"], outputs=["Out", "SummedIds"], attrs={"pooltype": "SUM"})
def segment_pool(X, SegmentIds, *, pooltype):
    ids = _index("segment_pool", "SegmentIds", SegmentIds)
    if ids.shape[0] != X.shape[0]:
        raise ValueError(f"segment_pool: SegmentIds{list(ids.shape)} must have one id per row of X{list(X.shape)}")
    if ids.numel() and bool((ids[1:] < ids[:-1]).any()):
        raise ValueError("segment_pool: SegmentIds must be sorted in ascending order")
    rows = int(ids[-1]) + 1 if ids.numel() else 0
    out, count = _pool("segment_pool", X, ids, rows, pooltype)
    return out, count.to(X.dtype).unsqueeze(1) if X.is_floating_point() else count.unsqueeze(1)


def _out_rows(op_type, Out_size, out_size, default):
    if Out_size is not None:
        size = int(Out_size.reshape(-1)[0])
    else:
        size = int(out_size[0]) if out_size else 0
    return size if size > 0 else default


def _recv(op_type, messages, Dst_index, Out_size, out_size, reduce_op, rows):
    dst = _index(op_type, "Dst_index", Dst_index)
    rows = _out_rows(op_type, Out_size, out_size, rows)
    if dst.numel() and int(dst.max()) >= rows:
        raise ValueError(f"{op_type}: Dst_index values must be < out_size {rows}, got {int(dst.max())}")
    return _pool(op_type, messages, dst, rows, reduce_op)


@op("graph_send_recv", inputs=["X", "Src_index", "Dst_index", "Out_size?"], outputs=["Out", "Dst_count"],
    attrs={"reduce_op": "SUM", "out_size": [0]})
def graph_send_recv(X, Src_index, Dst_index, Out_size, *, reduce_op, out_size):
    src = _index("graph_send_recv", "Src_index", Src_index, X.shape[0])
    if src.shape != Dst_index.shape:
        raise ValueError(f"graph_send_recv: Src_index{list(src.shape)} and Dst_index{list(Dst_index.shape)} "
                         "must have the same shape")
    return _recv("graph_send_recv", X[src], Dst_index, Out_size, out_size, reduce_op, X.shape[0])


def _message(op_type, x, y, message_op):
    fn = _MESSAGE.get(message_op.upper()) if isinstance(message_op, str) else None
    if fn is None:
        raise ValueError(f"{op_type}: message_op must be one of add/sub/mul/div, got {message_op!r}")
    # rows are edges; the feature dims broadcast right-aligned as in NumPy
    pad = x.dim() - y.dim()
    x = x.reshape(x.shape[:1] + (1,) * -pad + x.shape[1:]) if pad < 0 else x
    y = y.reshape(y.shape[:1] + (1,) * pad + y.shape[1:]) if pad > 0 else y
    try:
        return fn(x, y)
    except RuntimeError:
        raise ValueError(f"{op_type}: the features {list(x.shape)} and {list(y.shape)} cannot broadcast") from None


@op("graph_send_ue_recv", inputs=["X", "Y", "Src_index", "Dst_index", "Out_size?"], outputs=["Out", "Dst_count"],
    attrs={"message_op": "ADD", "reduce_op": "SUM", "out_size": [0]})
def graph_send_ue_recv(X, Y, Src_index, Dst_index, Out_size, *, message_op, reduce_op, out_size):
    src = _index("graph_send_ue_recv", "Src_index", Src_index, X.shape[0])
    if src.shape != Dst_index.shape or Y.shape[0] != src.shape[0]:
        raise ValueError(f"graph_send_ue_recv: Src_index{list(src.shape)}, Dst_index{list(Dst_index.shape)} and "
                         f"the rows of Y{list(Y.shape)} must agree (one per edge)")
    messages = _message("graph_send_ue_recv", X[src], Y, message_op)
    return _recv("graph_send_ue_recv", messages, Dst_index, Out_size, out_size, reduce_op, X.shape[0])


@op("graph_send_uv", inputs=["x", "y", "src_index", "dst_index"], outputs=["out"], attrs={"message_op": "ADD"})
def graph_send_uv(x, y, src_index, dst_index, *, message_op):
    src = _index("graph_send_uv", "src_index", src_index, x.shape[0])
    dst = _index("graph_send_uv", "dst_index", dst_index, y.shape[0])
    if src.shape != dst.shape:
        raise ValueError(f"graph_send_uv: src_index{list(src.shape)} and dst_index{list(dst.shape)} must have "
                         "the same shape")
    return _message("graph_send_uv", x[src], y[dst], message_op)


def _csc(op_type, row, colptr, nodes):
    row = _index(op_type, "row", row)
    colptr = _index(op_type, "colptr", colptr)
    nodes = _index(op_type, "input_nodes", nodes, colptr.shape[0] - 1)
    return row, colptr, nodes


def _sample(op_type, row, colptr, nodes, sample_size, eids, return_eids, weight=None):
    """Up to ``sample_size`` in-neighbours of each node of ``nodes`` (all of them when sample_size < 0 or the
    node has no more), without replacement; with ``weight``, in proportion to the edge weights."""
    if return_eids and eids is None:
        raise ValueError(f"{op_type}: eids must be given when return_eids=True")
    picked, counts = [], []
    for node in nodes.tolist():
        start, end = int(colptr[node]), int(colptr[node + 1])
        edges = torch.arange(start, end)
        if 0 <= sample_size < edges.numel():
            if weight is None:
                edges = edges[torch.randperm(edges.numel())[:sample_size]]
            else:
                w = weight[start:end].double().clamp(min=0)
                w = w if float(w.sum()) > 0 else torch.ones_like(w)
                # an edge of zero weight is drawn only when too few edges have weight
                positive = int((w > 0).sum())
                order = torch.multinomial(w, min(sample_size, positive), replacement=False)
                if order.numel() < sample_size:
                    rest = torch.nonzero(w == 0).flatten()
                    order = torch.cat([order, rest[torch.randperm(rest.numel())[:sample_size - order.numel()]]])
                edges = edges[order]
        picked.append(edges)
        counts.append(edges.numel())
    edges = torch.cat(picked) if picked else torch.zeros(0, dtype=torch.long)
    out = row[edges].to(row.dtype)
    count = torch.tensor(counts, dtype=torch.int32)
    out_eids = eids[edges] if return_eids else torch.zeros(0, dtype=row.dtype)
    return out, count, out_eids


@op("graph_sample_neighbors", inputs=["Row", "Col_Ptr", "X", "Eids?", "Perm_Buffer?"],
    outputs=["Out", "Out_Count", "Out_Eids"], attrs={"sample_size": REQUIRED, "return_eids": REQUIRED,
                                                     "flag_perm_buffer": REQUIRED}, differentiable=False)
def graph_sample_neighbors(Row, Col_Ptr, X, Eids, Perm_Buffer, *, sample_size, return_eids, flag_perm_buffer):
    row, colptr, nodes = _csc("graph_sample_neighbors", Row, Col_Ptr, X)
    out, count, eids = _sample("graph_sample_neighbors", row, colptr, nodes, sample_size, Eids, return_eids)
    return out.to(Row.dtype), count, eids


@op("weighted_sample_neighbors", inputs=["row", "colptr", "edge_weight", "input_nodes", "eids?"],
    outputs=["out_neighbors", "out_count", "out_eids"], attrs={"sample_size": REQUIRED, "return_eids": REQUIRED},
    differentiable=False)
def weighted_sample_neighbors(row, colptr, edge_weight, input_nodes, eids, *, sample_size, return_eids):
    r, c, nodes = _csc("weighted_sample_neighbors", row, colptr, input_nodes)
    if edge_weight.shape != row.shape:
        raise ValueError(f"weighted_sample_neighbors: edge_weight{list(edge_weight.shape)} must have one weight "
                         f"per edge of row{list(row.shape)}")
    out, count, out_eids = _sample("weighted_sample_neighbors", r, c, nodes, sample_size, eids, return_eids,
                                   weight=edge_weight)
    return out.to(row.dtype), count, out_eids


@op("graph_reindex", inputs=["X", "Neighbors", "Count", "HashTable_Value?", "HashTable_Index?"],
    outputs=["Reindex_Src", "Reindex_Dst", "Out_Nodes"], differentiable=False)
def graph_reindex(X, Neighbors, Count, HashTable_Value, HashTable_Index):
    x = _index("graph_reindex", "X", X)
    neighbors = _index("graph_reindex", "Neighbors", Neighbors)
    count = _index("graph_reindex", "Count", Count)
    # several edge types concatenated: Count holds one block of len(X) counts per type
    if x.numel() == 0 and count.numel() or x.numel() and count.numel() % x.numel():
        raise ValueError(f"graph_reindex: Count{list(count.shape)} must hold a count for each node of "
                         f"X{list(x.shape)} (per edge type)")
    if int(count.sum()) != neighbors.numel():
        raise ValueError(f"graph_reindex: Count sums to {int(count.sum())} but Neighbors has "
                         f"{neighbors.numel()} entries")
    # out nodes: X first, then new neighbours in order of first appearance
    everything = torch.cat([x, neighbors])
    unique, inverse = torch.unique(everything, return_inverse=True)
    first = torch.full((unique.numel(),), everything.numel(), dtype=torch.long)
    first.scatter_reduce_(0, inverse, torch.arange(everything.numel()), "amin")
    order = torch.argsort(first)
    rank = torch.empty_like(order)
    rank[order] = torch.arange(order.numel())
    src = rank[inverse[x.numel():]]
    dst = torch.arange(x.numel()).repeat(max(count.numel() // max(x.numel(), 1), 1))[:count.numel()]
    dst = torch.repeat_interleave(dst, count)
    dtype = X.dtype
    return src.to(dtype), dst.to(dtype), unique[order].to(dtype)
