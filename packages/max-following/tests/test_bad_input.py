"""Bad input gets a TypeError (wrong type) or ValueError (wrong value) naming the argument."""

import max_following as mf
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from papershelf_harness import strategies as invalid
from papershelf_harness.testing import assert_rejects

FAST = settings(max_examples=20, deadline=None)
MDP, POLS = mf.zigzag(4)


@FAST
@given(v=invalid.non_numeric())
def test_tabular_policy_probs(v):
    assert_rejects(TypeError, "probs", mf.TabularPolicy, v)


def test_tabular_policy_values():
    assert_rejects(ValueError, "probs", mf.TabularPolicy, [[0.5, 0.6]])
    assert_rejects(ValueError, "probs", mf.TabularPolicy, [[np.nan, 1.0]])
    assert_rejects(ValueError, "probs", mf.TabularPolicy, [0.5, 0.5])
    assert_rejects(
        ValueError, "obs", mf.TabularPolicy([[1.0, 0.0]]).act, 3, 0, np.random.default_rng()
    )


def test_exact_tools():
    assert_rejects(TypeError, "mdp", mf.policy_value, "mdp", POLS[0])
    assert_rejects(ValueError, "policy", mf.policy_value, MDP, np.full((2, 2), 0.5))
    assert_rejects(TypeError, "policies", mf.constituent_values, MDP, POLS[0].probs)
    assert_rejects(ValueError, "policies", mf.constituent_values, MDP, [])
    assert_rejects(
        ValueError, "policies[1]", mf.max_following_policy, MDP, [POLS[0], np.ones((2, 2))]
    )
    assert_rejects(ValueError, "tie_break", mf.max_following_policy, MDP, POLS, tie_break="best")
    assert_rejects(TypeError, "tie_break", mf.max_following_policy, MDP, POLS, tie_break=1)
    disc = mf.TabularMDP(np.full((2, 2, 2), 0.5), np.ones((2, 2)), gamma=0.9)
    assert_rejects(ValueError, "mdp", mf.optimal_value, disc)


@FAST
@given(rng=invalid.not_rngs())
def test_rng(rng):
    exc = ValueError if isinstance(rng, int) and not isinstance(rng, bool) else TypeError
    assert_rejects(exc, "rng", mf.max_following_policy, MDP, POLS, tie_break="random", rng=rng)
    assert_rejects(
        exc, "rng", mf.MaxIteration(POLS, horizon=4, n_per_step=1).fit, mf.tabular_env(MDP), rng=rng
    )


@FAST
@given(v=invalid.non_integers())
def test_counts_must_be_ints(v):
    assert_rejects(TypeError, "horizon", mf.MaxIteration, POLS, horizon=v, n_per_step=3)
    assert_rejects(TypeError, "n_per_step", mf.MaxIteration, POLS, horizon=4, n_per_step=v)


@FAST
@given(v=st.integers(max_value=0))
def test_counts_below_one(v):
    assert_rejects(ValueError, "horizon", mf.MaxIteration, POLS, horizon=v, n_per_step=3)
    assert_rejects(ValueError, "n_per_step", mf.MaxIteration, POLS, horizon=4, n_per_step=v)
    assert_rejects(ValueError, "m", mf.zigzag, v)


def test_constituents_oracle_env():
    assert_rejects(ValueError, "constituents", mf.MaxIteration, [], horizon=2, n_per_step=1)
    assert_rejects(
        TypeError, "constituents[1]", mf.MaxIteration, [POLS[0], "left"], horizon=2, n_per_step=1
    )
    assert_rejects(TypeError, "constituents", mf.MaxIteration, POLS[0], horizon=2, n_per_step=1)
    assert_rejects(TypeError, "oracle", mf.MaxIteration, POLS, horizon=2, n_per_step=1, oracle=3)
    assert_rejects(TypeError, "env", mf.MaxIteration(POLS, horizon=2, n_per_step=1).fit, MDP)


def test_oracles():
    assert_rejects(ValueError, "y", mf.TabularMeanOracle().fit, np.ones((3, 1)), np.ones(2))
    assert_rejects(ValueError, "X", mf.TabularMeanOracle().fit, np.ones(3), np.ones(3))
    assert_rejects(ValueError, "y", mf.RidgeOracle().fit, np.ones((2, 1)), [1.0, np.inf])
    assert_rejects(ValueError, "alpha", mf.RidgeOracle, alpha=-1.0)
    assert_rejects(TypeError, "features", mf.RidgeOracle, features="rbf")
    assert_rejects(ValueError, "width", mf.rbf_features, np.ones((2, 2)), width=0.0)


def test_navigation_env():
    env = mf.WallGapNavigation()
    env.reset(seed=0)
    assert_rejects(ValueError, "action", env.step, 5)
    assert_rejects(TypeError, "action", env.step, "up")
    assert_rejects(ValueError, "horizon", mf.WallGapNavigation, horizon=0)
    assert_rejects(ValueError, "n_episodes", mf.evaluate, env, POLS[0], 0, horizon=3)
