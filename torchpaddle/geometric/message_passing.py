"""Message passing: send_u_recv, send_ue_recv (node and edge features), send_uv (per-edge messages)."""
from .. import ops as _ops
from ._args import _MESSAGE, _REDUCE, check_choice, check_tensor, out_size_args

_FEATURES = ("float16", "bfloat16", "float32", "float64", "int32", "int64")
_INDEX = ("int32", "int64")


def _check(api, x, src_index, dst_index):
    check_tensor(api, "x", x, _FEATURES)
    check_tensor(api, "src_index", src_index, _INDEX)
    check_tensor(api, "dst_index", dst_index, _INDEX)


def send_u_recv(x, src_index, dst_index, reduce_op="sum", out_size=None, name=None):
    """Gather x[src_index] and reduce it into rows dst_index (out_size rows, default x.shape[0])."""
    _check("send_u_recv", x, src_index, dst_index)
    reduce_op = check_choice("send_u_recv", "reduce_op", reduce_op, _REDUCE)
    size_tensor, size = out_size_args(out_size)
    out, _ = _ops.graph_send_recv(x, src_index, dst_index, size_tensor, reduce_op=reduce_op, out_size=size)
    return out


def send_ue_recv(x, y, src_index, dst_index, message_op="add", reduce_op="sum", out_size=None, name=None):
    """Combine x[src_index] with the edge features y by message_op, then reduce into rows dst_index."""
    _check("send_ue_recv", x, src_index, dst_index)
    check_tensor("send_ue_recv", "y", y, _FEATURES)
    message_op = check_choice("send_ue_recv", "message_op", message_op, _MESSAGE)
    reduce_op = check_choice("send_ue_recv", "reduce_op", reduce_op, _REDUCE)
    size_tensor, size = out_size_args(out_size)
    out, _ = _ops.graph_send_ue_recv(x, y, src_index, dst_index, size_tensor, message_op=message_op,
                                     reduce_op=reduce_op, out_size=size)
    return out


def send_uv(x, y, src_index, dst_index, message_op="add", name=None):
    """One message per edge: x[src_index] combined with y[dst_index] by message_op."""
    _check("send_uv", x, src_index, dst_index)
    check_tensor("send_uv", "y", y, _FEATURES)
    message_op = check_choice("send_uv", "message_op", message_op, _MESSAGE)
    return _ops.graph_send_uv(x, y, src_index, dst_index, message_op=message_op)
