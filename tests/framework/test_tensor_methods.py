"""Tensor methods beyond the functions: dtype conversions, torch-style aliases, storage queries, fills
(expected values observed in PaddlePaddle 3.3.1)."""
import numpy as np
import pytest

import torchpaddle as paddle


@pytest.mark.parametrize("method,dtype", [("float", "float32"), ("double", "float64"), ("half", "float16"),
                                          ("int", "int32"), ("long", "int64"), ("bool", "bool"),
                                          ("byte", "uint8"), ("char", "int8"), ("short", "int16"),
                                          ("cfloat", "complex64"), ("float64", "float64")])
def test_cast_methods(method, dtype):
    x = paddle.to_tensor([[1.5, 2.0], [3.0, 0.0]])
    out = getattr(x, method)()
    assert out.dtype == getattr(paddle, dtype)
    np.testing.assert_array_equal(out.numpy(), np.array([[1.5, 2.0], [3.0, 0.0]]).astype(dtype))


def test_shape_aliases_match_numpy():
    a = np.arange(6.0).reshape(2, 3)
    x = paddle.to_tensor(a)
    np.testing.assert_array_equal(x.permute(1, 0).numpy(), a.T)
    np.testing.assert_array_equal(x.permute([1, 0]).numpy(), a.T)
    np.testing.assert_array_equal(x.repeat(2, 1).numpy(), np.tile(a, (2, 1)))
    np.testing.assert_array_equal(x.swapaxes(0, 1).numpy(), a.swapaxes(0, 1))
    np.testing.assert_array_equal(x.narrow(1, 1, 2).numpy(), a[:, 1:3])
    np.testing.assert_array_equal(x.ravel().numpy(), a.ravel())
    assert x.unflatten(1, [3, 1]).shape == [2, 3, 1]
    assert x.type_as(paddle.to_tensor([1])).dtype == paddle.int64


def test_storage_queries_and_fills():
    x = paddle.to_tensor([[1.0, 2.0], [3.0, 4.0]], place=paddle.CPUPlace())
    assert x.strides == [2, 1] and x.get_strides() == [2, 1] and x.stride(0) == 2 and x.is_contiguous()
    assert x.itemsize == 4 and x.is_cuda is False and x.device == "cpu"
    y = x.clone()
    v = y.inplace_version
    assert y.zero_() is y and y.numpy().sum() == 0 and y.inplace_version > v
    assert y.fill_(3).numpy().tolist() == [[3.0, 3.0], [3.0, 3.0]]
    assert x.new_zeros([3]).dtype == paddle.float32 and x.new_full([2], 5).numpy().tolist() == [5.0, 5.0]
    assert not x.requires_grad
    x.requires_grad_()
    assert x.requires_grad and not x.stop_gradient


# what Paddle 3.3.1 gives for x = paddle.ones([2, 3], "float64")
@pytest.mark.parametrize("call,shape,dtype", [
    (lambda x: x.new_ones(3, 3), [3, 3], "float64"), (lambda x: x.new_ones([3, 3]), [3, 3], "float64"),
    (lambda x: x.new_ones((3, 3)), [3, 3], "float64"), (lambda x: x.new_ones(3), [3], "float64"),
    (lambda x: x.new_ones([]), [], "float64"), (lambda x: x.new_ones(3, 3, dtype="int32"), [3, 3], "int32"),
    (lambda x: x.new_ones(size=[3, 3]), [3, 3], "float64"),
    (lambda x: x.new_ones(paddle.to_tensor([3, 3])), [3, 3], "float64"),
    (lambda x: x.new_ones(3, paddle.to_tensor(3)), [3, 3], "float64"),
    (lambda x: x.new_zeros(2, 3), [2, 3], "float64"), (lambda x: x.new_empty(2, 3), [2, 3], "float64"),
    (lambda x: x.new_empty((2, 3), dtype="int64"), [2, 3], "int64"),
    (lambda x: x.new_full([2, 3], 7), [2, 3], "float64"), (lambda x: x.new_full(2, 7), [2], "float64"),
    (lambda x: x.new_full((2, 3), 7.5, dtype="float32"), [2, 3], "float32"),
    (lambda x: x.new_full(size=[2], fill_value=7), [2], "float64"),
    (lambda x: x.new_ones(3, 3, device="cpu"), [3, 3], "float64"),
])
def test_new_factories_take_dims_or_a_shape(call, shape, dtype):
    out = call(paddle.ones([2, 3], "float64"))
    assert out.shape == shape and out.dtype == getattr(paddle, dtype) and out.stop_gradient


def test_new_factories_values_keywords_and_errors():
    x = paddle.ones([2], "float32")
    assert x.new_zeros(2, 2).tolist() == [[0.0, 0.0], [0.0, 0.0]]
    assert x.new_full([2], 7).tolist() == [7.0, 7.0]
    assert not x.new_zeros(2, 3, requires_grad=True).stop_gradient
    with pytest.raises(TypeError, match="size"):
        x.new_ones()
    with pytest.raises(TypeError, match="fill_value"):
        x.new_full([2])
    with pytest.raises(TypeError):
        x.new_ones(3.0)


def test_stride_is_a_list_like_paddle():
    y = paddle.ones([2, 3, 4])
    assert y.stride() == [12, 4, 1] and isinstance(y.stride(), list)
    assert y.stride(1) == 4 and y.stride(-1) == 1
    assert y.transpose([2, 0, 1]).stride() == [1, 12, 4]
    assert paddle.ones([]).stride() == []


def test_grad_is_a_leaf_that_does_not_stop_gradient():
    # Paddle 3.3.1: x.grad has stop_gradient=False, is_leaf=True, persistable=False
    w = paddle.ones([2])
    w.stop_gradient = False
    (w * 2).sum().backward()
    g = w.grad
    assert g.stop_gradient is False and g.is_leaf and not g.persistable
    assert g.tolist() == [2.0, 2.0] and g.grad is None
    assert paddle.to_tensor([1.0]).stop_gradient   # untouched elsewhere


def test_comparison_aliases_and_bad_operands():
    x = paddle.to_tensor([1.0, 2.0, 3.0])
    y = paddle.to_tensor([2.0, 2.0, 2.0])
    assert x.eq(y).numpy().tolist() == [False, True, False]
    assert x.gt(y).numpy().tolist() == [False, False, True]
    assert x.le(y).numpy().tolist() == [True, True, False]
    with pytest.raises((TypeError, ValueError)):
        x.eq("text")
