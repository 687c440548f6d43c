"""Bad input gets a TypeError (wrong type) or ValueError (wrong value) naming the argument."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import papershelf_mdp as pm
from papershelf_harness import strategies as invalid
from papershelf_harness.testing import assert_rejects

P = np.full((2, 2, 2), 0.5)
R = np.ones((2, 2))
FAST = settings(max_examples=20, deadline=None)


def test_horizon_xor_gamma():
    assert_rejects(ValueError, "horizon", pm.TabularMDP, P, R)
    assert_rejects(ValueError, "gamma", pm.TabularMDP, P, R, horizon=2, gamma=0.5)


@FAST
@given(h=st.integers(max_value=0))
def test_horizon_below_one(h):
    assert_rejects(ValueError, "horizon", pm.TabularMDP, P, R, horizon=h)


@FAST
@given(h=invalid.non_integers().filter(lambda v: v is not None))
def test_horizon_not_an_int(h):
    assert_rejects(TypeError, "horizon", pm.TabularMDP, P, R, horizon=h)


@FAST
@given(
    g=st.one_of(st.floats(max_value=-1e-9), st.floats(min_value=1.0), invalid.non_finite_floats())
)
def test_gamma_outside_unit_interval(g):
    assert_rejects(ValueError, "gamma", pm.TabularMDP, P, R, gamma=g)


@FAST
@given(
    i=st.integers(0, 7),
    v=st.one_of(invalid.non_finite_floats(), st.floats(-5, -1e-3), st.floats(1.001, 5)),
)
def test_non_stochastic_or_nan_P(i, v):
    bad = P.copy().reshape(-1)
    bad[i] = v
    assert_rejects(ValueError, "P", pm.TabularMDP, bad.reshape(P.shape), R, horizon=2)


@FAST
@given(value=invalid.non_numeric())
def test_non_numeric_arrays(value):
    assert_rejects(TypeError, "P", pm.TabularMDP, value, R, horizon=2)
    assert_rejects(TypeError, "R", pm.TabularMDP, P, value, horizon=2)


def test_shape_mismatches():
    assert_rejects(ValueError, "P", pm.TabularMDP, np.full((2, 3, 3), 1 / 3), R, horizon=2)
    assert_rejects(ValueError, "R", pm.TabularMDP, P, np.ones((3, 2)), horizon=2)
    assert_rejects(ValueError, "P", pm.TabularMDP, np.full((3, 2, 2, 2), 0.5), R, horizon=2)
    assert_rejects(ValueError, "P", pm.TabularMDP, np.full((2, 2, 2, 2), 0.5), R, gamma=0.5)
    assert_rejects(ValueError, "init", pm.TabularMDP, P, R, [1.0], horizon=2)
    assert_rejects(ValueError, "init", pm.TabularMDP, P, R, [0.7, 0.7], horizon=2)
    # S = A = H = 2: (2, 2, 2) rewards fit two layouts; refuse to guess
    assert_rejects(ValueError, "reward_kind", pm.TabularMDP, P, np.ones((2, 2, 2)), horizon=2)
    assert_rejects(ValueError, "reward_kind", pm.TabularMDP, P, R, horizon=2, reward_kind="x")
    assert_rejects(ValueError, "R", pm.TabularMDP, P, R, horizon=2, reward_kind="sas")
    assert_rejects(ValueError, "R", pm.TabularMDP, P, np.full((2, 2), np.nan), horizon=2)


def test_policies_are_checked():
    mdp = pm.TabularMDP(P, R, horizon=2)
    for fn in (pm.policy_value, pm.q_values, pm.policy_return, pm.occupancy):
        assert_rejects(ValueError, "policy", fn, mdp, np.full((2, 2), 0.6))
        assert_rejects(ValueError, "policy", fn, mdp, np.full((2, 3), 1 / 3))
        assert_rejects(ValueError, "policy", fn, mdp, np.full((3, 2, 2), 0.5))
        assert_rejects(ValueError, "policy", fn, mdp, [[np.nan, 1.0], [0.5, 0.5]])
        assert_rejects(TypeError, "policy", fn, mdp, "uniform")
        assert_rejects(TypeError, "mdp", fn, "mdp", np.full((2, 2), 0.5))
    disc = pm.TabularMDP(P, R, gamma=0.5)
    assert_rejects(ValueError, "policy", pm.policy_value, disc, np.full((2, 2, 2), 0.5))
    assert_rejects(ValueError, "mdp", pm.state_action_distribution, disc, np.full((2, 2), 0.5))


@FAST
@given(rng=invalid.not_rngs())
def test_rng(rng):
    mdp = pm.TabularMDP(P, R, horizon=2)
    exc = ValueError if isinstance(rng, int) and not isinstance(rng, bool) else TypeError
    assert_rejects(exc, "rng", pm.sample_trajectories, mdp, np.full((2, 2), 0.5), 3, rng=rng)


def test_counts_and_lengths():
    mdp = pm.TabularMDP(P, R, horizon=2)
    pi = np.full((2, 2), 0.5)
    assert_rejects(ValueError, "n_episodes", pm.sample_trajectories, mdp, pi, 0)
    assert_rejects(TypeError, "n_episodes", pm.sample_trajectories, mdp, pi, 2.0)
    assert_rejects(ValueError, "length", pm.sample_trajectories, mdp, pi, 2, length=3)
    disc = pm.TabularMDP(P, R, gamma=0.5)
    assert_rejects(ValueError, "length", pm.sample_trajectories, disc, pi, 2)
    env = pm.TabularEnv(mdp)
    env.reset(seed=0)
    assert_rejects(ValueError, "action", env.step, 2)
    assert_rejects(TypeError, "action", env.step, 0.5)
    assert_rejects(ValueError, "max_steps", pm.TabularEnv, mdp, max_steps=0)
    assert_rejects(ValueError, "n_states", pm.random_mdp, 0, 2, horizon=2)
    with pytest.raises(TypeError, match="seed"):
        env.reset(seed="abc")
