"""no_grad / enable_grad / set_grad_enabled / is_grad_enabled as context managers and decorators."""
import threading

import pytest

import torchpaddle as paddle


@pytest.fixture(autouse=True)
def grad_on():
    paddle.set_grad_enabled(True)
    yield
    paddle.set_grad_enabled(True)


def leaf():
    return paddle.to_tensor([1.0, 2.0], stop_gradient=False)


def test_context_managers_nest_and_restore():
    a = leaf()
    with paddle.no_grad():
        assert not paddle.is_grad_enabled() and (a * 2.0).stop_gradient
        with paddle.enable_grad():
            assert paddle.is_grad_enabled() and not (a * 2.0).stop_gradient
        assert not paddle.is_grad_enabled()
    assert paddle.is_grad_enabled() and not (a * 2.0).stop_gradient
    with pytest.raises(KeyError):
        with paddle.no_grad():
            raise KeyError("x")
    assert paddle.is_grad_enabled()


def test_same_instance_is_reentrant():
    ctx = paddle.no_grad()
    with ctx:
        with ctx:
            pass
        assert not paddle.is_grad_enabled()
    assert paddle.is_grad_enabled()


@pytest.mark.parametrize("decorate", [paddle.no_grad(), paddle.no_grad], ids=["parens", "bare"])
def test_no_grad_decorates_functions_and_methods(decorate):
    a = leaf()

    @decorate
    def double(x):
        """Doc."""
        return x * 2.0

    class Model:
        @decorate
        def run(self, x):
            return x * 3.0
    assert double(a).stop_gradient and double.__name__ == "double" and double.__doc__ == "Doc."
    assert Model().run(a).stop_gradient
    assert paddle.is_grad_enabled()


def test_enable_grad_decorator_inside_no_grad():
    @paddle.enable_grad()
    def f(x):
        return x * 2.0

    @paddle.enable_grad
    def g(x):
        return x * 2.0
    with paddle.no_grad():
        assert not f(leaf()).stop_gradient and not g(leaf()).stop_gradient
        assert not paddle.is_grad_enabled()


def test_generator_runs_in_the_mode_but_caller_does_not():
    states = []

    @paddle.no_grad()
    def gen(n):
        for i in range(n):
            received = yield paddle.is_grad_enabled()
            states.append((received, paddle.is_grad_enabled()))
        return "done"
    it = gen(3)
    assert next(it) is False
    assert paddle.is_grad_enabled()
    assert it.send("a") is False and paddle.is_grad_enabled()
    assert list(it) == [False]
    assert states == [("a", False), (None, False), (None, False)]
    assert paddle.is_grad_enabled()


def test_generator_throw_and_close():
    closed = []

    @paddle.no_grad()
    def gen():
        try:
            while True:
                try:
                    yield paddle.is_grad_enabled()
                except ValueError:
                    yield "caught"
        finally:
            closed.append(paddle.is_grad_enabled())
    it = gen()
    next(it)
    assert it.throw(ValueError("x")) == "caught"
    it.close()
    assert closed == [False] and paddle.is_grad_enabled()


def test_set_grad_enabled_function_context_and_decorator():
    a = leaf()
    paddle.set_grad_enabled(False)
    assert not paddle.is_grad_enabled() and (a * 2.0).stop_gradient
    paddle.set_grad_enabled(True)
    with paddle.set_grad_enabled(False):
        assert not paddle.is_grad_enabled()
    assert paddle.is_grad_enabled()

    @paddle.set_grad_enabled(False)
    def f(x):
        return x * 2.0
    assert paddle.is_grad_enabled()  # decorating does not switch the mode
    assert f(a).stop_gradient and paddle.is_grad_enabled()


def test_grad_mode_is_per_thread():
    seen = []
    with paddle.no_grad():
        t = threading.Thread(target=lambda: seen.append(paddle.is_grad_enabled()))
        t.start()
        t.join()
    assert seen == [True]


def test_public_names():
    assert paddle.autograd.no_grad is paddle.no_grad and paddle.autograd.enable_grad is paddle.enable_grad
    assert paddle.autograd.set_grad_enabled is paddle.set_grad_enabled
    assert paddle.autograd.is_grad_enabled is paddle.is_grad_enabled
    with pytest.raises(TypeError):
        paddle.no_grad()(3)
    with pytest.raises(TypeError):
        with paddle.no_grad:
            pass
