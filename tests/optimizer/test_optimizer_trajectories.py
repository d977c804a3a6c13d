"""Every optimizer scenario (plain, weight decay, regularizers, clippers, groups, schedulers...) for 10 steps
against the trajectories real PaddlePaddle 3.3.1 produced (tests/fixtures/optimizer/make_fixtures.py)."""
import json
import os
import warnings

import numpy as np
import pytest

import optim_scenarios as S
import torchpaddle as paddle

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures", "optimizer")


@pytest.fixture(scope="module")
def trajectories():
    return np.load(os.path.join(FIXTURES, "trajectories.npz"))


@pytest.mark.parametrize("scenario", sorted(S.optimizer_scenarios()))
def test_trajectory_matches_paddle(scenario, trajectories):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = S.run_scenario(paddle, scenario)
    np.testing.assert_allclose(S.flatten(got), trajectories[scenario], rtol=1e-5, atol=1e-6, err_msg=scenario)


def test_every_scenario_has_a_fixture(trajectories):
    assert set(trajectories.files) == set(S.optimizer_scenarios())


def test_schedulers_match_paddle():
    with open(os.path.join(FIXTURES, "schedulers.json")) as f:
        expected = json.load(f)
    got = json.loads(json.dumps(S.run_schedulers(paddle.optimizer.lr)))
    assert got.keys() == expected.keys()
    for name in expected:
        if name.startswith("WarmRestarts") and name.endswith("@state"):
            # torchpaddle also saves the position in the cycle (T_cur, T_i), which Paddle forgets
            got[name] = {k: v for k, v in got[name].items() if k not in ("T_cur", "T_i")}
        assert S.isclose_tree(got[name], expected[name]), (name, got[name], expected[name])


@pytest.mark.parametrize("case", sorted(S.LBFGS_CASES))
def test_lbfgs_matches_paddle(case):
    expected = np.load(os.path.join(FIXTURES, "lbfgs.npz"))
    got = S.run_lbfgs(paddle, case)
    for key, values in got.items():
        # the two-loop recursion amplifies float32 rounding differences a little
        np.testing.assert_allclose(values, expected[f"{case}/{key}"], rtol=1e-4, atol=1e-5, err_msg=key)
