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
    x = paddle.to_tensor([[1.0, 2.0], [3.0, 4.0]])
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


def test_comparison_aliases_and_bad_operands():
    x = paddle.to_tensor([1.0, 2.0, 3.0])
    y = paddle.to_tensor([2.0, 2.0, 2.0])
    assert x.eq(y).numpy().tolist() == [False, True, False]
    assert x.gt(y).numpy().tolist() == [False, False, True]
    assert x.le(y).numpy().tolist() == [True, True, False]
    with pytest.raises((TypeError, ValueError)):
        x.eq("text")
