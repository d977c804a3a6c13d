"""The names Paddle 3.x added to ``paddle.*`` and ``paddle.Tensor``: each call in tests/tensor/surface_cases.py
compared with real Paddle 3.3.1 (values, dtypes, shapes, error classes), plus hand-worked checks that run
without the reference."""
import math

import numpy as np
import pytest

import torchpaddle as paddle
import paddle_ref
from tests.tensor import surface_cases as cases

# (sparse-only Tensor methods, nnz(), indices()..., belong to paddle.sparse and its tests)
_ERROR_CLASS_DIFFERS = {}
_WE_ANSWER = set()


def _close(ours, theirs):
    if ours[0] != theirs[0]:
        return False
    if theirs[0] == "tensor":
        if ours[1:3] != theirs[1:3]:
            return False
        return np.allclose(np.asarray(ours[3], dtype=complex), np.asarray(theirs[3], dtype=complex), rtol=1e-5,
                           atol=1e-6, equal_nan=True)
    if theirs[0] == "seq":
        return len(ours[1]) == len(theirs[1]) and all(_close(o, t) for o, t in zip(ours[1], theirs[1]))
    return ours[1] == theirs[1] or str(ours[1]) == str(theirs[1])


def _compare(ours, theirs, name):
    if theirs[0] == "error" and name in _WE_ANSWER:
        assert ours[0] == "ok", f"{name}: we should answer, we raise {ours}"
    elif theirs[0] == "error":
        assert ours[0] == "error", f"{name}: Paddle raises {theirs[1]} ({theirs[3]}), we return {ours}"
        expected = _ERROR_CLASS_DIFFERS.get(name, (theirs[1], theirs[1]))
        assert expected[0] == theirs[1] and expected[1] in ours[2], \
            f"{name}: Paddle raises {theirs[1]}, we raise {ours[1]}: {ours[3]}"
    else:
        assert ours[0] == "ok", f"{name}: Paddle returns {theirs[1]}, we raise {ours[1]}: {ours[3]}"
        assert _close(ours[1], theirs[1]), f"{name}: ours {ours[1]}, Paddle {theirs[1]}"


reference, ours, test_matches_real_paddle = paddle_ref.case_table(
    "tests.tensor.surface_cases", cases._cases(paddle), lambda: cases.run(paddle), _compare)


def test_special_functions_hand_worked():
    x = paddle.to_tensor([0.0, 1.0, 2.0], dtype="float64")
    np.testing.assert_allclose(paddle.i0(x).numpy(), np.i0([0.0, 1.0, 2.0]), rtol=1e-12)
    np.testing.assert_allclose(paddle.i0e(x).numpy(), np.i0([0.0, 1.0, 2.0]) * np.exp(-np.array([0.0, 1, 2])),
                               rtol=1e-12)
    np.testing.assert_allclose(paddle.gammaln(x + 1).numpy(), [math.lgamma(v) for v in (1.0, 2.0, 3.0)])
    # trigamma(1) = pi^2 / 6
    assert paddle.polygamma(paddle.to_tensor([1.0], dtype="float64"), 1).item() == pytest.approx(math.pi ** 2 / 6)
    # P(1, x) = 1 - exp(-x)
    np.testing.assert_allclose(paddle.gammainc(paddle.ones([3], "float64"), x).numpy(), 1 - np.exp(-x.numpy()))
    np.testing.assert_allclose(paddle.gammaincc(paddle.ones([3], "float64"), x).numpy(), np.exp(-x.numpy()))
    mant, expo = paddle.frexp(paddle.to_tensor([8.0, -0.75]))
    np.testing.assert_array_equal(mant.numpy(), [0.5, -0.75])
    np.testing.assert_array_equal(expo.numpy(), [4.0, 0.0])
    np.testing.assert_array_equal(paddle.ldexp(paddle.to_tensor([0.5, 3.0]), paddle.to_tensor([4, -1])).numpy(),
                                  [8.0, 1.5])


def test_aliases_hand_worked():
    x = paddle.to_tensor([7.0, -7.0])
    np.testing.assert_array_equal(paddle.div(x, paddle.to_tensor([2.0, 2.0]), rounding_mode="floor").numpy(),
                                  [3.0, -4.0])
    np.testing.assert_array_equal(paddle.div(x, paddle.to_tensor([2.0, 2.0]), rounding_mode="trunc").numpy(),
                                  [3.0, -3.0])
    np.testing.assert_array_equal(paddle.range(1, 2, 0.5).numpy(), [1.0, 1.5, 2.0])
    arr = np.arange(3.0)
    shared = paddle.from_numpy(arr)
    arr[0] = 9.0
    assert shared.numpy()[0] == 9.0   # shares memory
    assert paddle.iinfo(paddle.int8).max == 127 and paddle.finfo("float64").eps == np.finfo(np.float64).eps
    assert paddle.broadcast_shapes([2, 1], [1, 3]) == [2, 3]
    assert paddle.newaxis is None and paddle.pi == math.pi


@pytest.mark.parametrize("call, exc", [
    (lambda: paddle.div(paddle.ones([2]), paddle.ones([2]), rounding_mode="up"), ValueError),
    (lambda: paddle.from_numpy([1, 2]), TypeError),
    (lambda: paddle.finfo(paddle.int32), ValueError),
    (lambda: paddle.iinfo(paddle.float32), ValueError),
    (lambda: paddle.range(0, 3, 0), ValueError),
    (lambda: paddle.broadcast_shape([2, 2], [3]), ValueError),
    (lambda: paddle.scatter_reduce(paddle.ones([2]), 0, paddle.to_tensor([0]), paddle.ones([1]), "max"), ValueError),
    (lambda: paddle.polygamma(paddle.ones([2]), 1.5), TypeError),
    (lambda: paddle.bincount(paddle.to_tensor([-1, 2])), ValueError),
    (lambda: paddle.vander(paddle.ones([2, 2])), ValueError),
    (lambda: paddle.combinations(paddle.ones([2, 2])), TypeError),
    (lambda: paddle.block_diag(3), TypeError),
    (lambda: paddle.trapezoid(paddle.ones([3]), x=paddle.ones([3]), dx=1.0), ValueError),
    (lambda: paddle.cdist(paddle.ones([2, 3]), paddle.ones([2, 3]), compute_mode="fast"), ValueError),
    (lambda: paddle.histogramdd(paddle.ones([3, 2]), bins=[2, 2, 2]), ValueError),
    (lambda: paddle.XPUPinnedPlace(), RuntimeError),
    (lambda: paddle.FloatTensor(2, "a"), TypeError),
])
def test_bad_arguments(call, exc):
    with pytest.raises(exc):
        call()


def test_dense_tensor_in_place_special_functions():
    x = paddle.to_tensor([1.0, 2.0], dtype="float64")
    y = x.gammaln_()
    assert y is x
    np.testing.assert_allclose(x.numpy(), [0.0, 0.0], atol=1e-12)
    assert paddle.polygamma_ is not None and paddle.Tensor.multigammaln_ is not None
