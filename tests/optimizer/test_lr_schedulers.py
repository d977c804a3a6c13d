"""LR scheduler behaviour beyond the value sequences (those are compared with Paddle in
test_optimizer_trajectories.py): state dicts, verbose output, optimizer integration, bad arguments."""
import numpy as np
import pytest

import optim_scenarios as S
import torchpaddle as paddle

lr = paddle.optimizer.lr


def test_all_paddle_schedulers_exported():
    names = {"LRScheduler", "NoamDecay", "PiecewiseDecay", "NaturalExpDecay", "InverseTimeDecay", "PolynomialDecay",
             "LinearWarmup", "ExponentialDecay", "MultiStepDecay", "StepDecay", "LambdaDecay", "ReduceOnPlateau",
             "CosineAnnealingDecay", "MultiplicativeDecay", "OneCycleLR", "CyclicLR", "LinearLR",
             "CosineAnnealingWarmRestarts"}
    assert set(lr.__all__) == names
    for name in names:
        assert issubclass(getattr(lr, name), lr.LRScheduler)


def test_construction_steps_once():
    s = lr.StepDecay(0.5, step_size=2)
    assert s.last_epoch == 0 and s() == 0.5 and s.get_lr() == 0.5 and s.base_lr == 0.5
    s = lr.ExponentialDecay(0.5, gamma=0.5, last_epoch=3)
    assert s.last_epoch == 4 and s() == 0.5 * 0.5 ** 4
    plateau = lr.ReduceOnPlateau(1.0)
    assert plateau.last_epoch == 0 and plateau() == 1.0


@pytest.mark.filterwarnings("ignore:There are some unused values")  # LinearWarmup's nested state, as in Paddle
@pytest.mark.parametrize("name", sorted(S.scheduler_cases(lr)))
def test_state_dict_round_trip(name):
    build = S.scheduler_cases(lr)[name]
    a = build()
    for _ in range(7):
        a.step()
    b = build()
    b.set_state_dict(a.state_dict())
    assert b.last_epoch == a.last_epoch and b() == a()
    for _ in range(5):
        a.step()
        b.step()
        assert b() == pytest.approx(a(), rel=1e-12)


def test_state_dict_contents():
    assert lr.StepDecay(0.5, 2).state_dict() == {"last_epoch": 0, "last_lr": 0.5}
    warm = lr.LinearWarmup(lr.StepDecay(0.5, 2), warmup_steps=2, start_lr=0.0, end_lr=0.5)
    assert warm.state_dict() == {"last_epoch": 0, "last_lr": 0.0,
                                 "LinearWarmup_LR": {"last_epoch": 0, "last_lr": 0.5}}
    plateau = lr.ReduceOnPlateau(1.0)
    plateau.step(paddle.to_tensor(0.5))
    state = plateau.state_dict()
    assert set(state) == {"cooldown_counter", "best", "num_bad_epochs", "last_epoch", "last_lr"}
    assert state["best"] == 0.5 and isinstance(state["best"], float)


def test_set_state_dict_errors():
    s = lr.StepDecay(0.5, 2)
    with pytest.raises(RuntimeError, match="last_lr"):
        s.set_state_dict({"last_epoch": 3})
    with pytest.warns(UserWarning, match="unused"):
        s.set_state_dict({"last_epoch": 3, "last_lr": 0.1, "extra": 1})
    assert s.last_epoch == 3 and s() == 0.1


def test_verbose_prints(capsys):
    s = lr.StepDecay(0.5, step_size=1, gamma=0.5, verbose=True)
    s.step()
    out = capsys.readouterr().out.splitlines()
    assert out == ["Epoch 0: StepDecay set learning rate to 0.5.", "Epoch 1: StepDecay set learning rate to 0.25."]


def test_closed_form_jump_for_cosine():
    s = lr.CosineAnnealingDecay(0.5, T_max=10)
    s.step(5)
    assert s() == pytest.approx(0.25)


def test_plateau_accepts_numpy_and_tensor_metrics():
    s = lr.ReduceOnPlateau(1.0, patience=0, factor=0.5)
    s.step(np.array([1.0]))
    s.step(paddle.to_tensor([2.0]))
    assert s() == 0.5
    s.step(np.float32(3.0))
    assert s() == 0.25


def test_optimizer_reads_the_scheduler():
    sched = lr.PiecewiseDecay([1, 2], [0.5, 0.25, 0.125])
    w = paddle.Parameter(paddle.to_tensor([1.0]), name="w")
    opt = paddle.optimizer.SGD(sched, parameters=[w])
    seen = []
    for _ in range(3):
        seen.append(opt.get_lr())
        (w * 1.0).sum().backward()
        opt.step()
        opt.clear_grad()
        sched.step()
    assert seen == [0.5, 0.25, 0.125]
    np.testing.assert_allclose(w.numpy(), [1 - 0.875], rtol=1e-6)
    new = lr.StepDecay(0.01, 1)
    opt.set_lr_scheduler(new)
    assert opt.get_lr() == 0.01
    with pytest.raises(TypeError):
        opt.set_lr_scheduler(0.1)


def test_one_cycle_past_total_steps_raises():
    s = lr.OneCycleLR(1.0, total_steps=3)
    s.step()
    s.step()
    s.step()
    with pytest.raises(ValueError, match="total steps"):
        s.step()


def test_base_get_lr_not_implemented():
    with pytest.raises(NotImplementedError):
        lr.LRScheduler(0.1)


BAD = [
    (lambda: lr.StepDecay("a", 2), TypeError),
    (lambda: lr.StepDecay(-0.1, 2), ValueError),
    (lambda: lr.NoamDecay(0, 10), ValueError),
    (lambda: lr.PiecewiseDecay([], [0.1]), ValueError),
    (lambda: lr.PiecewiseDecay([1, 2], [0.1, 0.2]), ValueError),
    (lambda: lr.NaturalExpDecay(0.1, gamma=0.0), AssertionError),
    (lambda: lr.PolynomialDecay(0.1, decay_steps=0), AssertionError),
    (lambda: lr.PolynomialDecay(0.1, decay_steps=2.5), AssertionError),
    (lambda: lr.PolynomialDecay(0.1, decay_steps=5, power=0.0), AssertionError),
    (lambda: lr.LinearWarmup("a", 5, 0.0, 0.1), TypeError),
    (lambda: lr.LinearWarmup(0.1, 0, 0.0, 0.1), AssertionError),
    (lambda: lr.LinearWarmup(0.1, 5, 0.2, 0.1), AssertionError),
    (lambda: lr.ExponentialDecay(0.1, gamma=1.0), AssertionError),
    (lambda: lr.MultiStepDecay(0.1, milestones=5), TypeError),
    (lambda: lr.MultiStepDecay(0.1, milestones=[5, 3]), ValueError),
    (lambda: lr.MultiStepDecay(0.1, milestones=[3, 5], gamma=1.0), ValueError),
    (lambda: lr.StepDecay(0.1, step_size=1.5), TypeError),
    (lambda: lr.StepDecay(0.1, step_size=0), AssertionError),
    (lambda: lr.StepDecay(0.1, step_size=2, gamma=2.0), ValueError),
    (lambda: lr.LambdaDecay(0.1, lr_lambda=0.5), TypeError),
    (lambda: lr.MultiplicativeDecay(0.1, lr_lambda=None), TypeError),
    (lambda: lr.ReduceOnPlateau(0.1, mode="median"), ValueError),
    (lambda: lr.ReduceOnPlateau(0.1, factor=1.5), ValueError),
    (lambda: lr.ReduceOnPlateau(0.1, threshold_mode="pct"), ValueError),
    (lambda: lr.ReduceOnPlateau("0.1"), TypeError),
    (lambda: lr.ReduceOnPlateau(0.1).step("bad"), TypeError),
    (lambda: lr.ReduceOnPlateau(0.1).step(paddle.to_tensor([1.0, 2.0])), AssertionError),
    (lambda: lr.CosineAnnealingDecay(0.1, T_max=2.5), TypeError),
    (lambda: lr.CosineAnnealingDecay(0.1, T_max=0), AssertionError),
    (lambda: lr.CosineAnnealingDecay(0.1, T_max=5, eta_min="0"), TypeError),
    (lambda: lr.OneCycleLR("1", 10), TypeError),
    (lambda: lr.OneCycleLR(-1.0, 10), ValueError),
    (lambda: lr.OneCycleLR(1.0, 10.0), TypeError),
    (lambda: lr.OneCycleLR(1.0, 0), ValueError),
    (lambda: lr.OneCycleLR(1.0, 10, phase_pct=1), TypeError),
    (lambda: lr.OneCycleLR(1.0, 10, phase_pct=1.5), ValueError),
    (lambda: lr.OneCycleLR(1.0, 10, anneal_strategy="exp"), ValueError),
    (lambda: lr.OneCycleLR(1.0, 10, phase_pct=0.6, three_phase=True), ValueError),
    (lambda: lr.CyclicLR(0.1, "1", 4), TypeError),
    (lambda: lr.CyclicLR(0.1, -1.0, 4), ValueError),
    (lambda: lr.CyclicLR(0.1, 1.0, 4.0), TypeError),
    (lambda: lr.CyclicLR(0.1, 1.0, 0), ValueError),
    (lambda: lr.CyclicLR(0.1, 1.0, 4, step_size_down=-2), ValueError),
    (lambda: lr.CyclicLR(0.1, 1.0, 4, exp_gamma=1), TypeError),
    (lambda: lr.CyclicLR(0.1, 1.0, 4, mode="sawtooth"), ValueError),
    (lambda: lr.CyclicLR(0.1, 1.0, 4, scale_fn=lambda x: 1.0, scale_mode="epoch"), ValueError),
    (lambda: lr.LinearLR(0.1, 10, start_factor=0.0), ValueError),
    (lambda: lr.LinearLR(0.1, 10, end_factor=1.5), ValueError),
    (lambda: lr.LinearLR(0.1, 0), ValueError),
    (lambda: lr.CosineAnnealingWarmRestarts(0.1, T_0=0), ValueError),
    (lambda: lr.CosineAnnealingWarmRestarts(0.1, T_0=2, T_mult=0), ValueError),
    (lambda: lr.CosineAnnealingWarmRestarts(0.1, T_0=2).step(-1), ValueError),
]


@pytest.mark.parametrize("index", range(len(BAD)))
def test_bad_arguments(index):
    build, error = BAD[index]
    with pytest.raises(error):
        build()


@pytest.mark.parametrize("epochs", [0, 3, 4, 9, 13])
def test_warm_restarts_resumes_from_a_paddle_state_dict(epochs):
    a = lr.CosineAnnealingWarmRestarts(0.5, T_0=2, T_mult=2)
    for _ in range(epochs):
        a.step()
    b = lr.CosineAnnealingWarmRestarts(0.5, T_0=2, T_mult=2)
    b.set_state_dict({"last_epoch": a.last_epoch, "last_lr": a.last_lr})  # the keys Paddle writes
    assert (b.last_epoch, b(), b.T_cur, b.T_i) == (a.last_epoch, a(), a.T_cur, a.T_i)
    for _ in range(6):
        a.step()
        b.step()
        assert b() == pytest.approx(a(), rel=1e-12)


def test_functional_forms_return_schedulers():
    assert isinstance(lr.noam_decay(64, 10), lr.NoamDecay)
    assert lr.exponential_decay(0.5, 100, 0.9)() == 0.5
    assert isinstance(lr.natural_exp_decay(0.5, 100, 0.1), lr.NaturalExpDecay)
    assert isinstance(lr.inverse_time_decay(0.5, 100, 0.1), lr.InverseTimeDecay)
    assert isinstance(lr.polynomial_decay(0.5, 100), lr.PolynomialDecay)
    assert isinstance(lr.cosine_decay(0.5, 10, 20), lr.CosineAnnealingDecay)
    assert isinstance(lr.linear_lr_warmup(0.5, 5, 0.0, 0.5), lr.LinearWarmup)
    assert lr.piecewise_decay([2], [0.5, 0.1])() == 0.5
    with pytest.raises(ValueError):
        lr.piecewise_decay([2, 3], [0.5, 0.1])
    with pytest.raises(TypeError):
        lr.cosine_decay(1, 10, 20)
