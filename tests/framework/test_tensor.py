"""The Tensor class: properties, conversion, autograd flags, Python protocol (values checked against NumPy and
behaviour observed in PaddlePaddle 3.3.1)."""
import copy
import pickle

import numpy as np
import pytest

import torchpaddle as paddle


def test_properties():
    x = paddle.to_tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    assert isinstance(x, paddle.Tensor) and paddle.is_tensor(x) and not paddle.is_tensor(np.ones(2))
    assert x.shape == [2, 3] and isinstance(x.shape, list) and repr(x.shape) == "paddle.Size([2, 3])"
    assert x.dtype == paddle.float32 and x.ndim == 2 and x.dim() == 2 and x.size == 6
    assert x.T.shape == [3, 2] and np.array_equal(x.T.numpy(), np.arange(6).reshape(2, 3).T)
    assert x.stop_gradient is True and x.is_leaf and x.persistable is False and x.grad is None
    assert x.name.startswith("generated_tensor_") and x.name == x.name
    x.name = "my_x"
    assert x.name == "my_x"
    assert x.numpy().dtype == np.float32 and x.tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
    assert paddle.to_tensor(2.5).item() == 2.5 and x.item(1, 2) == 5.0 and x.item(4) == 4.0
    with pytest.raises(ValueError):
        x.item()


def test_astype_clone_detach_to():
    x = paddle.to_tensor([1.5, 2.5], stop_gradient=False)
    assert x.astype("int32").dtype == paddle.int32 and x.astype(paddle.float64).dtype == paddle.float64
    assert x.cast("int64").tolist() == [1, 2]
    c = x.clone()
    assert not c.stop_gradient and not c.is_leaf
    d = x.detach()
    assert d.stop_gradient and d.is_leaf
    assert x.to("float64").dtype == paddle.float64 and x.to("cpu").place == paddle.CPUPlace()
    assert x.to(paddle.CPUPlace(), "int64").dtype == paddle.int64
    assert x.cpu().place == paddle.CPUPlace()
    with pytest.raises(TypeError):
        x.astype("no_such_type")


def test_stop_gradient_rules():
    a = paddle.to_tensor([1.0, 2.0])
    b = paddle.to_tensor([3.0, 4.0], stop_gradient=False)
    assert (a * 2).stop_gradient and not (a * b).stop_gradient
    i = paddle.to_tensor([1, 2], stop_gradient=False)
    assert i.stop_gradient is False  # Paddle allows it on integer tensors
    c = a * b
    c.stop_gradient = True
    assert c.stop_gradient and (c * 2).stop_gradient
    a.stop_gradient = False
    (a * a).backward()
    assert np.allclose(a.grad.numpy(), [2.0, 4.0])


def test_backward_grad_clear():
    x = paddle.to_tensor([1.0, 2.0, 3.0], stop_gradient=False)
    y = x * x
    y.backward()  # Paddle seeds a non-scalar output with ones
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 4.0, 6.0])
    (x * 3).backward()
    np.testing.assert_allclose(x.grad.numpy(), [5.0, 7.0, 9.0])  # accumulates
    x.clear_gradient()
    np.testing.assert_allclose(x.grad.numpy(), [0.0, 0.0, 0.0])
    x.clear_grad(set_to_zero=False)
    assert x.grad is None


def test_register_hook_modifies_grad_and_removes():
    x = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    handle = x.register_hook(lambda g: g * 10)
    (x * 1).backward()
    np.testing.assert_allclose(x.grad.numpy(), [10.0, 10.0])
    handle.remove()
    x.clear_gradient()
    (x * 1).backward()
    np.testing.assert_allclose(x.grad.numpy(), [1.0, 1.0])
    with pytest.raises(RuntimeError):
        paddle.to_tensor([1.0]).register_hook(lambda g: g)


def test_set_value():
    x = paddle.to_tensor(np.zeros((2, 2), dtype=np.float32))
    x.set_value(np.ones((2, 2), dtype=np.float32))
    assert x.numpy().sum() == 4
    x.set_value(paddle.to_tensor(np.full((2, 2), 3.0, dtype=np.float32)))
    assert x.numpy().sum() == 12
    with pytest.raises(ValueError):
        x.set_value(np.ones((3, 2), dtype=np.float32))


def test_python_protocol():
    x = paddle.to_tensor([3.0])
    assert bool(x) and float(paddle.to_tensor(3.0)) == 3.0 and int(paddle.to_tensor(3.5)) == 3
    with pytest.raises(TypeError):
        float(x)  # like Paddle 3.3.1: only 0-D tensors convert
    assert [1, 2, 3, 4][paddle.to_tensor(2)] == 3
    with pytest.raises(AssertionError):
        bool(paddle.to_tensor([1.0, 2.0]))
    with pytest.raises(AssertionError):
        len(paddle.to_tensor(1.0))
    with pytest.raises(TypeError):
        [1, 2][paddle.to_tensor(1.0)]
    m = paddle.to_tensor(np.arange(6).reshape(3, 2))
    assert len(m) == 3 and [r.tolist() for r in m] == [[0, 1], [2, 3], [4, 5]]
    assert np.array_equal(np.asarray(m), np.arange(6).reshape(3, 2))
    assert (x == None) is False and (x != None) is True  # noqa: E711
    assert f"{paddle.to_tensor(1.23456):.2f}" == "1.23"
    assert len({x, m}) == 2  # hashable by identity


def test_repr_matches_paddle_layout():
    cpu = paddle.CPUPlace()   # the place is part of the text
    assert repr(paddle.to_tensor([1.0, 2.0], place=cpu)) == (
        "Tensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=True,\n       [1., 2.])")
    assert repr(paddle.to_tensor(2.5, place=cpu)) == (
        "Tensor(shape=[], dtype=float32, place=Place(cpu), stop_gradient=True,\n       2.50000000)")
    assert repr(paddle.to_tensor([[1, 2], [3, 4]], place=cpu)) == (
        "Tensor(shape=[2, 2], dtype=int64, place=Place(cpu), stop_gradient=True,\n"
        "       [[1, 2],\n        [3, 4]])")
    assert repr(paddle.to_tensor([True, False])).endswith("[True , False])")


def test_deepcopy_and_pickle():
    x = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    y = copy.deepcopy(x)
    assert y is not x and not y.stop_gradient and np.array_equal(y.numpy(), x.numpy())
    z = pickle.loads(pickle.dumps(x))
    assert isinstance(z, paddle.Tensor) and z.name == x.name and not z.stop_gradient
    assert np.array_equal(z.numpy(), [1.0, 2.0])
    c = copy.copy(x)
    assert isinstance(c, paddle.Tensor) and c is not x and not c.stop_gradient


def test_setitem_on_leaf_requiring_grad_is_value_error():
    w = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    with pytest.raises(ValueError):
        w[0] = 3.0
    y = w * 2
    y[0] = 5.0
    y.backward()
    np.testing.assert_allclose(w.grad.numpy(), [0.0, 2.0])


def test_numpy_returns_a_copy_like_paddle():
    x = paddle.to_tensor([1.0, 2.0])
    a = x.numpy()
    x.add_(paddle.to_tensor([1.0, 1.0]))
    np.testing.assert_array_equal(a, [1.0, 2.0])
    np.testing.assert_array_equal(np.array(x), [2.0, 3.0])
