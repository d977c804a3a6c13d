"""paddle.geometric vs real Paddle 3.3.1 (geometric_cases.py), float64 finite-difference gradients, sampling
invariants and argument errors."""
import numpy as np
import pytest

import torchpaddle as paddle
import torchpaddle.geometric as geometric
import paddle_ref
from tests.geometric import geometric_cases as cases
from tests.nn.layer_case_tools import compare, run_cases

reference, ours, test_matches_real_paddle = paddle_ref.case_table(
    "tests.geometric.geometric_cases", cases.CASES, lambda: run_cases(cases.CASES, paddle), compare)

_SRC, _DST = cases._SRC, cases._DST


def _numeric_grad(fn, x, eps=1e-6):
    grad = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        hi, lo = x.copy(), x.copy()
        hi[i] += eps
        lo[i] -= eps
        grad[i] = (fn(hi) - fn(lo)) / (2 * eps)
    return grad


@pytest.mark.parametrize("call", [
    lambda x: geometric.segment_mean(x, paddle.to_tensor(cases._SEG)),
    lambda x: geometric.segment_min(x, paddle.to_tensor(cases._SEG)),
    lambda x: geometric.send_u_recv(x, paddle.to_tensor(_SRC), paddle.to_tensor(_DST), "mean"),
    lambda x: geometric.send_u_recv(x, paddle.to_tensor(_SRC), paddle.to_tensor(_DST), "max"),
    lambda x: geometric.send_ue_recv(x, x[:1].tile([6, 1]) + 3, paddle.to_tensor(_SRC), paddle.to_tensor(_DST),
                                     "div", "sum"),
    lambda x: geometric.send_uv(x, x * x, paddle.to_tensor(_SRC), paddle.to_tensor(_DST), "mul"),
], ids=["segment_mean", "segment_min", "u_recv_mean", "u_recv_max", "ue_recv_div", "uv_mul"])
def test_float64_gradients_match_finite_differences(call):
    x0 = cases._X.copy()
    weight = np.random.default_rng(1).standard_normal(call(paddle.to_tensor(x0)).shape)

    def loss(array):
        return float((call(paddle.to_tensor(array)).numpy() * weight).sum())
    x = paddle.to_tensor(x0, stop_gradient=False)
    (call(x) * paddle.to_tensor(weight)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), _numeric_grad(loss, x0), rtol=1e-5, atol=1e-6)


def test_segment_sum_against_numpy():
    data = np.random.default_rng(2).standard_normal((6, 2))
    ids = np.array([0, 1, 1, 4, 4, 4])
    expected = np.zeros((5, 2))
    np.add.at(expected, ids, data)
    np.testing.assert_allclose(geometric.segment_sum(paddle.to_tensor(data), paddle.to_tensor(ids)).numpy(),
                               expected)


def _graph():
    return paddle.to_tensor(cases._ROW), paddle.to_tensor(cases._COLPTR)


@pytest.mark.parametrize("weighted", [False, True])
def test_sampled_neighbours_are_real_neighbours(weighted):
    row, colptr = _graph()
    nodes = [0, 5, 6, 8, 9, 3]
    for size in (1, 2, -1):
        if weighted:
            out, count, eids = geometric.weighted_sample_neighbors(
                row, colptr, paddle.rand([13], dtype="float32") + 0.1, paddle.to_tensor(nodes), size,
                eids=paddle.arange(13) + 100, return_eids=True)
        else:
            out, count, eids = geometric.sample_neighbors(row, colptr, paddle.to_tensor(nodes), size,
                                                          eids=paddle.arange(13) + 100, return_eids=True)
        out, count, eids = out.numpy(), count.numpy(), eids.numpy()
        assert count.dtype == np.int32 and count.sum() == len(out) == len(eids)
        start = 0
        for node, n in zip(nodes, count):
            lo, hi = cases._COLPTR[node], cases._COLPTR[node + 1]
            degree = hi - lo
            assert n == (degree if size < 0 else min(size, degree))
            edges = eids[start:start + n] - 100
            assert len(set(edges)) == n and all(lo <= e < hi for e in edges)
            np.testing.assert_array_equal(out[start:start + n], cases._ROW[edges])
            start += n


def test_weighted_sampling_prefers_heavy_edges():
    row = paddle.to_tensor([1, 2])
    colptr = paddle.to_tensor([0, 2])
    weight = paddle.to_tensor([1e-6, 1.0])
    picks = [int(geometric.weighted_sample_neighbors(row, colptr, weight, paddle.to_tensor([0]), 1)[0].numpy()[0])
             for _ in range(20)]
    assert picks.count(2) >= 19


def test_errors_name_the_argument():
    x = paddle.to_tensor(cases._X)
    with pytest.raises(ValueError, match="reduce_op"):
        geometric.send_u_recv(x, paddle.to_tensor(_SRC), paddle.to_tensor(_DST), "prod")
    with pytest.raises(TypeError, match="src_index"):
        geometric.send_u_recv(x, paddle.to_tensor(_SRC.astype("float32")), paddle.to_tensor(_DST))
    with pytest.raises(ValueError, match="Src_index"):
        geometric.send_u_recv(x, paddle.to_tensor([0, 9]), paddle.to_tensor([0, 1]))
    with pytest.raises(ValueError, match="sorted"):
        geometric.segment_sum(x, paddle.to_tensor([1, 0, 2, 2, 3]))
    with pytest.raises(ValueError, match="one id per row"):
        geometric.segment_sum(x, paddle.to_tensor([0, 1]))
    with pytest.raises(ValueError, match="message_op"):
        geometric.send_uv(x, x, paddle.to_tensor(_SRC), paddle.to_tensor(_DST), "pow")
    row, colptr = _graph()
    with pytest.raises(ValueError, match="eids"):
        geometric.sample_neighbors(row, colptr, paddle.to_tensor([0]), 1, return_eids=True)
    with pytest.raises(ValueError, match="input_nodes"):
        geometric.sample_neighbors(row, colptr, paddle.to_tensor([10]), 1)
    with pytest.raises(ValueError, match="Count"):
        geometric.reindex_graph(paddle.to_tensor([0, 1]), paddle.to_tensor([3, 4]),
                                paddle.to_tensor([1, 2], dtype="int32"))
    with pytest.raises(TypeError, match="neighbors"):
        geometric.reindex_heter_graph(paddle.to_tensor([0]), paddle.to_tensor([1]), paddle.to_tensor([1]))
