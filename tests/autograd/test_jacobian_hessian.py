"""paddle.autograd.jacobian / hessian: shapes as in PaddlePaddle 3.3.1, values against finite differences."""
import numpy as np
import pytest

import torchpaddle as paddle
from torchpaddle.autograd import Hessian, Jacobian, hessian, jacobian


def leaf(values):
    return paddle.to_tensor(values, dtype="float64", stop_gradient=False)


def numeric_jacobian(f, x, eps=1e-6):
    x = np.asarray(x, dtype=np.float64)
    cols = []
    for i in range(x.size):
        hi, lo = x.copy().reshape(-1), x.copy().reshape(-1)
        hi[i] += eps
        lo[i] -= eps
        cols.append((np.asarray(f(hi.reshape(x.shape))) - np.asarray(f(lo.reshape(x.shape)))).reshape(-1) / (2 * eps))
    return np.stack(cols, axis=-1)


def test_jacobian_values_and_lazy_indexing():
    xv = np.array([0.5, -1.0, 2.0])
    x = leaf(xv)
    y = paddle.sin(x) * x[0] + x * x
    J = jacobian(y, x)
    assert isinstance(J, Jacobian) and J.shape == [3, 3] and J._value is None
    expected = numeric_jacobian(lambda v: np.sin(v) * v[0] + v * v, xv)
    np.testing.assert_allclose(J[:].numpy(), expected, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(J[1].numpy(), expected[1], rtol=1e-6)
    np.testing.assert_allclose(J[:, 2].numpy(), expected[:, 2], rtol=1e-6)
    np.testing.assert_allclose(J[0:2, 1:].numpy(), expected[0:2, 1:], rtol=1e-6)
    assert not J[:].stop_gradient
    with pytest.raises(IndexError):
        J[5]


@pytest.mark.parametrize("ys_shape, xs_shape, batched, shape", [
    ([3], [2], False, [3, 2]),
    ([], [2], False, [2]),
    ([3], [], False, [3]),
    ([], [], False, []),
    ([4, 3], [4, 2], True, [4, 3, 2]),
    ([4], [4, 2], True, [4, 2]),
    ([4, 3], [4], True, [4, 3]),
    ([4], [4], True, [4]),
])
def test_jacobian_shapes(ys_shape, xs_shape, batched, shape):
    rng = np.random.default_rng(0)
    x = leaf(rng.normal(size=xs_shape))
    # ys depends on every element of x (per batch row when batched), but not linearly.
    if batched:
        base = (x * x).reshape([xs_shape[0], -1]).sum(1)
        y = paddle.to_tensor(rng.normal(size=ys_shape)) * base.reshape([-1] + [1] * (len(ys_shape) - 1))
    else:
        y = paddle.to_tensor(rng.normal(size=ys_shape)) * (x * x).sum()
    J = jacobian(y, x, batch_axis=0 if batched else None)
    assert J.shape == shape
    if shape:
        assert J[:].shape == shape


def test_batched_jacobian_values():
    xv = np.array([[1.0, 2.0], [3.0, -1.0], [0.5, 0.25]])
    x = leaf(xv)
    y = paddle.stack([x[:, 0] * x[:, 1], x[:, 0] * x[:, 0], paddle.sin(x[:, 1])], axis=1)
    J = jacobian(y, x, batch_axis=0)
    assert J.shape == [3, 3, 2]
    for b in range(3):
        expected = numeric_jacobian(lambda v: np.array([v[0] * v[1], v[0] ** 2, np.sin(v[1])]), xv[b])
        np.testing.assert_allclose(J[b].numpy(), expected, rtol=1e-6, atol=1e-8)


def test_jacobian_structures_and_unrelated_inputs():
    x, w = leaf([1.0, 2.0, 3.0]), leaf([1.0, 2.0])
    by_ys = jacobian([x * x, x * 3.0], x)
    by_xs = jacobian(x * x, [x, w])
    both = jacobian([x * x, x * 3.0], (x, w))
    assert isinstance(by_ys, tuple) and len(by_ys) == 2 and isinstance(by_xs, tuple) and len(by_xs) == 2
    assert isinstance(both, tuple) and [len(r) for r in both] == [2, 2]
    np.testing.assert_allclose(by_ys[1][:].numpy(), 3.0 * np.eye(3))
    unrelated = by_xs[1][:]
    assert unrelated.shape == [3, 2] and not unrelated.numpy().any() and not unrelated.stop_gradient
    constant = jacobian(x * 2.0, paddle.to_tensor([1.0], dtype="float64"))[:]
    assert not constant.numpy().any() and constant.stop_gradient


def test_hessian_values():
    xv = np.array([0.5, -1.0, 2.0])
    x = leaf(xv)
    H = hessian((x * x * x).sum() + x[0] * x[1], x)
    assert isinstance(H, Hessian) and H.shape == [3, 3]
    expected = np.diag(6.0 * xv)
    expected[0, 1] = expected[1, 0] = 1.0
    np.testing.assert_allclose(H[:].numpy(), expected, rtol=1e-10)


def test_hessian_of_list_and_batched():
    x, w = leaf([1.0, 2.0, 3.0]), leaf([1.0, 2.0])
    H = hessian((x * x * x).sum() + (w * w).sum() * (x * x).sum(), [x, w])
    np.testing.assert_allclose(H[0][0][:].numpy(), np.diag([16.0, 22.0, 28.0]))
    np.testing.assert_allclose(H[0][1][:].numpy(), 4.0 * np.outer([1.0, 2.0, 3.0], [1.0, 2.0]))
    np.testing.assert_allclose(H[1][0][:].numpy(), H[0][1][:].numpy().T)
    np.testing.assert_allclose(H[1][1][:].numpy(), 28.0 * np.eye(2))
    xb = leaf([[1.0, 2.0, 3.0], [3.0, 4.0, 5.0]])
    for ys in ((xb * xb * xb).sum(1), (xb * xb * xb).sum(1, keepdim=True)):
        Hb = hessian(ys, xb, batch_axis=0)
        assert Hb.shape == [2, 3, 3]
        np.testing.assert_allclose(Hb[:].numpy(), np.stack([np.diag(6.0 * r) for r in xb.numpy()]))


@pytest.mark.parametrize("call, error", [
    (lambda x, xb: jacobian(xb * xb, xb), ValueError),                       # 2-D without batch_axis
    (lambda x, xb: jacobian(xb * xb, xb, batch_axis=1), ValueError),
    (lambda x, xb: jacobian(paddle.ones([2, 2, 2], dtype="float64") * xb, xb, batch_axis=0), ValueError),
    (lambda x, xb: jacobian(3, x), TypeError),
    (lambda x, xb: jacobian(x, "x"), TypeError),
    (lambda x, xb: hessian(x * x, x), ValueError),                           # ys not a scalar
    (lambda x, xb: hessian(xb[:, :2], xb, batch_axis=0), ValueError),
    (lambda x, xb: hessian([x.sum()], x), TypeError),
])
def test_errors(call, error):
    with pytest.raises(error):
        call(leaf([1.0, 2.0]), leaf([[1.0, 2.0], [3.0, 4.0]]))
