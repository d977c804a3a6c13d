"""Tensor.backward, paddle.autograd.backward, paddle.grad (higher orders), hooks: values checked by hand
and against float64 finite differences; error types as PaddlePaddle 3.3.1 raises them."""
import gc
import weakref

import numpy as np
import pytest

import torchpaddle as paddle


def leaf(values, dtype="float64"):
    return paddle.to_tensor(values, dtype=dtype, stop_gradient=False)


def numeric_grad(f, x, eps=1e-6):
    """Central differences of the scalar f(ndarray) at x."""
    x = np.array(x, dtype=np.float64)
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        hi, lo = x.copy(), x.copy()
        hi[i] += eps
        lo[i] -= eps
        g[i] = (f(hi) - f(lo)) / (2 * eps)
    return g


def f_paddle(x):
    return (paddle.sin(x) * paddle.exp(x * 0.5) + x * x * x).sum()


def f_numpy(x):
    return float(np.sum(np.sin(x) * np.exp(x * 0.5) + x ** 3))


X0 = [[0.3, -1.2, 2.0], [0.7, 0.1, -0.4]]


def test_backward_matches_finite_differences():
    x = leaf(X0)
    f_paddle(x).backward()
    np.testing.assert_allclose(x.grad.numpy(), numeric_grad(f_numpy, X0), rtol=1e-6, atol=1e-8)


def test_grad_matches_finite_differences_and_leaves_grad_alone():
    x = leaf(X0)
    (g,) = paddle.grad(f_paddle(x), x)
    np.testing.assert_allclose(g.numpy(), numeric_grad(f_numpy, X0), rtol=1e-6, atol=1e-8)
    assert x.grad is None and g.stop_gradient


def test_second_and_third_order():
    # y = x^4: 4x^3, 12x^2, 24x at x = 1.5
    x = leaf([1.5])
    y = x * x * x * x
    (g1,) = paddle.grad(y, x, create_graph=True)
    (g2,) = paddle.grad(g1, x, create_graph=True)
    (g3,) = paddle.grad(g2, x)
    assert [float(g.numpy()[0]) for g in (g1, g2, g3)] == pytest.approx([13.5, 27.0, 36.0])
    assert not g1.stop_gradient and not g2.stop_gradient and g3.stop_gradient


def test_second_order_matches_finite_differences_of_first():
    def first(xv):
        x = leaf(xv)
        (g,) = paddle.grad(f_paddle(x), x)
        return g.numpy()

    x = leaf(X0)
    (g,) = paddle.grad(f_paddle(x), x, create_graph=True)
    # d/dx of sum(g * w) for a fixed weight w is the Hessian-vector product H w.
    w = np.arange(6, dtype=np.float64).reshape(2, 3)
    (hvp,) = paddle.grad((g * paddle.to_tensor(w)).sum(), x)
    expected = numeric_grad(lambda xv: float(np.sum(first(xv) * w)), X0, eps=1e-5)
    np.testing.assert_allclose(hvp.numpy(), expected, rtol=1e-5, atol=1e-6)


def test_gradient_penalty_pattern():
    # grad(create_graph) then backward through the gradient, as in WGAN-GP: d/dx sum((3x^2)^2) = 36x^3
    x = leaf([1.0, 2.0])
    (g,) = paddle.grad(x * x * x, x, create_graph=True)
    (g * g).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [36.0, 288.0])


def test_non_scalar_backward_seeds_ones_and_grad_tensor():
    x = leaf([1.0, 2.0, 3.0])
    (x * x).backward()
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 4.0, 6.0])
    y = leaf([1.0, 2.0])
    (y * y).backward(paddle.to_tensor([10.0, 100.0], dtype="float32"))  # seed dtype is cast
    np.testing.assert_allclose(y.grad.numpy(), [20.0, 400.0])


def test_accumulation_and_retain_graph():
    x = leaf([1.0, 2.0])
    y = x * x * x
    y.backward(retain_graph=True)
    y.backward()
    np.testing.assert_allclose(x.grad.numpy(), [6.0, 24.0])
    (x * 2.0).backward()
    np.testing.assert_allclose(x.grad.numpy(), [8.0, 26.0])
    x.clear_gradient()
    np.testing.assert_allclose(x.grad.numpy(), [0.0, 0.0])


def test_second_backward_without_retain_graph_raises():
    x = leaf([1.0, 2.0])
    y = x * x
    y.backward()
    with pytest.raises(RuntimeError, match="retain_graph=True") as info:
        y.backward()
    assert isinstance(info.value, SystemError)  # Paddle's type
    with pytest.raises(SystemError):
        paddle.autograd.backward([y])


def test_grad_never_frees_the_graph():
    x = leaf([1.0, 2.0])
    y = x * x
    paddle.grad(y, x, retain_graph=False)
    paddle.grad(y, x)
    y.backward()
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 4.0])


def test_backward_on_stop_gradient_tensor_is_a_no_op():
    x = paddle.to_tensor([1.0, 2.0])
    assert x.backward() is None
    a = leaf([1.0, 2.0])
    paddle.autograd.backward([a * 3.0, x * 2.0])
    np.testing.assert_allclose(a.grad.numpy(), [3.0, 3.0])


def test_autograd_backward_lists():
    a, b = leaf([1.0, 2.0]), leaf([3.0, 4.0])
    paddle.autograd.backward([a * b, b * 2.0], [paddle.to_tensor([1.0, 10.0], dtype="float64"), None])
    np.testing.assert_allclose(a.grad.numpy(), [3.0, 40.0])
    np.testing.assert_allclose(b.grad.numpy(), [3.0, 22.0])
    paddle.autograd.backward(a * a, paddle.to_tensor([1.0, 1.0], dtype="float64"))
    np.testing.assert_allclose(a.grad.numpy(), [5.0, 44.0])


@pytest.mark.parametrize("call, error", [
    (lambda a: (a * a).backward(paddle.ones([3], dtype="float64")), AssertionError),
    (lambda a: (a * a).backward([1.0, 1.0]), AssertionError),
    (lambda a: paddle.autograd.backward(3), AssertionError),
    (lambda a: paddle.autograd.backward([a * a], [None, None]), AssertionError),
    (lambda a: paddle.autograd.backward([a * a, "x"]), TypeError),
])
def test_backward_errors(call, error):
    with pytest.raises(error):
        call(leaf([1.0, 2.0]))


def test_grad_unused_inputs_and_stop_gradient():
    a, b = leaf([1.0, 2.0]), leaf([1.0, 2.0])
    sg = paddle.to_tensor([1.0])
    with pytest.raises(ValueError, match="1-th input"):
        paddle.grad(a * 2.0, [a, b])
    ga, gb = paddle.grad(a * 2.0, [a, b], allow_unused=True)
    np.testing.assert_allclose(ga.numpy(), [2.0, 2.0])
    assert gb is None
    with pytest.raises(ValueError):
        paddle.grad(a * 2.0, [sg])
    with pytest.raises(ValueError):
        paddle.grad(sg * 2.0, [a])
    assert paddle.grad(sg * 2.0, [a], allow_unused=True) == [None]


def test_grad_outputs_and_single_input():
    a = leaf([1.0, 2.0])
    seed = paddle.to_tensor([10.0, 100.0], dtype="float64")
    for grad_outputs in ([seed], seed):
        (g,) = paddle.grad(a * a, a, grad_outputs=grad_outputs)
        np.testing.assert_allclose(g.numpy(), [20.0, 400.0])
    out = paddle.grad([a * a], a, grad_outputs=[None])
    assert isinstance(out, list) and len(out) == 1


@pytest.mark.parametrize("call, error", [
    (lambda a: paddle.grad(a * a, 3), TypeError),
    (lambda a: paddle.grad(a * a, 3), AssertionError),
    (lambda a: paddle.grad("x", a), AssertionError),
    (lambda a: paddle.grad(a * a, []), AssertionError),
    (lambda a: paddle.grad([], a), AssertionError),
    (lambda a: paddle.grad(a * a, a, only_inputs=False), AssertionError),
    (lambda a: paddle.grad(a * a, [a, a]), RuntimeError),
    (lambda a: paddle.grad(a * a, a, grad_outputs=[paddle.ones([2]), paddle.ones([2])]), AssertionError),
    # Paddle reads past the end of a short grad_outputs tensor; we refuse a wrong shape.
    (lambda a: paddle.grad(a * a, a, grad_outputs=paddle.ones([3], dtype="float64")), ValueError),
    (lambda a: paddle.grad(a * a, a, no_grad_vars=[3]), TypeError),
])
def test_grad_errors(call, error):
    with pytest.raises(error):
        call(leaf([1.0, 2.0]))


def test_no_grad_vars_treats_variables_as_constants():
    a, b = leaf([1.0, 2.0]), leaf([3.0, 4.0])
    (g,) = paddle.grad(a * b * a, a, no_grad_vars=[b])
    np.testing.assert_allclose(g.numpy(), [6.0, 16.0])
    c = a * 3.0
    (g,) = paddle.grad(c * a, a, no_grad_vars=c)  # only the direct path: c = 3a
    np.testing.assert_allclose(g.numpy(), [3.0, 6.0])
    (g,) = paddle.grad(c * a, a)  # the hook was removed again: d(3a^2)/da = 6a
    np.testing.assert_allclose(g.numpy(), [6.0, 12.0])


def test_create_graph_gradient_of_a_linear_function():
    x = leaf([1.0, 2.0])
    (g,) = paddle.grad(x * 3.0, x, create_graph=True)
    assert not g.stop_gradient
    with pytest.raises(ValueError):
        paddle.grad(g, x)
    assert paddle.grad(g, x, allow_unused=True) == [None]


def test_grad_of_intermediate_inputs():
    x = leaf([1.0, 2.0])
    h = x * x
    (gh, gx) = paddle.grad(h * 3.0, [h, x])
    np.testing.assert_allclose(gh.numpy(), [3.0, 3.0])
    np.testing.assert_allclose(gx.numpy(), [6.0, 12.0])


def test_hooks_modify_and_remove():
    x = leaf([1.0, 2.0])
    handle = x.register_hook(lambda g: g * 2.0)
    (x * x).backward()
    np.testing.assert_allclose(x.grad.numpy(), [4.0, 8.0])
    assert handle.remove() is True and handle.remove() is False
    x.clear_gradient()
    (x * x).backward()
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 4.0])


def test_hooks_on_intermediates_order_and_observers():
    y = leaf([1.0, 2.0])
    mid = y * 3.0
    mid.register_hook(lambda g: g + 1.0)
    (mid * mid).backward()
    np.testing.assert_allclose(y.grad.numpy(), [21.0, 39.0])  # 3 * (2 * 3y + 1)
    z = leaf([1.0, 2.0])
    z.register_hook(lambda g: g * 2.0)
    z.register_hook(lambda g: g + 1.0)
    (z * z).backward()
    np.testing.assert_allclose(z.grad.numpy(), [5.0, 9.0])  # registration order
    seen = []
    w = leaf([1.0, 2.0])
    w.register_hook(lambda g: seen.append((type(g), g.numpy().tolist())))
    (w * 3.0).backward()
    assert seen == [(paddle.Tensor, [3.0, 3.0])]
    v = leaf([1.0, 2.0])
    u = v * 2.0
    u.register_hook(lambda g: g * 10.0)
    (g,) = paddle.grad(u * u, v)  # hooks apply to paddle.grad too
    np.testing.assert_allclose(g.numpy(), [80.0, 160.0])


def test_hook_errors():
    with pytest.raises(RuntimeError, match="stop gradient"):
        paddle.to_tensor([1.0]).register_hook(lambda g: g)
    with pytest.raises(TypeError):
        leaf([1.0]).register_hook(3)
    x = leaf([1.0, 2.0])
    x.register_hook(lambda g: paddle.ones([3], dtype="float64"))
    with pytest.raises(RuntimeError):
        (x * x).backward()


def test_graph_is_released():
    x = leaf([1.0, 2.0])
    y = x * x
    ref = weakref.ref(y)
    paddle.grad(y, x)
    del y
    gc.collect()
    assert ref() is None
