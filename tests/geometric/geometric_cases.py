"""paddle.geometric cases run on both torchpaddle and real Paddle 3.3.1 (values, input gradients, errors)."""
import sys

import numpy as np

from tests.nn.layer_case_tools import dump

_RNG = np.random.default_rng(7)
_X = _RNG.standard_normal((5, 3))
_Y = _RNG.standard_normal((6, 3))
_SRC = np.array([0, 1, 2, 0, 4, 3])
_DST = np.array([1, 2, 1, 0, 1, 4])
_SEG = np.array([0, 0, 2, 2, 3])
_ROW = np.array([3, 7, 0, 9, 1, 4, 2, 9, 3, 9, 1, 9, 7])
_COLPTR = np.array([0, 2, 4, 5, 6, 7, 9, 11, 11, 13, 13])


def _with_grad(paddle, fn, *arrays):
    inputs = [paddle.to_tensor(a, stop_gradient=False) for a in arrays]
    out = fn(*inputs)
    (out * paddle.to_tensor(np.arange(out.size, dtype=np.float64).reshape(out.shape))).sum().backward()
    return [out] + [t.grad for t in inputs]


def _segment(kind):
    return lambda paddle: _with_grad(paddle, lambda d: getattr(paddle.geometric, f"segment_{kind}")(
        d, paddle.to_tensor(_SEG)), _X)


def _u_recv(reduce_op, out_size=None):
    return lambda paddle: _with_grad(paddle, lambda x: paddle.geometric.send_u_recv(
        x, paddle.to_tensor(_SRC), paddle.to_tensor(_DST), reduce_op, out_size=out_size), _X)


def _ue_recv(message_op, reduce_op):
    return lambda paddle: _with_grad(paddle, lambda x, y: paddle.geometric.send_ue_recv(
        x, y, paddle.to_tensor(_SRC), paddle.to_tensor(_DST), message_op, reduce_op), _X, _Y[:, :1] + 2.0)


def _uv(message_op):
    return lambda paddle: _with_grad(paddle, lambda x, y: paddle.geometric.send_uv(
        x, y, paddle.to_tensor(_SRC), paddle.to_tensor(_DST), message_op), _X, _Y[:5] + 3.0)


def _ties(paddle):
    data = np.array([[1.0, 5.0], [3.0, 5.0], [3.0, 2.0]])
    return _with_grad(paddle, lambda d: paddle.geometric.segment_max(d, paddle.to_tensor([0, 0, 0])), data)


def _sample_all(paddle):
    row, colptr = paddle.to_tensor(_ROW), paddle.to_tensor(_COLPTR)
    # every node here has at most sample_size neighbours, so the result is deterministic
    return paddle.geometric.sample_neighbors(row, colptr, paddle.to_tensor([0, 8, 1, 2]), sample_size=2,
                                             eids=paddle.arange(13), return_eids=True)


def _reindex(paddle):
    count = paddle.to_tensor([2, 3, 2], dtype="int32")
    return paddle.geometric.reindex_graph(paddle.to_tensor([0, 1, 2]), paddle.to_tensor([8, 9, 0, 4, 7, 6, 7]),
                                          count)


def _reindex_heter(paddle):
    count = [paddle.to_tensor([2, 3, 2], dtype="int32"), paddle.to_tensor([1, 3, 1], dtype="int32")]
    return paddle.geometric.reindex_heter_graph(
        paddle.to_tensor([0, 1, 2]), [paddle.to_tensor([8, 9, 0, 4, 7, 6, 7]), paddle.to_tensor([0, 2, 3, 5, 1])],
        count)


CASES = {
    **{f"segment_{k}": _segment(k) for k in ("sum", "mean", "max", "min")},
    "segment_max_ties": _ties,
    "segment_int": lambda paddle: paddle.geometric.segment_sum(paddle.to_tensor([[1, 2], [3, 4]], dtype="int32"),
                                                               paddle.to_tensor([1, 1])),
    "segment_bad_reduce_type": lambda paddle: paddle.geometric.segment_sum([1.0], paddle.to_tensor([0])),
    **{f"u_recv_{r}": _u_recv(r) for r in ("sum", "mean", "max", "min")},
    "u_recv_out_size": _u_recv("sum", out_size=7),
    "u_recv_bad_reduce": _u_recv("prod"),
    **{f"ue_recv_{m}_{r}": _ue_recv(m, r) for m in ("add", "sub", "mul", "div") for r in ("sum", "mean", "max")},
    **{f"uv_{m}": _uv(m) for m in ("add", "sub", "mul", "div")},
    "uv_bad_message": _uv("pow"),
    "sample_all": _sample_all,
    "reindex": _reindex,
    "reindex_heter": _reindex_heter,
}


if __name__ == "__main__":
    dump(CASES, sys.argv[1])
