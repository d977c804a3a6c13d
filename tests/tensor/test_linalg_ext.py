"""paddle.linalg functions beyond the op table (tests/optable/rows_linalg_ext.py): the float8 GEMM (Paddle has it
on GPUs only, so NumPy on the float8-rounded operands is the reference), randomized SVD reproducibility and its
M argument, and Paddle quirks we keep or drop on purpose."""
import numpy as np
import pytest

import torchpaddle as paddle


def _fp8(data, dtype="float8_e4m3fn"):
    x = paddle.to_tensor(np.asarray(data, dtype=np.float32)).astype(dtype)
    return x, x.astype("float32").numpy().astype(np.float64)


@pytest.mark.parametrize("kwargs", [{}, {"transpose_y": True, "scale": 0.5}, {"transpose_x": True, "act": "relu"},
                                    {"bias": True, "act": "gelu", "output_dtype": "bfloat16"}])
def test_fp8_gemm_matches_numpy_on_the_rounded_operands(kwargs):
    rng = np.random.default_rng(7)
    kwargs = dict(kwargs)
    x, xr = _fp8(rng.uniform(-2, 2, size=(4, 6) if not kwargs.get("transpose_x") else (6, 4)))
    y, yr = _fp8(rng.uniform(-2, 2, size=(6, 5) if not kwargs.get("transpose_y") else (5, 6)), "float8_e5m2")
    bias = None
    if kwargs.pop("bias", False):
        bias = paddle.to_tensor(rng.uniform(-1, 1, size=5).astype("float16"))
    out = paddle.linalg.fp8_fp8_half_gemm_fused(x, y, bias=bias, **kwargs)
    a = xr.T if kwargs.get("transpose_x") else xr
    b = yr.T if kwargs.get("transpose_y") else yr
    expected = a @ b * kwargs.get("scale", 1.0) + (0 if bias is None else bias.numpy().astype(np.float64))
    act = kwargs.get("act", "identity")
    if act == "relu":
        expected = np.maximum(expected, 0)
    elif act == "gelu":
        from math import erf
        expected = expected * 0.5 * (1 + np.vectorize(erf)(expected / np.sqrt(2)))
    assert out.dtype.name == kwargs.get("output_dtype", "float16") and out.shape == [4, 5]
    np.testing.assert_allclose(out.astype("float32").numpy(), expected, rtol=1e-2, atol=1e-2)


def test_fp8_gemm_bad_arguments():
    x, _ = _fp8(np.ones((2, 2)))
    with pytest.raises(TypeError, match="float8"):
        paddle.linalg.fp8_fp8_half_gemm_fused(paddle.ones([2, 2]), x)
    with pytest.raises(ValueError, match="output_dtype"):
        paddle.linalg.fp8_fp8_half_gemm_fused(x, x, output_dtype="float32")
    with pytest.raises(ValueError, match="activation_type"):
        paddle.linalg.fp8_fp8_half_gemm_fused(x, x, act="swish")
    with pytest.raises(ValueError, match="cannot be multiplied"):
        paddle.linalg.fp8_fp8_half_gemm_fused(x, _fp8(np.ones((3, 2)))[0])


def test_svd_lowrank_is_reproducible_and_subtracts_m():
    rng = np.random.default_rng(2)
    data = rng.normal(size=(8, 3)) @ rng.normal(size=(3, 6))     # rank 3
    x = paddle.to_tensor(data)
    paddle.seed(5)
    first = [t.numpy() for t in paddle.linalg.svd_lowrank(x, q=4, niter=1)]
    paddle.seed(5)
    second = [t.numpy() for t in paddle.linalg.svd_lowrank(x, q=4, niter=1)]
    for a, b in zip(first, second):
        np.testing.assert_array_equal(a, b)
    mean = data.mean(0)
    u, s, v = paddle.linalg.svd_lowrank(x, q=4, M=paddle.to_tensor(mean))
    np.testing.assert_allclose((u.numpy() * s.numpy()) @ v.numpy().T, data - mean, atol=1e-10)
    np.testing.assert_allclose(s.numpy()[:3], np.linalg.svd(data - mean, compute_uv=False)[:3], rtol=1e-10)


def test_quirks_kept_and_dropped():
    rng = np.random.default_rng(4)
    x = paddle.to_tensor(rng.normal(size=(3, 3)))
    # kept: Paddle inverts x @ x^T with all of x, where LAPACK's potri reads one triangle
    np.testing.assert_allclose(paddle.linalg.cholesky_inverse(x).numpy(), np.linalg.inv(x.numpy() @ x.numpy().T),
                               rtol=1e-10)
    # dropped: Paddle's householder_product writes ones onto the diagonal of its input
    a = paddle.to_tensor(rng.normal(size=(4, 3)))
    before = a.numpy().copy()
    paddle.linalg.householder_product(a, paddle.to_tensor(rng.uniform(size=3)))
    np.testing.assert_array_equal(a.numpy(), before)
    # lu_solve: any trans but "N" is a plain transpose, as in Paddle
    lu, pivots = paddle.linalg.lu(x)
    b = paddle.to_tensor(rng.normal(size=(3, 2)))
    for trans in ("T", "C", "whatever"):
        np.testing.assert_allclose(paddle.linalg.lu_solve(b, lu, pivots, trans=trans).numpy(),
                                   np.linalg.solve(x.numpy().T, b.numpy()), rtol=1e-10)


def test_lu_solve_rejects_pivots_outside_the_matrix():
    lu, b = paddle.to_tensor(np.eye(3) * 2), paddle.ones([3, 1], dtype="float64")
    for pivots in ([4, 2, 3], [0, 2, 3], [-5, 2, 3], [2 ** 31 - 1, 1, 1]):
        with pytest.raises(ValueError, match="pivots"):
            paddle.linalg.lu_solve(b, lu, paddle.to_tensor(np.array(pivots, dtype="int32")))


def test_lstsq_in_static_mode_matches_numpy(static_mode):
    # a static Variable has no place; the program's solution is numpy's least-squares solution
    rng = np.random.default_rng(5)
    x_np, y_np = rng.normal(size=(5, 3)), rng.normal(size=(5, 2))
    main = paddle.static.Program()
    with paddle.static.program_guard(main):
        x = paddle.static.data("x", [5, 3], "float64")
        y = paddle.static.data("y", [5, 2], "float64")
        solution = paddle.linalg.lstsq(x, y)[0]
    got = paddle.static.Executor().run(main, feed={"x": x_np, "y": y_np}, fetch_list=[solution])[0]
    np.testing.assert_allclose(got, np.linalg.lstsq(x_np, y_np, rcond=None)[0], rtol=1e-10)
