"""Tensor indexing (``x[...]``, ``x[...] = v``) against NumPy, gradients, views, in-place shape functions, and
the same cases on real PaddlePaddle 3.3.1 (tests/tensor/indexing_cases.py)."""
import builtins

import numpy as np
import pytest

import torchpaddle as paddle
import paddle_ref
from tests.tensor import indexing_cases as cases


# -- values against NumPy -----------------------------------------------------------------------------------

@pytest.mark.parametrize("name,shape,index", cases.GETITEM + cases.GETITEM_OURS_ONLY,
                         ids=[c[0] for c in cases.GETITEM + cases.GETITEM_OURS_ONLY])
def test_getitem_matches_numpy(name, shape, index):
    ours = cases.do_getitem(paddle, shape, index)
    expected = cases.expected_getitem(shape, index)
    assert list(ours.shape) == list(expected.shape)
    np.testing.assert_array_equal(ours.numpy(), expected)
    assert ours.dtype == paddle.float32


@pytest.mark.parametrize("name,shape,dtype,index,value", cases.SETITEM, ids=[c[0] for c in cases.SETITEM])
def test_setitem_matches_numpy(name, shape, dtype, index, value):
    ours = cases.do_setitem(paddle, shape, dtype, index, value)
    expected = cases.expected_setitem(shape, dtype, index, value)
    assert str(ours.dtype) == f"paddle.{dtype}"
    np.testing.assert_array_equal(ours.numpy(), expected)


@pytest.mark.parametrize("name,shape,index,exc", cases.GETITEM_ERRORS + cases.GETITEM_ERRORS_OURS_ONLY,
                         ids=[c[0] for c in cases.GETITEM_ERRORS + cases.GETITEM_ERRORS_OURS_ONLY])
def test_getitem_errors(name, shape, index, exc):
    with pytest.raises(getattr(builtins, exc)):
        cases.do_getitem(paddle, shape, index)


@pytest.mark.parametrize("name,shape,index,value,exc", cases.SETITEM_ERRORS + cases.SETITEM_ERRORS_OURS_ONLY,
                         ids=[c[0] for c in cases.SETITEM_ERRORS + cases.SETITEM_ERRORS_OURS_ONLY])
def test_setitem_errors(name, shape, index, value, exc):
    x = paddle.to_tensor(cases.base(shape))
    before = x.numpy().copy()
    with pytest.raises(getattr(builtins, exc)):
        x[cases.tensor_args(paddle, index, None, [])] = cases.tensor_args(paddle, value, None, [])
    np.testing.assert_array_equal(x.numpy(), before)   # a failed assignment leaves the tensor alone


def test_getitem_basic_index_is_a_view_and_advanced_is_a_copy():
    x = paddle.zeros([2, 3])
    row, col, picked = x[0], x[:, 1], x[[0]]
    row[0] = 9.0
    col[1] = 7.0
    picked[0] = 5.0
    np.testing.assert_array_equal(x.numpy(), [[9.0, 0.0, 0.0], [0.0, 7.0, 0.0]])


# -- gradients ------------------------------------------------------------------------------------------------

def _index_grad(shape, index, weights):
    grad = np.zeros(shape)
    np.add.at(grad, index, weights)
    return grad


@pytest.mark.parametrize("index", [(slice(None), slice(None, None, -1), 1), ([0, 1, 0], slice(None), [1, 2, 1]),
                                   (None, Ellipsis, slice(1, 3)), (slice(None, None, -2), [2, 0]), 1])
def test_getitem_gradient(index):
    x = paddle.to_tensor(cases.base((2, 3, 4), "float64"), stop_gradient=False)
    y = x[index]
    assert not y.stop_gradient
    w = np.arange(y.size).reshape(y.shape) + 1.0
    (y * paddle.to_tensor(w)).sum().backward()
    np_index = tuple(i for i in (index if isinstance(index, tuple) else (index,)) if i is not None)
    np.testing.assert_allclose(x.grad.numpy(), _index_grad((2, 3, 4), np_index, np.asarray(w).reshape(
        np.zeros((2, 3, 4))[np_index].shape)))


def test_getitem_mask_gradient():
    x = paddle.to_tensor(cases.base((3, 4), "float64"), stop_gradient=False)
    mask = cases.base((3, 4)) % 3 == 0
    y = x[paddle.to_tensor(mask)]
    (y * paddle.to_tensor(np.arange(1.0, y.size + 1))).sum().backward()
    expected = np.zeros((3, 4))
    expected[mask] = np.arange(1.0, mask.sum() + 1)
    np.testing.assert_allclose(x.grad.numpy(), expected)


@pytest.mark.parametrize("index,value_shape", [(1, (4,)), ((slice(None), slice(None, None, -2)), (2,)),
                                               (slice(0, 2), (1, 4)), (([0, 2], [1, 3]), (2,)),
                                               (np.arange(12).reshape(3, 4) > 7, (4,))])
def test_setitem_gradient(index, value_shape):
    x = paddle.to_tensor(cases.base((3, 4), "float64"), stop_gradient=False)
    v = paddle.to_tensor(np.full(value_shape, 0.5), stop_gradient=False)
    y = x * 2
    y[index] = v
    assert not y.stop_gradient
    w = np.arange(12.0).reshape(3, 4) + 1
    (y * paddle.to_tensor(w)).sum().backward()
    written = np.zeros((3, 4), bool)
    written[index] = True
    np.testing.assert_allclose(x.grad.numpy(), np.where(written, 0.0, 2 * w))
    np.testing.assert_allclose(v.grad.numpy(), _reduce_to(w[index], value_shape))


def _reduce_to(grad, shape):
    """Sum a gradient over the dims a value of ``shape`` was broadcast along."""
    while grad.ndim > len(shape):
        grad = grad.sum(0)
    for i, size in enumerate(shape):
        if size == 1 and grad.shape[i] != 1:
            grad = grad.sum(i, keepdims=True)
    return grad


def test_setitem_on_leaf_that_needs_grad():
    x = paddle.ones([3])
    x.stop_gradient = False
    with pytest.raises(ValueError):
        x[1] = 5.0
    with paddle.no_grad():
        x[1] = 5.0
    np.testing.assert_array_equal(x.numpy(), [1.0, 5.0, 1.0])
    assert not x.stop_gradient and x.is_leaf


def test_setitem_differentiable_value_into_constant():
    z = paddle.zeros([3, 4], dtype="float64")
    v = paddle.to_tensor([1.0, 2.0, 3.0, 4.0], dtype="float64", stop_gradient=False)
    z[1] = v
    assert not z.stop_gradient
    (z * 2).sum().backward()
    np.testing.assert_array_equal(v.grad.numpy(), [2.0] * 4)


# -- in-place shape functions -----------------------------------------------------------------------------------

@pytest.mark.parametrize("fn,args,shape", [(paddle.reshape_, ([3, 2],), [3, 2]), (paddle.squeeze_, (), [2, 3]),
                                           (paddle.unsqueeze_, (0,), [1, 2, 1, 3]),
                                           (paddle.flatten_, (), [6]), (paddle.t_, (), None),
                                           (paddle.transpose_, ([2, 1, 0],), [3, 1, 2])])
def test_inplace_shape_functions(fn, args, shape):
    base = paddle.arange(6, dtype="float32").reshape([2, 1, 3])
    x = base if fn is not paddle.t_ else base.reshape([2, 3])
    storage = x.data_ptr()
    out = fn(x, *args)
    assert out is x
    assert list(x.shape) == (shape if shape is not None else [3, 2])
    if fn in (paddle.reshape_, paddle.squeeze_, paddle.unsqueeze_, paddle.flatten_):
        assert x.data_ptr() == storage            # still the same memory, as in Paddle
    leaf = paddle.ones([2, 1, 3] if fn is not paddle.t_ else [2, 3])
    leaf.stop_gradient = False
    with pytest.raises(ValueError):
        fn(leaf, *args)
    with paddle.no_grad():
        fn(leaf, *args)
    assert not leaf.stop_gradient


def test_inplace_shape_function_keeps_gradient_flow():
    a = paddle.ones([3], dtype="float64")
    a.stop_gradient = False
    b = a * 2
    assert paddle.unsqueeze_(b, 0) is b and list(b.shape) == [1, 3]
    (b * paddle.to_tensor([[1.0, 2.0, 3.0]], dtype="float64")).sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), [2.0, 4.0, 6.0])


def test_inplace_same_shape_functions_write_storage():
    x = paddle.zeros([3, 2])
    view = x[0]
    assert paddle.scatter_(x, paddle.to_tensor([0]), paddle.ones([1, 2])) is x
    np.testing.assert_array_equal(view.numpy(), [1.0, 1.0])
    assert x.masked_fill_(paddle.to_tensor([[False, True]] * 3), 7.0) is x
    np.testing.assert_array_equal(x.numpy(), [[1.0, 7.0], [0.0, 7.0], [0.0, 7.0]])
    y = paddle.zeros([2, 3], dtype="int64")
    assert y.put_along_axis_(paddle.to_tensor([[1], [2]]), paddle.to_tensor([[5], [6]]), 1) is y
    np.testing.assert_array_equal(y.numpy(), [[0, 5, 0], [0, 0, 6]])


def test_scatter_gradient_follows_paddle_with_repeated_indices():
    # Paddle: the x rows written are cut off; every update (overwritten or not) gets its row's gradient.
    x = paddle.to_tensor([[1.0, 1.0], [2.0, 2.0], [3.0, 3.0]], stop_gradient=False)
    u = paddle.to_tensor([[1.0, 1.0], [2.0, 2.0], [3.0, 3.0], [4.0, 4.0]], stop_gradient=False)
    w = paddle.to_tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    for overwrite, value in ((True, [[3, 3], [4, 4], [1, 1]]), (False, [[3, 3], [6, 6], [1, 1]])):
        out = paddle.scatter(x, paddle.to_tensor([2, 1, 0, 1]), u, overwrite=overwrite)
        np.testing.assert_array_equal(out.numpy(), value)
        (out * w).sum().backward()
        np.testing.assert_array_equal(x.grad.numpy(), np.zeros((3, 2)))
        np.testing.assert_array_equal(u.grad.numpy(), [[5, 6], [3, 4], [1, 2], [3, 4]])
        x.clear_grad()
        u.clear_grad()


# -- the same cases on real Paddle ---------------------------------------------------------------------------

@pytest.fixture(scope="module")
def reference():
    return paddle_ref.results("tests.tensor.indexing_cases")


def _compare(ours, theirs, where):
    if isinstance(theirs, tuple) and theirs and theirs[0] == "E":
        assert ours[0] == "E" and theirs[1][0] in ours[1], f"{where}: Paddle raises {theirs[1][0]}, ours {ours}"
    elif isinstance(theirs, tuple) and theirs and theirs[0] == "T":
        assert ours[0] == "T", f"{where}: ours {ours}"
        assert ours[2:] == theirs[2:], f"{where}: (dtype, stop_gradient) ours {ours[2:]}, Paddle {theirs[2:]}"
        assert ours[1].shape == theirs[1].shape, f"{where}: shape {ours[1].shape} vs Paddle {theirs[1].shape}"
        np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-6, err_msg=where)
    elif isinstance(theirs, dict):
        assert sorted(ours) == sorted(theirs), where
        for key in theirs:
            _compare(ours[key], theirs[key], f"{where}.{key}")
    elif isinstance(theirs, (list, tuple)) and theirs and isinstance(theirs[0], tuple):
        for i, (a, b) in enumerate(zip(ours, theirs)):
            _compare(a, b, f"{where}[{i}]")
    else:
        assert ours == theirs, f"{where}: ours {ours}, Paddle {theirs}"


@pytest.fixture(scope="module")
def ours():
    return cases.run_all(paddle)


@pytest.mark.conformance
def test_indexing_matches_real_paddle(reference, ours):
    assert sorted(ours) == sorted(reference)
    for name in sorted(reference):
        _compare(ours[name], reference[name], name)
