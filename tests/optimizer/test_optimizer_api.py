"""Optimizer API: argument checking (Paddle's exception types), step/minimize/clear_grad behaviour,
clippers and regularizers on their own, and the options Paddle's CPU build cannot run (rescale_grad, lr_ratio)."""
import io

import numpy as np
import pytest
import torch

import torchpaddle as paddle
from torchpaddle.nn.clip import ClipGradBase, clip_by_norm
from torchpaddle.regularizer import L1Decay, L2Decay, WeightDecayRegularizer

opt_mod = paddle.optimizer


def _param(values, name=None, dtype="float32"):
    return paddle.Parameter(paddle.to_tensor(np.asarray(values, dtype=dtype)), name=name)


def _backward(*params, scale=1.0):
    loss = None
    for p in params:
        term = (p * p).sum() * scale
        loss = term if loss is None else loss + term
    loss.backward()
    return loss


# -- construction errors ------------------------------------------------------------------------------
W = _param([1.0, 2.0, 3.0], name="api_w")
BAD_CONSTRUCTION = [
    (lambda: opt_mod.SGD(0.1, parameters=None), AttributeError),
    (lambda: opt_mod.SGD(0.1, parameters=W), TypeError),
    (lambda: opt_mod.SGD(0.1, parameters={"params": [W]}), TypeError),
    (lambda: opt_mod.SGD(0.1, parameters=5), TypeError),
    (lambda: opt_mod.SGD(0.1, parameters=[5]), TypeError),
    (lambda: opt_mod.SGD(0.1, parameters=[5]), AttributeError),  # what Paddle raises for a non-Tensor
    (lambda: opt_mod.SGD(0.1, parameters={W}), TypeError),
    (lambda: opt_mod.SGD(0.1, parameters=[{"x": [W]}]), AssertionError),
    (lambda: opt_mod.SGD(0.1, parameters=[{"params": {W}}]), TypeError),
    (lambda: opt_mod.SGD(0.1, parameters=[{"params": [W]}, {"params": [W]}]), ValueError),
    (lambda: opt_mod.SGD(0.1, parameters=[{"params": [W]}, [W]]), TypeError),
    (lambda: opt_mod.SGD(1, parameters=[W]), TypeError),
    (lambda: opt_mod.SGD("0.1", parameters=[W]), TypeError),
    (lambda: opt_mod.SGD(None, parameters=[W]), ValueError),
    (lambda: opt_mod.Momentum(None, parameters=[W]), ValueError),
    (lambda: opt_mod.Momentum(0.1, momentum=None, parameters=[W]), ValueError),
    (lambda: opt_mod.Adam(None, parameters=[W]), AssertionError),
    (lambda: opt_mod.SGD(0.1, parameters=[W], grad_clip=5.0), TypeError),
    (lambda: opt_mod.SGD(0.1, parameters=[W], weight_decay="0.1"), TypeError),
    (lambda: opt_mod.Adam(0.1, beta1=1.0, parameters=[W]), ValueError),
    (lambda: opt_mod.Adam(0.1, beta2=-0.1, parameters=[W]), ValueError),
    (lambda: opt_mod.Adam(0.1, epsilon=-1.0, parameters=[W]), ValueError),
    (lambda: opt_mod.Adam(0.1, beta1="a", parameters=[W]), TypeError),
    (lambda: opt_mod.AdamW(0.1, beta1=1.5, parameters=[W]), ValueError),
    (lambda: opt_mod.AdamW(0.1, parameters=[W], weight_decay=None), TypeError),
    (lambda: opt_mod.AdamW(0.1, parameters=[W], apply_decay_param_fun=3), TypeError),
    (lambda: opt_mod.Adamax(0.1, beta1=-0.5, parameters=[W]), ValueError),
    (lambda: opt_mod.Adamax(0.1, epsilon=-1e-8, parameters=[W]), ValueError),
    (lambda: opt_mod.RMSProp(0.1, rho=-0.5, parameters=[W]), ValueError),
    (lambda: opt_mod.RMSProp(0.1, momentum=-0.5, parameters=[W]), ValueError),
    (lambda: opt_mod.RMSProp(0.1, epsilon=-1.0, parameters=[W]), ValueError),
    (lambda: opt_mod.RMSProp(0.1, rho=None, parameters=[W]), ValueError),
    (lambda: opt_mod.Adadelta(0.1, rho=None, parameters=[W]), ValueError),
    (lambda: opt_mod.Adadelta(0.1, epsilon=None, parameters=[W]), ValueError),
    (lambda: opt_mod.Adagrad(None, parameters=[W]), AssertionError),
    (lambda: opt_mod.Lamb(0.1, beta1=None, parameters=[W]), AssertionError),
    (lambda: opt_mod.Lamb(0.1, parameters=[W], exclude_from_weight_decay_fn="b"), TypeError),
    (lambda: opt_mod.NAdam(-0.1, parameters=[W]), ValueError),
    (lambda: opt_mod.NAdam(0.1, momentum_decay=-1.0, parameters=[W]), ValueError),
    (lambda: opt_mod.NAdam(0.1, beta1=1.0, parameters=[W]), ValueError),
    (lambda: opt_mod.RAdam(0.1, beta2=1.0, parameters=[W]), ValueError),
    (lambda: opt_mod.RAdam(0.1, epsilon=-1.0, parameters=[W]), ValueError),
    (lambda: opt_mod.ASGD(0.1, batch_num=0, parameters=[W]), ValueError),
    (lambda: opt_mod.ASGD(None, parameters=[W]), ValueError),
    (lambda: opt_mod.Rprop(0.1, learning_rate_range=(0.2, 1.0), parameters=[W]), ValueError),
    (lambda: opt_mod.Rprop(0.1, etas=(1.1, 1.2), parameters=[W]), ValueError),
    (lambda: opt_mod.Rprop(opt_mod.lr.StepDecay(0.1, 2), parameters=[W]), TypeError),
    (lambda: paddle.nn.ClipGradByValue(-1.0), AssertionError),
    (lambda: paddle.nn.ClipGradByValue("1"), TypeError),
    (lambda: paddle.nn.ClipGradByNorm("1"), TypeError),
    (lambda: paddle.nn.ClipGradByGlobalNorm(1.0, auto_skip_clip=1), AssertionError),
    (lambda: paddle.nn.ClipGradByGlobalNorm(1.0, group_name=3), TypeError),
    (lambda: L2Decay(None), AssertionError),
    (lambda: L1Decay("0.1"), TypeError),
]


@pytest.mark.parametrize("index", range(len(BAD_CONSTRUCTION)))
def test_bad_construction(index):
    build, error = BAD_CONSTRUCTION[index]
    with pytest.raises(error):
        build()


def test_negative_learning_rate_is_allowed_like_paddle():
    w = _param([1.0])
    opt = opt_mod.SGD(-0.1, parameters=[w])
    _backward(w)
    opt.step()
    np.testing.assert_allclose(w.numpy(), [1.2], rtol=1e-6)


def test_set_lr_and_get_lr():
    w = _param([1.0])
    opt = opt_mod.Adam(0.1, parameters=[w])
    assert opt.get_lr() == 0.1
    opt.set_lr(0.5)
    assert opt.get_lr() == 0.5 and isinstance(opt.get_lr(), float)
    opt.set_lr(1)
    assert opt.get_lr() == 1.0
    with pytest.raises(TypeError):
        opt.set_lr("0.1")
    opt = opt_mod.Adam(opt_mod.lr.StepDecay(0.1, 2), parameters=[w])
    with pytest.raises(RuntimeError, match="LRScheduler"):
        opt.set_lr(0.2)


def test_base_optimizer_cannot_step():
    w = _param([1.0])
    opt = opt_mod.Optimizer(0.1, parameters=[w])
    _backward(w)
    with pytest.raises(NotImplementedError):
        opt.step()


# -- step / minimize / clear_grad --------------------------------------------------------------------
def test_minimize_applies_existing_gradients_without_backward():
    w = _param([1.0, 2.0, 3.0])
    opt = opt_mod.SGD(0.1, parameters=[w])
    loss = (w * w).sum()
    ops, params_grads = opt.minimize(loss)
    assert ops == [] and params_grads == []
    np.testing.assert_array_equal(w.numpy(), [1.0, 2.0, 3.0])
    loss = _backward(w)
    ops, params_grads = opt.minimize(loss)
    assert len(params_grads) == 1 and params_grads[0][0] is w
    np.testing.assert_allclose(params_grads[0][1].numpy(), [2.0, 4.0, 6.0])
    np.testing.assert_allclose(w.numpy(), [0.8, 1.6, 2.4], rtol=1e-6)
    with pytest.raises(TypeError):
        opt.minimize(3.0)


def test_minimize_with_parameter_names():
    a, b = _param([1.0], name="min_a"), _param([1.0], name="min_b")
    opt = opt_mod.SGD(0.5, parameters=[a, b])
    loss = _backward(a, b)
    opt.minimize(loss, parameters=["min_b"])
    np.testing.assert_allclose(a.numpy(), [1.0])
    np.testing.assert_allclose(b.numpy(), [0.0])
    with pytest.raises(ValueError, match="nope"):
        opt.minimize(loss, parameters=["nope"])


def test_clear_grad_variants():
    w = _param([1.0, 2.0])
    opt = opt_mod.SGD(0.1, parameters=[w])
    _backward(w)
    opt.clear_grad()
    np.testing.assert_array_equal(w.grad.numpy(), [0.0, 0.0])
    opt.clear_grad(set_to_zero=False)
    assert w.grad is None
    _backward(w)
    opt.zero_grad()
    assert w.grad is None
    _backward(w)
    opt.clear_gradients()
    np.testing.assert_array_equal(w.grad.numpy(), [0.0, 0.0])


def test_parameters_without_gradients_are_left_alone():
    a, b, frozen = _param([1.0], name="a"), _param([1.0], name="b"), _param([1.0], name="f")
    frozen.stop_gradient = True
    opt = opt_mod.Adam(0.1, parameters=[a, b, frozen])
    _backward(a)
    opt.step()
    assert len(opt.state_dict()) == 4 and all(k.startswith("a_") for k in opt.state_dict())
    np.testing.assert_array_equal(b.numpy(), [1.0])
    np.testing.assert_array_equal(frozen.numpy(), [1.0])
    opt.clear_grad(set_to_zero=False)
    _backward(b)
    opt.step()  # a has no gradient this time: its moments and beta powers stay put
    pows = {k: v.item() for k, v in opt.state_dict().items() if "beta1_pow" in k}
    assert sorted(pows.values()) == pytest.approx([0.81, 0.81])


def test_zero_gradients_still_update_like_paddle():
    w = _param([1.0, -1.0])
    opt = opt_mod.Momentum(0.1, momentum=0.9, parameters=[w])
    _backward(w)
    opt.step()
    opt.clear_grad()  # zeros, not None: the next step still moves the parameter with its velocity
    before = w.numpy().copy()
    opt.step()
    assert not np.array_equal(before, w.numpy())


def test_float64_parameters():
    for cls in (opt_mod.SGD, opt_mod.Adam, opt_mod.Momentum, opt_mod.Lamb):
        w = _param([1.0, 2.0], dtype="float64")
        opt = cls(0.1, parameters=[w])
        _backward(w)
        opt.step()
        assert w.dtype == paddle.float64
        for value in opt.state_dict().values():
            assert value.dtype == paddle.float64


@pytest.mark.filterwarnings("ignore:Sparse invariant checks")
def test_sparse_gradients_are_densified():
    w = _param([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    opt = opt_mod.SGD(0.5, parameters=[w])
    w._t.grad = torch.sparse_coo_tensor([[1]], [[2.0, 2.0]], (3, 2), device=w._t.device)
    opt.step()
    np.testing.assert_allclose(w.numpy(), [[1.0, 2.0], [2.0, 3.0], [5.0, 6.0]])


def test_group_learning_rate_is_a_multiplier():
    a, b = _param([1.0]), _param([1.0])
    opt = opt_mod.SGD(0.1, parameters=[{"params": [a], "learning_rate": 0.5}, {"params": b}])
    assert a.optimize_attr["learning_rate"] == 0.5 and b.optimize_attr["learning_rate"] == 1.0
    _backward(a, b)
    opt.step()
    np.testing.assert_allclose([a.item(), b.item()], [1 - 0.1 * 0.5 * 2, 1 - 0.1 * 2], rtol=1e-6)


def test_apply_gradients():
    a = _param([1.0], name="ag_a")
    opt = opt_mod.SGD(0.5, parameters=[a])
    assert opt.apply_gradients([(a, paddle.to_tensor([2.0]))]) == []
    np.testing.assert_allclose(a.numpy(), [0.0])


# -- clippers and regularizers on their own -----------------------------------------------------------------
def _pairs():
    a, b = _param([3.0, 4.0]), _param([1.0, 0.0])
    b.need_clip = False
    _backward(a, b)  # grads 6, 8 and 2, 0
    return a, b, [(a, a.grad), (b, b.grad)]


def test_clip_by_global_norm_scales_in_place():
    a, b, pairs = _pairs()
    out = paddle.nn.ClipGradByGlobalNorm(5.0)(pairs)
    np.testing.assert_allclose(out[0][1].numpy(), [3.0, 4.0], rtol=1e-6)
    np.testing.assert_allclose(a.grad.numpy(), [3.0, 4.0], rtol=1e-6)  # Paddle multiplies the grad in place
    np.testing.assert_allclose(out[1][1].numpy(), [2.0, 0.0])
    a, b, pairs = _pairs()
    out = paddle.nn.ClipGradByGlobalNorm(50.0, auto_skip_clip=True)(pairs)
    np.testing.assert_allclose(out[0][1].numpy(), [6.0, 8.0])


def test_clip_by_norm_in_static_mode_appends_the_op(static_mode):
    main = paddle.static.Program()
    with paddle.static.program_guard(main):
        x = paddle.static.data("x", [2, 2], "float32")
        out = clip_by_norm(x, 1.5)
    assert isinstance(out, paddle.static.Variable) and main.global_block().ops[-1].type == "clip_by_norm"
    x_np = np.array([[3.0, 4.0], [0.0, 0.0]], "float32")      # norm 5 -> scaled by 1.5 / 5
    got = paddle.static.Executor().run(main, feed={"x": x_np}, fetch_list=[out])[0]
    np.testing.assert_allclose(got, x_np * 0.3, rtol=1e-6)


def test_clip_by_norm_and_value_return_new_tensors():
    a, b, pairs = _pairs()
    out = paddle.nn.ClipGradByNorm(5.0)(pairs)
    np.testing.assert_allclose(out[0][1].numpy(), [3.0, 4.0], rtol=1e-6)
    np.testing.assert_allclose(a.grad.numpy(), [6.0, 8.0])
    np.testing.assert_allclose(clip_by_norm(paddle.to_tensor([0.3, 0.4]), 1.0).numpy(), [0.3, 0.4])
    out = paddle.nn.ClipGradByValue(7.0, min=-1.0)(pairs)
    np.testing.assert_allclose(out[0][1].numpy(), [6.0, 7.0])
    np.testing.assert_allclose(out[1][1].numpy(), [2.0, 0.0])  # need_clip=False
    assert str(paddle.nn.ClipGradByValue(1.0)) == "Clip Gradient By Value, min = -1.000000, max=1.000000"
    assert str(paddle.nn.ClipGradByNorm(1.0)) == "Gradient Clip By Norm, clip_norm=1.000000"
    assert str(paddle.nn.ClipGradByGlobalNorm(1.0)) == "Gradient Clip By GlobalNorm, global_norm=1.000000"


def test_custom_clipper_and_regularizer():
    class HalfClip(ClipGradBase):
        def _dygraph_clip(self, params_grads):
            return [(p, g * 0.5) for p, g in params_grads]

    class Shift(WeightDecayRegularizer):
        def __call__(self, param, grad, block=None):
            return paddle.ones_like(param)

    w = _param([1.0, 2.0])
    opt = opt_mod.SGD(0.1, parameters=[w], grad_clip=HalfClip(), weight_decay=Shift())
    _backward(w)  # grad 2, 4 -> clipped 1, 2 -> + 1
    opt.step()
    np.testing.assert_allclose(w.numpy(), [0.8, 1.7], rtol=1e-6)


def test_regularizer_terms():
    p = paddle.to_tensor([-2.0, 0.0, 3.0])
    np.testing.assert_allclose(L1Decay(0.5)(p, None, None).numpy(), [-0.5, 0.0, 0.5])
    np.testing.assert_allclose(L2Decay(0.5)(p, None, None).numpy(), [-1.0, 0.0, 1.5])
    assert str(L1Decay(0.1)) == "L1Decay, coeff=0.100000" and str(L2Decay(0.1)) == "L2Decay, coeff=0.100000"
    assert paddle.regularizer.__all__ == ["L1Decay", "L2Decay"]


def test_parameter_regularizer_wins_over_weight_decay():
    a, b = _param([1.0]), _param([1.0])
    a.regularizer = L1Decay(1.0)
    opt = opt_mod.SGD(0.1, parameters=[a, b], weight_decay=0.5)
    _backward(a, b)  # grad 2
    opt.step()
    np.testing.assert_allclose([a.item(), b.item()], [1 - 0.1 * 3.0, 1 - 0.1 * 2.5], rtol=1e-6)


# -- options Paddle's CPU build cannot run -------------------------------------------------------------------
def test_momentum_rescale_grad_applies_before_l2():
    w = _param([1.0, -2.0])
    opt = opt_mod.Momentum(0.1, momentum=0.9, parameters=[w], rescale_grad=0.5, weight_decay=0.1)
    expected, velocity = np.array([1.0, -2.0]), np.zeros(2)
    for _ in range(3):
        _backward(w)
        opt.step()
        opt.clear_grad()
        g = 0.5 * 2 * expected + 0.1 * expected
        velocity = 0.9 * velocity + g
        expected = expected - 0.1 * velocity
    np.testing.assert_allclose(w.numpy(), expected, rtol=1e-6)


def test_adamw_lr_ratio_scales_the_whole_update():
    w = _param([1.0, -2.0], name="ratio_w")
    opt = opt_mod.AdamW(0.1, parameters=[w], weight_decay=0.2, lr_ratio=lambda p: 0.5)
    m = v = np.zeros(2)
    expected = np.array([1.0, -2.0])
    for step in range(1, 4):
        _backward(w)
        opt.step()
        opt.clear_grad()
        g = 2 * expected
        lr = 0.1 * 0.5
        expected = expected * (1 - lr * 0.2)
        m = 0.9 * m + 0.1 * g
        v = 0.999 * v + 0.001 * g * g
        b1, b2 = 0.9 ** step, 0.999 ** step
        expected = expected - lr * np.sqrt(1 - b2) / (1 - b1) * m / (np.sqrt(v) + 1e-8 * np.sqrt(1 - b2))
    np.testing.assert_allclose(w.numpy(), expected, rtol=1e-5)


def test_adam_lazy_mode_with_dense_gradients_updates_every_row():
    a, b = _param([1.0, 2.0]), _param([1.0, 2.0])
    for p, lazy in ((a, True), (b, False)):
        opt = opt_mod.Adam(0.1, parameters=[p], lazy_mode=lazy)
        _backward(p)
        opt.step()
    np.testing.assert_array_equal(a.numpy(), b.numpy())


@pytest.mark.filterwarnings("ignore:Sparse invariant checks")
@pytest.mark.parametrize("cls_name", ["Adam", "AdamW"])
def test_lazy_mode_with_sparse_gradients_touches_only_present_rows(cls_name):
    init = np.arange(6, dtype="float32").reshape(3, 2) + 1.0
    lazy_w, dense_w = _param(init), _param(init)
    dev = lazy_w._t.device
    grads = [torch.sparse_coo_tensor([[1, 1]], [[2.0, 2.0], [1.0, -1.0]], (3, 2), device=dev),
             torch.sparse_coo_tensor([[0]], [[0.5, 0.25]], (3, 2), device=dev)]
    extra = {"weight_decay": 0.0} if cls_name == "AdamW" else {}  # lazy AdamW decays only the present rows
    lazy = getattr(opt_mod, cls_name)(0.1, parameters=[lazy_w], lazy_mode=True, amsgrad=True, **extra)
    dense = getattr(opt_mod, cls_name)(0.1, parameters=[dense_w], amsgrad=True, **extra)
    lazy_w._t.grad = grads[0]
    dense_w._t.grad = grads[0].to_dense()
    lazy.step()
    dense.step()
    np.testing.assert_allclose(lazy_w.numpy(), dense_w.numpy(), rtol=1e-6)  # first step: same rows move
    row0 = dense_w.numpy()[0].copy()
    lazy_w._t.grad = grads[1]
    lazy.step()
    after = lazy_w.numpy()
    np.testing.assert_array_equal(after[1:], dense_w.numpy()[1:])  # rows 1 and 2 left alone this time
    assert not np.array_equal(after[0], row0)
    moment1 = [v for k, v in lazy.state_dict().items() if "moment1" in k][0].numpy()
    np.testing.assert_allclose(moment1[1], [0.3, 0.1], rtol=1e-6)  # not decayed by the second step
    with pytest.raises(RuntimeError, match="weight_decay"):
        opt = opt_mod.Adam(0.1, parameters=[lazy_w], lazy_mode=True, weight_decay=0.1)
        lazy_w._t.grad = grads[1]
        opt.step()


def test_found_inf_skips_the_update():
    w = _param([1.0, 2.0])
    opt = opt_mod.Adam(0.1, parameters=[w])
    _backward(w)
    opt._set_auxiliary_var("found_inf", paddle.to_tensor(True))
    opt.step()
    np.testing.assert_array_equal(w.numpy(), [1.0, 2.0])
    assert opt._get_auxiliary_var("found_inf") is True
    opt._set_auxiliary_var("found_inf", paddle.to_tensor(False))
    opt.step()
    assert not np.array_equal(w.numpy(), [1.0, 2.0])


def test_plain_tensors_as_parameters():
    x = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    opt = opt_mod.Momentum(0.5, parameters=[{"params": [x], "learning_rate": 0.5, "weight_decay": L2Decay(0.0)}])
    (x * x).sum().backward()
    opt.step()
    np.testing.assert_allclose(x.numpy(), [0.5, 1.0])


def test_tensor_coefficients():
    w = _param([1.0, -1.0])
    opt = opt_mod.SGD(0.5, parameters=[w], weight_decay=L1Decay(paddle.to_tensor([0.5])))
    (w * 0).sum().backward()
    opt.step()
    np.testing.assert_allclose(w.numpy(), [0.75, -0.75])
    assert str(L1Decay(paddle.to_tensor(0.5))) == "L1Decay, coeff=0.500000"


def test_lbfgs_state_round_trip_and_errors():
    def problem():
        w = _param([1.5, -0.5, 2.0])
        opt = opt_mod.LBFGS(learning_rate=0.5, max_iter=3, history_size=2, parameters=[w])

        def closure():
            opt.clear_grad()
            loss = ((w - paddle.to_tensor([0.5, 1.0, -1.0])) ** 2).sum() + (w ** 4).sum() * 0.1
            loss.backward()
            return loss
        return w, opt, closure

    w, opt, closure = problem()
    for _ in range(4):
        opt.step(closure)
    full = w.numpy().copy()
    w, opt, closure = problem()
    for _ in range(2):
        opt.step(closure)
    buffer = io.BytesIO()
    paddle.save(opt.state_dict(), buffer)
    buffer.seek(0)
    state = paddle.load(buffer)
    assert set(state["state"]) >= {"d", "alpha", "old_yk", "old_sk", "ro", "H_diag", "func_evals", "n_iter"}
    w2, opt2, closure2 = problem()
    w2.set_value(w)
    opt2.set_state_dict(state)
    for _ in range(2):
        opt2.step(closure2)
    np.testing.assert_allclose(w2.numpy(), full, rtol=1e-6)
    with pytest.raises(NotImplementedError):
        opt2.minimize(closure2())
    with pytest.raises(TypeError):
        opt2.step(None)
    with pytest.raises(RuntimeError, match="strong_wolfe"):
        opt_mod.LBFGS(parameters=[w2], line_search_fn="armijo").step(closure2)


def test_static_mode_allows_parameters_none():
    paddle.enable_static()
    try:
        opt = opt_mod.SGD(0.1)
        with pytest.raises(TypeError, match="static Variable"):
            opt.minimize(None)
    finally:
        paddle.disable_static()
    with pytest.raises(AttributeError):
        opt_mod.SGD(0.1)
