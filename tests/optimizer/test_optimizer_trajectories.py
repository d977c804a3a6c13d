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
    for name, values in got.items():
        expected = trajectories[f"{scenario}/{name}"]
        np.testing.assert_allclose(values, expected, rtol=1e-5, atol=1e-6, err_msg=f"{scenario}: {name}")


def test_every_scenario_has_a_fixture(trajectories):
    names = {key.rsplit("/", 1)[0] for key in trajectories.files}
    assert names == set(S.optimizer_scenarios())


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
