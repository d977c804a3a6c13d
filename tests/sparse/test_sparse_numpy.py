"""paddle.sparse functions real Paddle has no CPU kernel for (matmul, mv, addmm, masked_matmul, attention) or
that are randomized (pca_lowrank), against NumPy; float64 finite-difference gradients of values; bad input."""
import warnings

import numpy as np
import pytest

import torchpaddle as paddle

sparse = paddle.sparse
F = paddle.sparse.nn.functional
warnings.filterwarnings("ignore", message="Sparse")

A = np.array([[0.0, 1.5, 0.0, -0.5], [2.0, 0.0, -3.0, 0.0], [0.0, 0.0, 0.0, 0.25]])
RNG = np.random.default_rng(0)
B = RNG.uniform(-1, 1, [4, 3])


def _sp(data, layout="coo", stop_gradient=True):
    d = paddle.to_tensor(np.asarray(data, "float64"))
    x = d.to_sparse_coo(d.ndim) if layout == "coo" else d.to_sparse_csr()
    x.stop_gradient = stop_gradient
    return x


def _dense(x):
    return x.to_dense().numpy() if x.is_sparse() else x.numpy()


@pytest.mark.parametrize("layout", ["coo", "csr"])
def test_matmul_sparse_dense_and_grad(layout):
    x = _sp(A, layout, stop_gradient=False)
    y = paddle.to_tensor(B, stop_gradient=False)
    out = sparse.matmul(x, y)
    assert not out.is_sparse()
    np.testing.assert_allclose(out.numpy(), A @ B, rtol=1e-12)
    out.sum().backward()
    # the gradient of a sparse operand lives on its pattern only
    np.testing.assert_allclose(_dense(x.grad), (np.ones([3, 3]) @ B.T) * (A != 0), rtol=1e-12)
    np.testing.assert_allclose(y.grad.numpy(), A.T @ np.ones([3, 3]), rtol=1e-12)


@pytest.mark.parametrize("layout", ["coo", "csr"])
def test_matmul_sparse_sparse_stays_sparse(layout):
    out = sparse.matmul(_sp(A, layout), _sp(B * (np.abs(B) > 0.3), layout))
    assert out.is_sparse() and (out.is_sparse_coo() == (layout == "coo"))
    np.testing.assert_allclose(_dense(out), A @ (B * (np.abs(B) > 0.3)), rtol=1e-12)


def test_matmul_batched_and_dense_sparse():
    batch = np.stack([A, -A])
    out = sparse.matmul(_sp(batch), paddle.to_tensor(np.stack([B, B])))
    np.testing.assert_allclose(out.numpy(), batch @ np.stack([B, B]), rtol=1e-12)
    out = sparse.matmul(paddle.to_tensor(B.T), _sp(A.T))
    np.testing.assert_allclose(out.numpy(), B.T @ A.T, rtol=1e-12)


def test_mv_addmm_masked_matmul():
    v = RNG.uniform(-1, 1, [4])
    np.testing.assert_allclose(sparse.mv(_sp(A, "csr"), paddle.to_tensor(v)).numpy(), A @ v, rtol=1e-12)
    base = RNG.uniform(-1, 1, [3, 3])
    out = sparse.addmm(paddle.to_tensor(base), _sp(A), paddle.to_tensor(B), beta=0.5, alpha=2.0)
    np.testing.assert_allclose(out.numpy(), 0.5 * base + 2.0 * A @ B, rtol=1e-12)
    sb = B * (np.abs(B) > 0.3)
    out = sparse.addmm(_sp(np.eye(3), "csr"), _sp(A, "csr"), _sp(sb, "csr"), beta=3.0, alpha=-1.0)
    assert out.is_sparse_csr()
    np.testing.assert_allclose(_dense(out), 3.0 * np.eye(3) - A @ sb, rtol=1e-12)
    x, y = RNG.uniform(-1, 1, [3, 5]), RNG.uniform(-1, 1, [5, 4])
    for layout in ("coo", "csr"):
        out = sparse.masked_matmul(paddle.to_tensor(x), paddle.to_tensor(y), _sp(A, layout))
        assert out.is_sparse() and out.nnz() == 5
        np.testing.assert_allclose(_dense(out), (x @ y) * (A != 0), rtol=1e-12)


def test_attention_matches_numpy():
    b, h, s, d = 2, 2, 4, 3
    q, k, v = (RNG.uniform(-1, 1, [b, h, s, d]) for _ in range(3))
    keep = np.tril(np.ones([s, s]))
    mask = _sp(np.tile(keep, [b * h, 1, 1]), "csr")
    pad = np.array([[1, 1, 1, 0], [1, 1, 1, 1]], "float64")
    out = F.attention(*(paddle.to_tensor(a) for a in (q, k, v)), mask, key_padding_mask=paddle.to_tensor(pad))
    scores = q @ k.transpose(0, 1, 3, 2) / np.sqrt(d)
    allowed = (keep[None, None] != 0) & (pad[:, None, None, :] != 0)
    scores = np.where(allowed, scores, -np.inf)
    probs = np.exp(scores - scores.max(-1, keepdims=True))
    probs /= probs.sum(-1, keepdims=True)
    np.testing.assert_allclose(out.numpy(), probs @ v, rtol=1e-10)


def test_pca_lowrank_recovers_singular_values():
    data = RNG.uniform(-1, 1, [8, 5]) * (RNG.uniform(size=[8, 5]) > 0.4)
    u, s, v = sparse.pca_lowrank(_sp(data), q=5, center=False, niter=4)
    np.testing.assert_allclose(s.numpy(), np.linalg.svd(data, compute_uv=False), rtol=1e-8)
    np.testing.assert_allclose(u.numpy() @ np.diag(s.numpy()) @ v.numpy().T, data, atol=1e-8)


# -- float64 finite differences of the values --------------------------------------------------------------
def _fd_check(fn, data, layout, eps=1e-6):
    """d sum(w * dense(fn(x))) / d values(x), autograd vs central differences."""
    weights = {}

    def loss(values, track):
        base = _sp(data, layout)
        if layout == "coo":
            x = sparse.sparse_coo_tensor(base.indices(), values, base.shape, stop_gradient=not track)
        else:
            x = sparse.sparse_csr_tensor(base.crows(), base.cols(), values, base.shape, stop_gradient=not track)
        out = fn(x)
        dense = out.to_dense() if out.is_sparse() else out
        if "w" not in weights:
            weights["w"] = paddle.to_tensor(np.random.default_rng(1).uniform(-1, 1, list(dense.shape)))
        return x, (dense * weights["w"]).sum()

    values = _sp(data, layout).values().numpy()
    x, total = loss(paddle.to_tensor(values), True)
    total.backward()
    analytic = x.grad.values().numpy() if x.grad.is_sparse() else x.grad.numpy()
    numeric = np.zeros_like(values)
    for i in range(values.size):
        plus, minus = values.copy(), values.copy()
        plus[i] += eps
        minus[i] -= eps
        numeric[i] = (float(loss(paddle.to_tensor(plus), False)[1]) -
                      float(loss(paddle.to_tensor(minus), False)[1])) / (2 * eps)
    np.testing.assert_allclose(analytic, numeric, rtol=1e-6, atol=1e-8)


POS = np.abs(A) / 4
GRAD_CASES = {
    "sin": lambda x: sparse.sin(x), "sqrt": lambda x: sparse.sqrt(x), "atanh": lambda x: sparse.atanh(x),
    "pow": lambda x: sparse.pow(x, 2.5), "mul_self": lambda x: sparse.multiply(x, x),
    "add_scaled": lambda x: sparse.add(x, sparse.multiply(x, 3.0)),
    "divide": lambda x: sparse.divide(x, sparse.add(x, x)),
    "sum_axis": lambda x: sparse.sum(x, axis=-1, keepdim=True), "sum_all": lambda x: sparse.sum(x),
    "reshape": lambda x: sparse.reshape(x, [2, 6]), "transpose": lambda x: sparse.transpose(x, [1, 0]),
    "slice": lambda x: sparse.slice(x, [1], [1], [4]),
    "softmax": lambda x: F.softmax(x), "leaky_relu": lambda x: F.leaky_relu(sparse.neg(x), 0.3),
    "matmul": lambda x: sparse.matmul(x, paddle.to_tensor(B)),
    "mv": lambda x: sparse.mv(x, paddle.to_tensor(B[:, 0])),
}


@pytest.mark.parametrize("layout", ["coo", "csr"])
@pytest.mark.parametrize("name", sorted(GRAD_CASES))
def test_values_gradient_finite_differences(name, layout):
    if name == "divide":   # x / (x + x) is stored everywhere: nan off the pattern, so densify only the pattern
        fn = GRAD_CASES[name]
        _fd_check(lambda x: sparse.mask_as(fn(x).to_dense(), x), POS + 0.1 * (A != 0), layout)
        return
    _fd_check(GRAD_CASES[name], POS + 0.1 * (A != 0), layout)


def test_hybrid_coo_unary_and_reshape_keep_dense_dims():
    x = sparse.sparse_coo_tensor([[0, 2]], [[1.0, -2.0], [3.0, 0.5]], [3, 2])
    np.testing.assert_allclose(_dense(sparse.abs(x)), np.abs(_dense(x)))
    np.testing.assert_allclose(_dense(sparse.slice(x, [0], [1], [3])), _dense(x)[1:3])


# -- Tensor methods and bad input --------------------------------------------------------------------------
def test_tensor_methods_on_dense_and_sparse():
    d = paddle.to_tensor(A)
    assert not d.is_sparse() and not d.is_sparse_coo() and d.to_dense() is d
    assert d.to_sparse_coo(2).nnz() == 5 and d.to_sparse_csr().nnz() == 5
    assert d.to_sparse_coo(2).is_dense() is False and d.is_dense()
    csr = d.to_sparse_csr()
    np.testing.assert_array_equal(csr.crows().numpy(), [0, 2, 4, 5])
    np.testing.assert_array_equal(csr.cols().numpy(), [1, 3, 0, 2, 3])
    for bad in (lambda: d.values(), lambda: d.nnz(), lambda: csr.indices(), lambda: d.to_sparse_coo(2).crows(),
                lambda: d.to_sparse_coo(0), lambda: paddle.ones([2]).to_sparse_csr()):
        with pytest.raises(ValueError):
            bad()


BAD = [
    (lambda: sparse.sparse_coo_tensor([0, 1], [1.0, 2.0], [3]), ValueError),
    (lambda: sparse.sparse_coo_tensor([[0, -1]], [1.0, 2.0], [3]), ValueError),
    (lambda: sparse.sparse_coo_tensor([[0.5, 1]], [1.0, 2.0], [3]), TypeError),
    (lambda: sparse.sparse_coo_tensor([[0, 1]], [[1.0], [2.0]], [3, 2]), ValueError),
    (lambda: sparse.sparse_csr_tensor([0, 1, 2], [1, 5], [1.0, 2.0], [2, 2]), ValueError),
    (lambda: sparse.sparse_csr_tensor([0, 2, 1], [1, 0], [1.0, 2.0], [2, 2]), ValueError),
    (lambda: sparse.sparse_csr_tensor([0, 1], [0], [1.0], [2, 2]), ValueError),
    (lambda: sparse.add(_sp(A), paddle.to_tensor(A)), TypeError),
    (lambda: sparse.add(_sp(A), _sp(A[:, :3])), ValueError),
    (lambda: sparse.add(_sp(A), _sp(A, "csr")), NotImplementedError),
    (lambda: sparse.sin(paddle.to_tensor(A)), TypeError),
    (lambda: sparse.sin([1.0]), TypeError),
    (lambda: sparse.matmul(_sp(A), paddle.to_tensor(B.T)), ValueError),
    (lambda: sparse.matmul(_sp(A), paddle.to_tensor(B[:, 0])), ValueError),
    (lambda: sparse.mv(_sp(A), paddle.to_tensor(B[:3, 0])), ValueError),
    (lambda: sparse.masked_matmul(paddle.to_tensor(B), paddle.to_tensor(B.T), _sp(A)), ValueError),
    (lambda: sparse.masked_matmul(_sp(A), paddle.to_tensor(B), _sp(A)), TypeError),
    (lambda: sparse.sum(_sp(A), axis=2), ValueError),
    (lambda: sparse.sum(_sp(A, "csr"), axis=0), ValueError),
    (lambda: sparse.reshape(_sp(A), [5, -1]), ValueError),
    (lambda: sparse.reshape(_sp(A), [-1, -1]), ValueError),
    (lambda: sparse.transpose(_sp(A), [0, 0]), ValueError),
    (lambda: sparse.transpose(_sp(A), [0]), ValueError),
    (lambda: sparse.slice(_sp(A), [0, 1], [0], [1]), ValueError),
    (lambda: sparse.slice(_sp(A), [3], [0], [1]), ValueError),
    (lambda: sparse.mask_as(paddle.to_tensor(B), _sp(A)), ValueError),
    (lambda: sparse.mask_as(_sp(A), _sp(A)), TypeError),
    (lambda: sparse.cast(_sp(A), index_dtype="float32"), TypeError),
    (lambda: F.softmax(_sp(A, "csr"), axis=0), ValueError),
    (lambda: F.conv3d(_sp(np.ones([1, 2, 2, 2, 1])), paddle.ones([3, 3, 3, 1, 2])), ValueError),
    (lambda: F.conv3d(paddle.ones([1, 2, 2, 2, 1]).to_sparse_coo(4), paddle.ones([3, 3, 3, 2, 2])), ValueError),
    (lambda: F.conv2d(paddle.ones([1, 2, 2, 1]).to_sparse_coo(3), paddle.ones([3, 3, 1, 2]),
                      data_format="NCHW"), ValueError),
    (lambda: F.subm_conv3d(paddle.ones([1, 2, 2, 2, 1]).to_sparse_coo(4), paddle.ones([3, 3, 3, 1, 2]),
                           stride=2), ValueError),
    (lambda: F.max_pool3d(paddle.ones([1, 2, 2, 2, 1]).to_sparse_coo(4), [2, 2]), ValueError),
    (lambda: paddle.sparse.nn.BatchNorm(3)(paddle.ones([1, 2, 2, 2, 2]).to_sparse_coo(4)), ValueError),
    (lambda: paddle.sparse.nn.Conv3D(4, 2, 3, groups=2), ValueError),
    (lambda: F.conv3d(paddle.ones([1, 2, 2, 2, 2]).to_sparse_coo(4), paddle.ones([1, 1, 1, 1, 2]), groups=2),
     ValueError),
    (lambda: F.attention(paddle.ones([1, 1, 2, 2]), paddle.ones([1, 1, 2, 2]), paddle.ones([1, 1, 2, 2]),
                         _sp(np.ones([2, 2, 2]), "csr")), ValueError),
]


@pytest.mark.parametrize("case", range(len(BAD)))
def test_bad_input_raises(case):
    fn, error = BAD[case]
    with pytest.raises(error):
        fn()


def test_subm_conv_keeps_input_sites_and_conv_grows_them():
    dense = np.zeros([1, 5, 5, 5, 2])
    dense[0, 2, 2, 2] = [1.0, -1.0]
    dense[0, 0, 4, 1] = [0.5, 2.0]
    x = paddle.to_tensor(dense).to_sparse_coo(4)
    w = paddle.to_tensor(np.random.default_rng(4).uniform(-1, 1, [3, 3, 3, 2, 3]))
    subm = F.subm_conv3d(x, w)
    np.testing.assert_array_equal(subm.coalesce().indices().numpy(), x.coalesce().indices().numpy())
    full = F.conv3d(x, w, padding=1)
    # a 3x3x3 neighbourhood each, the edge site's cut to 2x2x3 = 12, and the two share 2 sites
    assert full.nnz() == 27 + 12 - 2
    # at an isolated site the conv sees only its own voxel: the kernel's centre tap
    np.testing.assert_allclose(subm.to_dense().numpy()[0, 2, 2, 2], dense[0, 2, 2, 2] @ w.numpy()[1, 1, 1])


def test_static_variables_are_refused(static_mode):
    x = paddle.static.data("x", [2, 3], "float32")
    mask = sparse.sparse_coo_tensor([[0], [1]], [1.0], [2, 3])
    for bad in (lambda: sparse.sin(x), lambda: sparse.mask_as(x, mask), lambda: x.to_sparse_coo(2),
                lambda: x.to_sparse_csr()):
        with pytest.raises(TypeError, match="dynamic mode"):
            bad()
