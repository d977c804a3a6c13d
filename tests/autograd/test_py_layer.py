"""paddle.autograd.PyLayer / PyLayerContext / saved_tensors_hooks on torch.autograd.Function."""
import gc
import weakref

import numpy as np
import pytest

import torchpaddle as paddle
from torchpaddle.autograd import PyLayer, PyLayerContext


def leaf(values, dtype="float64"):
    return paddle.to_tensor(values, dtype=dtype, stop_gradient=False)


class Tanh(PyLayer):
    @staticmethod
    def forward(ctx, x, scale=1.0):
        y = paddle.tanh(x) * scale
        ctx.save_for_backward(y)
        ctx.scale = scale
        return y

    @staticmethod
    def backward(ctx, dy):
        (y,) = ctx.saved_tensor()
        return dy * (ctx.scale - y * y / ctx.scale)


def test_custom_gradient_matches_finite_differences():
    xv = np.array([[0.3, -1.2], [2.0, 0.1]])
    x = leaf(xv)
    y = Tanh.apply(x, scale=2.0)
    assert isinstance(y, paddle.Tensor) and not y.stop_gradient
    (y * y).sum().backward()
    eps = 1e-6
    f = lambda v: np.sum((2.0 * np.tanh(v)) ** 2)  # noqa: E731
    expected = np.zeros_like(xv)
    for i in np.ndindex(xv.shape):
        hi, lo = xv.copy(), xv.copy()
        hi[i] += eps
        lo[i] -= eps
        expected[i] = (f(hi) - f(lo)) / (2 * eps)
    np.testing.assert_allclose(x.grad.numpy(), expected, rtol=1e-6)


def test_ctx_and_modes():
    record = {}

    class Probe(PyLayer):
        @staticmethod
        def forward(ctx, x, tag):
            record["ctx"] = ctx
            record["forward_grad"] = paddle.is_grad_enabled()
            record["x_is_input"] = x is inp
            ctx.tag = tag
            return x * 2.0

        @staticmethod
        def backward(ctx, g):
            record["same_ctx"] = ctx is record["ctx"]
            record["tag"] = ctx.tag
            record["backward_grad"] = paddle.is_grad_enabled()
            record["saved"] = ctx.saved_tensor()
            return g * 2.0
    inp = leaf([1.0])
    Probe.apply(inp, "hello").backward()
    ctx = record.pop("ctx")
    assert isinstance(ctx, PyLayerContext) and type(ctx).__name__ == "Probe_backward"
    assert record == {"forward_grad": False, "x_is_input": True, "same_ctx": True, "tag": "hello",
                      "backward_grad": False, "saved": None}
    assert paddle.autograd.Function is PyLayer
    with pytest.raises(TypeError):
        Probe()(inp)
    with pytest.raises(NotImplementedError):
        PyLayer.apply(inp)


def test_multiple_outputs_materialize_and_non_differentiable():
    seen = {}

    class Split(PyLayer):
        @staticmethod
        def forward(ctx, a, b, materialize):
            ctx.set_materialize_grads(materialize)
            order = a * 0.0 + 1.0
            ctx.mark_non_differentiable(order)
            return a + b, a * b, order, "meta"

        @staticmethod
        def backward(ctx, gs, gp, gorder):
            seen["grads"] = [None if g is None else g.numpy().tolist() for g in (gs, gp, gorder)]
            gs = gs if gs is not None else gp * 0.0
            gp = gp if gp is not None else gs * 0.0
            return gs + gp * b, gs + gp * a
    a, b = leaf([1.0, 2.0]), leaf([3.0, 4.0])
    s, p, order, meta = Split.apply(a, b, True)
    assert meta == "meta" and order.stop_gradient and not s.stop_gradient and not p.stop_gradient
    s.backward()
    assert seen["grads"] == [[1.0, 1.0], [0.0, 0.0], [0.0, 0.0]]
    np.testing.assert_allclose(a.grad.numpy(), [1.0, 1.0])
    s, p, order, meta = Split.apply(a, b, False)
    p.backward()
    assert seen["grads"] == [None, [1.0, 1.0], None]


def test_argument_layouts_kwargs_and_lists():
    class Mix(PyLayer):
        @staticmethod
        def forward(ctx, xs, k, scale=1.0, w=None):
            return (xs[0] * xs[1] + w) * scale * k

        @staticmethod
        def backward(ctx, g):
            return [g, g * 2.0], g * 3.0
    a, b, w = leaf([1.0, 2.0]), leaf([3.0, 4.0]), leaf([5.0, 6.0])
    Mix.apply([a, b], 2.0, scale=1.0, w=w).backward()
    np.testing.assert_allclose(a.grad.numpy(), [1.0, 1.0])
    np.testing.assert_allclose(b.grad.numpy(), [2.0, 2.0])
    np.testing.assert_allclose(w.grad.numpy(), [3.0, 3.0])

    class OnlyList(PyLayer):
        @staticmethod
        def forward(ctx, xs):
            return xs[0] * xs[1]

        @staticmethod
        def backward(ctx, g):
            return [g * 10.0, g * 20.0]  # a flat list for the only (list) argument
    a.clear_gradient()
    b.clear_gradient()
    OnlyList.apply([a, b]).backward()
    np.testing.assert_allclose(a.grad.numpy(), [10.0, 10.0])
    np.testing.assert_allclose(b.grad.numpy(), [20.0, 20.0])


def test_output_stop_gradient_rule_and_list_output():
    class Twice(PyLayer):
        @staticmethod
        def forward(ctx, x):
            return [x * 2.0, x * 3.0]

        @staticmethod
        def backward(ctx, g1, g2):
            return g1 * 2.0 + g2 * 3.0
    sg = paddle.to_tensor([1.0])
    out = Twice.apply(sg)
    assert isinstance(out, list) and all(o.stop_gradient for o in out)
    x = leaf([1.0])
    with paddle.no_grad():
        assert Twice.apply(x)[0].stop_gradient
    out = Twice.apply(x)
    (out[0] + out[1]).backward()
    np.testing.assert_allclose(x.grad.numpy(), [5.0])


def test_double_backward_through_py_layer():
    class Cube(PyLayer):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x * x

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensor()
            return 3.0 * x * x * g
    x = leaf([2.0])
    (g1,) = paddle.grad(Cube.apply(x), x, create_graph=True)
    (g2,) = paddle.grad(g1, x)
    assert float(g1.numpy()[0]) == 12.0 and float(g2.numpy()[0]) == 12.0


def test_mark_not_inplace_returns_a_new_tensor():
    class Identity(PyLayer):
        @staticmethod
        def forward(ctx, x):
            ctx.mark_not_inplace(x)
            return x

        @staticmethod
        def backward(ctx, g):
            return g * 5.0
    x = leaf([1.0, 2.0])
    h = x * 1.0
    y = Identity.apply(h)
    assert y is not h and not y.stop_gradient
    y.backward()
    np.testing.assert_allclose(x.grad.numpy(), [5.0, 5.0])


def _layer(backward):
    return type("L", (PyLayer,), {"forward": staticmethod(lambda ctx, x, y: x * y),
                                  "backward": staticmethod(backward)})


@pytest.mark.parametrize("backward, second, error", [
    (lambda ctx, g: g, "leaf", ValueError),                        # one gradient missing
    (lambda ctx, g: (g, g, g), "leaf", ValueError),                # too many
    (lambda ctx, g: (g, g), "sg", ValueError),                     # a gradient for a stop_gradient input
    (lambda ctx, g: (g, np.ones(2)), "leaf", TypeError),           # not a Tensor
    (lambda ctx, g: (paddle.ones([5], dtype="float64"), g), "leaf", RuntimeError),  # wrong shape
])
def test_backward_return_errors(backward, second, error):
    a = leaf([1.0, 2.0])
    b = leaf([3.0, 4.0]) if second == "leaf" else paddle.to_tensor([3.0, 4.0], dtype="float64")
    with pytest.raises(error):
        _layer(backward).apply(a, b).backward()


def test_missing_gradient_for_stop_gradient_input_is_fine():
    a, b = leaf([1.0, 2.0]), paddle.to_tensor([3.0, 4.0], dtype="float64")
    _layer(lambda ctx, g: g * 2.0).apply(a, b).backward()
    np.testing.assert_allclose(a.grad.numpy(), [2.0, 2.0])


def test_forward_must_return_tensors():
    layer = type("Bad", (PyLayer,), {"forward": staticmethod(lambda ctx, x: 3),
                                     "backward": staticmethod(lambda ctx, g: g)})
    with pytest.raises(TypeError, match="Bad"):
        layer.apply(leaf([1.0]))


def test_context_is_released_with_the_graph():
    refs = []

    class Keep(PyLayer):
        @staticmethod
        def forward(ctx, x):
            refs.append(weakref.ref(ctx))
            ctx.save_for_backward(x)
            return x * 2.0

        @staticmethod
        def backward(ctx, g):
            return g * 2.0
    x = leaf([1.0])
    y = Keep.apply(x)
    gc.disable()
    try:
        del y
        assert refs[0]() is None  # no reference cycle: freed without the garbage collector
    finally:
        gc.enable()


def test_bare_context_object():
    ctx = PyLayerContext()
    assert ctx.saved_tensor() is None
    t = paddle.to_tensor([1.0])
    ctx.save_for_backward(t, 3)
    assert ctx.saved_tensor() == (t, 3)


def test_saved_tensors_hooks():
    packed, unpacked = [], []

    def pack(t):
        packed.append(type(t))
        return t.numpy()

    def unpack(v):
        unpacked.append(type(v))
        return paddle.to_tensor(v)
    a, b = leaf([1.0, 2.0]), leaf([3.0, 4.0])
    with paddle.autograd.saved_tensors_hooks(pack, unpack):
        y = a * b
    y.backward()
    assert packed == [paddle.Tensor, paddle.Tensor] and unpacked == [np.ndarray, np.ndarray]
    np.testing.assert_allclose(a.grad.numpy(), [3.0, 4.0])
    with paddle.autograd.saved_tensors_hooks(lambda t: t, lambda v: "not a tensor"):
        y = a * b
    with pytest.raises(TypeError):
        y.backward()


def test_namedtuple_output():
    import collections
    Pair = collections.namedtuple("Pair", ["double", "triple"])

    class Both(PyLayer):
        @staticmethod
        def forward(ctx, x):
            return Pair(x * 2.0, x * 3.0)

        @staticmethod
        def backward(ctx, g2, g3):
            return g2 * 2.0 + g3 * 3.0
    x = leaf([1.0])
    out = Both.apply(x)
    assert isinstance(out, Pair) and isinstance(out.triple, paddle.Tensor)
    (out.double + out.triple).backward()
    np.testing.assert_allclose(x.grad.numpy(), [5.0])
