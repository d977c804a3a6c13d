"""Optimizer state: Paddle's key names, state_dict round trips mid-training, .pdopt files both ways,
multi_precision master weights."""
import io
import os
import subprocess

import numpy as np
import pytest

import interop_cases as I
import optim_scenarios as S
import paddle_ref
import torchpaddle as paddle

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "..", "fixtures", "optimizer")

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


def _param(name, values, dtype="float32"):
    return paddle.Parameter(paddle.to_tensor(np.asarray(values, dtype="float32")).astype(dtype), name=name)


# Keys real Paddle 3.3.1 writes for one parameter "w" in a fresh unique-name namespace.
PADDLE_KEYS = {
    ("Adam", (("name", "opt"),)): ["w_opt_moment1_0", "w_opt_moment2_0", "w_opt_beta1_pow_acc_0",
                                   "w_opt_beta2_pow_acc_0"],
    ("Adadelta", ()): ["w__avg_squared_grad_0", "w__avg_squared_update_0"],
    ("RMSProp", ()): ["w_momentum_0", "w_mean_square_0", "w_mean_grad_0"],
    ("Adamax", ()): ["w_moment_0", "w_inf_norm_0", "w_beta1_pow_acc_0"],
    ("Adagrad", ()): ["w_moment_0"],
    ("Lamb", ()): ["w_moment1_0", "w_moment2_0", "w_beta1_pow_acc_0", "w_beta2_pow_acc_0"],
    ("AdamW", (("amsgrad", True),)): ["w_moment1_0", "w_moment2_0", "w_moment2_max_0", "w_beta1_pow_acc_0",
                                      "w_beta2_pow_acc_0"],
    ("Momentum", ()): ["w_velocity_0"],
    ("SGD", ()): [],
    ("NAdam", ()): ["w_momentum_decay_pow_0", "w_beta2_pow_0", "w_mu_product_0", "w_moment1_0", "w_moment2_0"],
    ("RAdam", ()): ["w_beta1_pow_0", "w_beta2_pow_0", "w_rho_0", "w_moment1_0", "w_moment2_0"],
    ("ASGD", (("batch_num", 2),)): ["w_d_0", "w_y_0", "w_m_0"],
    ("Rprop", ()): ["w_prevs_0", "w_learning_rates_0"],
}


@pytest.mark.parametrize("cls_name,kwargs", sorted(PADDLE_KEYS), ids=lambda v: str(v))
def test_state_dict_keys_match_paddle(cls_name, kwargs):
    with paddle.utils.unique_name.guard():
        w = _param("w", [1.0, 2.0, 3.0])
        opt = getattr(paddle.optimizer, cls_name)(0.1, parameters=[w], **dict(kwargs))
        assert opt.state_dict() == {}
        (w * w).sum().backward()
        opt.step()
        state = opt.state_dict()
    assert list(state) == PADDLE_KEYS[(cls_name, kwargs)]
    for key, value in state.items():
        assert value.name == key
        assert value.dtype == (paddle.int64 if key == "w_m_0" else paddle.float32)
    assert opt.get_opti_var_name_list() == PADDLE_KEYS[(cls_name, kwargs)]


def test_beta_pow_accumulators_hold_powers():
    w = _param("w", [1.0, 2.0, 3.0])
    opt = paddle.optimizer.Adam(0.1, beta1=0.5, beta2=0.25, parameters=[w])
    for _ in range(3):
        (w * w).sum().backward()
        opt.step()
        opt.clear_grad()
    pows = {k.split("_")[1]: v.numpy() for k, v in opt.state_dict().items() if "pow" in k}
    np.testing.assert_allclose(pows["beta1"], [0.5 ** 4])
    np.testing.assert_allclose(pows["beta2"], [0.25 ** 4])


# -- round trip mid-training ------------------------------------------------------------------------------
ROUND_TRIP = ["SGD/sched", "Momentum/groups", "MomentumNesterov/wd_l2", "Adam/sched", "AdamAmsgrad/plain",
              "AdamW/apply_decay", "Adamax/groups", "Adagrad/plain", "Adadelta/plain", "RMSPropCentered/plain",
              "Lamb/exclude", "Adam/groups", "NAdam/sched", "RAdam/groups", "ASGD/plain", "Rprop/plain"]


def _half_and_resume(scenario, guard):
    init, x, target = S._data()
    params = S.make_params(paddle, init)
    opt, sched = S.build_optimizer(paddle, scenario, params)
    full, _ = S.train(paddle, opt, params, 10, x, target, sched)

    params = S.make_params(paddle, init)
    opt, sched = S.build_optimizer(paddle, scenario, params)
    S.train(paddle, opt, params, 5, x, target, sched)
    buffer = io.BytesIO()
    paddle.save(opt.state_dict(), buffer)
    buffer.seek(0)
    state = paddle.load(buffer)

    start = {name: p.numpy() for name, p in params.items()}
    with guard():
        params = S.make_params(paddle, start)
        opt, sched = S.build_optimizer(paddle, scenario, params)
        opt.set_state_dict(state)
        if sched is not None:
            assert sched.last_epoch == 5
        resumed, _ = S.train(paddle, opt, params, 5, x, target, sched)
    return full, resumed


@pytest.mark.parametrize("scenario", ROUND_TRIP)
@pytest.mark.parametrize("fresh_names", [True, False])
def test_state_dict_round_trip_continues_the_same_trajectory(scenario, fresh_names):
    import contextlib
    guard = paddle.utils.unique_name.guard if fresh_names else contextlib.nullcontext
    full, resumed = _half_and_resume(scenario, guard)
    for name in full:
        np.testing.assert_allclose(resumed[name], full[name][5:], rtol=1e-6, atol=1e-7, err_msg=name)


def test_set_state_dict_after_accumulators_exist_overwrites_them():
    w = _param("w", [1.0, 2.0, 3.0])
    opt = paddle.optimizer.Adam(0.1, parameters=[w])
    (w * w).sum().backward()
    opt.step()
    saved = {k: v.numpy().copy() for k, v in opt.state_dict().items()}
    opt.step()
    opt.set_state_dict({k: paddle.to_tensor(v) for k, v in saved.items()})
    for k, v in opt.state_dict().items():
        np.testing.assert_array_equal(v.numpy(), saved[k])


def test_state_dict_errors():
    w = _param("w", [1.0, 2.0, 3.0])
    opt = paddle.optimizer.Adam(paddle.optimizer.lr.StepDecay(0.1, 2), parameters=[w])
    with pytest.raises(AssertionError, match="LR_Scheduler"):
        opt.set_state_dict({})
    with pytest.raises(TypeError, match="dict"):
        opt.set_state_dict([1, 2])
    opt = paddle.optimizer.Adam(0.1, parameters=[w])
    opt.set_state_dict({"other_moment1_0": paddle.to_tensor([1.0])})
    (w * w).sum().backward()
    with pytest.raises(AssertionError, match="w_moment1"):
        opt.step()
    opt = paddle.optimizer.Adam(0.1, parameters=[w])
    opt.set_state_dict({"w_moment1_0": paddle.to_tensor([1.0, 2.0]), "w_moment2_0": paddle.zeros([3]),
                        "w_beta1_pow_acc_0": paddle.to_tensor([0.9]), "w_beta2_pow_acc_0": paddle.to_tensor([0.9])})
    with pytest.raises(ValueError, match="shape"):
        opt.step()


def test_state_dict_before_any_step_returns_loaded_state():
    w = _param("w", [1.0, 2.0, 3.0])
    opt = paddle.optimizer.Momentum(0.1, parameters=[w])
    loaded = {"w_velocity_0": paddle.to_tensor([1.0, 1.0, 1.0])}
    opt.set_state_dict(loaded)
    assert list(opt.state_dict()) == ["w_velocity_0"]
    (w * 0).sum().backward()
    opt.step()  # velocity 0.9 * 1 + 0, param -= 0.1 * 0.9
    np.testing.assert_allclose(w.numpy(), [0.91, 1.91, 2.91], rtol=1e-6)


def test_lambda_decay_state_may_be_absent():
    w = _param("w", [1.0])
    opt = paddle.optimizer.SGD(paddle.optimizer.lr.LambdaDecay(0.1, lambda e: 1.0), parameters=[w])
    opt.set_state_dict({})


# -- .pdopt interop --------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def interop_reference():
    return np.load(os.path.join(FIXTURES, "interop.npz"))


def _half_values(reference, case):
    prefix = f"{case}/first/"
    return {k[len(prefix):]: reference[k][-1] for k in reference.files if k.startswith(prefix)}


_FLOAT32_INTEROP = [case for case in I.INTEROP if case != "sgd_bf16"]


@pytest.mark.parametrize("case", _FLOAT32_INTEROP)
def test_pdopt_from_paddle_resumes_like_paddle(case, interop_reference):
    state = paddle.load(os.path.join(FIXTURES, f"{case}.pdopt"))
    ours, _, _ = I.run_interop(paddle, case)
    assert sorted(ours) == sorted(state), f"{case}: state names differ from the .pdopt real Paddle wrote"
    trajectory = I.resume(paddle, case, _half_values(interop_reference, case), state)
    for name, values in trajectory.items():
        np.testing.assert_allclose(values, interop_reference[f"{case}/second/{name}"], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("case", _FLOAT32_INTEROP)
def test_own_interop_run_matches_paddle(case, interop_reference):
    _, first, second = I.run_interop(paddle, case)
    for name in first:
        np.testing.assert_allclose(first[name], interop_reference[f"{case}/first/{name}"], rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(second[name], interop_reference[f"{case}/second/{name}"], rtol=1e-5, atol=1e-6)


def test_pdopt_master_weights_from_paddle_are_adopted():
    # NOTE: Paddle's CPU bf16 SGD kernel ignores the master weight (it updates the bf16 parameter directly and
    # leaves the master at its first value), so only the file layout is compared, not the trajectory.
    state = paddle.load(os.path.join(FIXTURES, "sgd_bf16.pdopt"))
    master = state["master_weights"]["b"]
    assert master.name == "b_fp32_master_0" and master.dtype == paddle.float32
    start = {"b": np.zeros(3, "float32")}
    trajectory = I.resume(paddle, "sgd_bf16", start, state)
    coef = np.array([0.5, -1.0, 2.0], "float32")
    expected = [master.numpy() - 0.1 * coef * k for k in range(1, I.HALF + 1)]
    bf16 = paddle.to_tensor(np.stack(expected)).astype("bfloat16").astype("float32").numpy()
    np.testing.assert_array_equal(trajectory["b"], bf16)


@pytest.fixture(scope="module")
def written_here(tmp_path_factory):
    """Our runs' .pdopt files, resumed by real Paddle in one subprocess: case -> (our second half, Paddle's)."""
    if not paddle_ref.available():
        pytest.skip("reference PaddlePaddle venv not found")
    folder = tmp_path_factory.mktemp("pdopt")
    ours = {}
    for case in I.INTEROP:
        state, first, second = I.run_interop(paddle, case)
        paddle.save(state, str(folder / f"{case}.pdopt"))
        np.savez(str(folder / f"{case}_start.npz"), **{name: values[-1] for name, values in first.items()})
        ours[case] = second
    env = dict(os.environ, GLOG_minloglevel="3")
    proc = subprocess.run([paddle_ref.PYTHON, os.path.join(HERE, "interop_cases.py"), str(folder)],
                          capture_output=True, text=True, timeout=300, env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return {case: (ours[case], dict(np.load(str(folder / f"{case}_out.npz")))) for case in I.INTEROP}


@pytest.mark.conformance
@pytest.mark.parametrize("case", I.INTEROP)
def test_pdopt_written_here_loads_in_paddle(case, written_here):
    ours, paddles = written_here[case]
    if case == "sgd_bf16":
        assert set(paddles) == {"b"}  # Paddle's CPU kernel ignores master weights; loading them is what counts
        return
    for name, values in ours.items():
        np.testing.assert_allclose(paddles[name], values, rtol=1e-5, atol=1e-6, err_msg=name)


# -- multi_precision ---------------------------------------------------------------------------------------
MULTI = [("SGD", {}), ("Momentum", {"use_nesterov": True, "weight_decay": 0.01}), ("Adam", {"amsgrad": True}),
         ("AdamW", {}), ("Lamb", {})]
COEFS = np.array([[0.5, -1.0, 2.0, 0.25], [1.5, 0.75, -0.125, -2.0]], dtype="float32")


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
@pytest.mark.parametrize("cls_name,kwargs", MULTI, ids=[m[0] for m in MULTI])
def test_multi_precision_masters_follow_the_float32_run(cls_name, kwargs, dtype):
    init = np.array([0.5, -0.25, 1.0, 2.0], "float32")

    def run(param_dtype, multi):
        with paddle.utils.unique_name.guard():
            p = _param("p", init, param_dtype)
            opt = getattr(paddle.optimizer, cls_name)(0.05, parameters=[p], multi_precision=multi, **kwargs)
            for k in range(6):
                loss = paddle.sum(p.astype("float32") * paddle.to_tensor(COEFS[k % 2]))
                loss.backward()
                opt.step()
                opt.clear_grad()
            return p, opt

    reference, _ = run("float32", False)
    p, opt = run(dtype, True)
    state = opt.state_dict()
    master = state["master_weights"]["p"]
    assert master.name == "p_fp32_master_0" and master.dtype == paddle.float32
    np.testing.assert_allclose(master.numpy(), reference.numpy(), rtol=1e-6, atol=1e-7)
    np.testing.assert_array_equal(p.astype("float32").numpy(), master.astype(dtype).astype("float32").numpy())
    for key, value in state.items():
        if key != "master_weights":
            assert key.startswith("p_fp32_master_0_") and value.dtype == paddle.float32

    buffer = io.BytesIO()
    paddle.save(state, buffer)
    buffer.seek(0)
    loaded = paddle.load(buffer)
    assert loaded["master_weights"]["p"].name == "p_fp32_master_0"
    np.testing.assert_array_equal(loaded["master_weights"]["p"].numpy(), master.numpy())
