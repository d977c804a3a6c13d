"""paddle.distributed.split on 2 real gloo ranks (dygraph, and static through the Executor): outputs and
gradients of each rank's part against NumPy on the full weight; argument errors in one process."""

import numpy as np
import pytest

import torchpaddle as paddle
import torchpaddle.distributed as dist
from _exit_abort import run_job_retrying
from _split_cases import B_LIN, G, IDS, W_EMB, W_LIN, X, part_of

N = 2


@pytest.fixture(scope="module")
def job(tmp_path_factory):
    return run_job_retrying("split.py", N, str(tmp_path_factory.mktemp("split")), timeout=90)


def _expected(key, r):
    """(out, parameter grads, x grad) of rank ``r`` for case ``key``, from the full weight."""
    cols = slice(2 * r, 2 * r + 2)   # a rank's columns of a 4-wide output
    x_r, w_row, w_col = part_of(X, 1, r, N), part_of(W_LIN, 0, r, N), part_of(W_LIN, 1, r, N)
    full = X @ W_LIN + B_LIN
    if key == "embedding":
        c = G[0, 0]
        counts = np.array([(IDS == 4 * r + j).sum() for j in range(4)], "float32")
        return W_EMB[IDS], [c * counts[:, None] * np.ones((1, 3), "float32")], None
    if key in ("row/split_x", "static/row"):
        return full, [x_r.T @ G, G.sum(0)], G @ W_LIN.T
    if key == "row/x_part":
        return full, [x_r.T @ G, G.sum(0)], G @ w_row.T
    if key == "row/no_gather":
        # the partial product, without the bias (Paddle's behaviour)
        return x_r @ w_row, [x_r.T @ G, None], G @ w_row.T
    if key in ("column", "static/column"):
        return full, [X.T @ G[:, cols], G[:, cols].sum(0)], G @ W_LIN.T
    if key == "column/no_gather":
        g = G[:, :2]
        # c_identity's backward sums x's gradient over the ranks, each with its own columns of the weight
        return X @ w_col + B_LIN[cols], [X.T @ g, g.sum(0)], g @ part_of(W_LIN, 1, 0, N).T + \
            g @ part_of(W_LIN, 1, 1, N).T
    raise KeyError(key)


CASE_KEYS = ["embedding", "row/split_x", "row/x_part", "row/no_gather", "column", "column/no_gather", "static/row",
             "static/column"]


@pytest.mark.multiprocess
@pytest.mark.parametrize("key", CASE_KEYS)
def test_against_numpy_on_the_full_weight(job, key):
    for r, res in enumerate(job):
        got = res["cases"][key]
        out, param_grads, x_grad = _expected(key, r)
        np.testing.assert_allclose(got["out"], out, rtol=1e-5, atol=1e-5, err_msg=f"{key} rank {r} out")
        assert len(got["param_grads"]) == len(param_grads)
        for k, (a, e) in enumerate(zip(got["param_grads"], param_grads)):
            if e is None:
                assert a is None
            else:
                np.testing.assert_allclose(a, e, rtol=1e-5, atol=1e-5, err_msg=f"{key} rank {r} param {k}")
        if x_grad is not None:
            np.testing.assert_allclose(got["x_grad"], x_grad, rtol=1e-5, atol=1e-5, err_msg=f"{key} rank {r} x")


@pytest.mark.multiprocess
def test_static_programs_hold_paddles_ops(job):
    ops = job[0]["cases"]["static/row"]["op_types"]
    assert ops.index("c_split") < ops.index("matmul_v2") < ops.index("mp_allreduce_sum")
    ops = job[0]["cases"]["static/column"]["op_types"]
    assert ops.index("c_identity") < ops.index("matmul_v2") < ops.index("c_concat")


def test_one_partition_is_a_plain_layer():
    assign = paddle.nn.initializer.Assign
    out = dist.split(paddle.to_tensor(X), [6, 4], "linear", weight_attr=paddle.ParamAttr(initializer=assign(W_LIN)),
                     bias_attr=paddle.ParamAttr(initializer=assign(B_LIN)))
    np.testing.assert_allclose(out.numpy(), X @ W_LIN + B_LIN, rtol=1e-5, atol=1e-6)
    out = dist.split(paddle.to_tensor(X), [6, 4], "linear", axis=1, bias_attr=False,
                     weight_attr=paddle.ParamAttr(initializer=assign(W_LIN)))
    np.testing.assert_allclose(out.numpy(), X @ W_LIN, rtol=1e-5, atol=1e-6)
    out = dist.split(paddle.to_tensor(IDS), (8, 3), "embedding", weight_attr=paddle.ParamAttr(initializer=assign(W_EMB)))
    np.testing.assert_allclose(out.numpy(), W_EMB[IDS])


@pytest.mark.parametrize("kwargs, error, match", [
    (dict(size=6), TypeError, "size must be a list"),
    (dict(size=[6, 4, 1]), ValueError, "two positive ints"),
    (dict(operation="conv"), ValueError, "operation must be one of"),
    (dict(operation=3), TypeError, "operation must be a str"),
    (dict(axis=2), ValueError, "axis must be 0 or 1"),
    (dict(operation="embedding", axis=1), ValueError, "axis 0 only"),
    (dict(size=[5, 4], num_partitions=2), ValueError, "divisible by num_partitions=2"),
    (dict(num_partitions=0), ValueError, "num_partitions must be a positive int"),
    (dict(gather_out="yes"), TypeError, "gather_out must be a bool"),
    (dict(num_partitions=2), RuntimeError, "init_parallel_env"),
])
def test_bad_arguments(kwargs, error, match):
    args = dict(x=paddle.to_tensor(X), size=[6, 4], operation="linear")
    args.update(kwargs)
    with pytest.raises(error, match=match):
        dist.split(**args)
