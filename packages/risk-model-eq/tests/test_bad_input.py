"""Bad input gets a TypeError (wrong type) or ValueError (wrong value) naming the argument."""

import numpy as np
import pytest
import risk_model_eq as rme
from hypothesis import given, settings
from hypothesis import strategies as st

import papershelf_mdp as pm
from papershelf_harness import strategies as invalid
from papershelf_harness import suite
from papershelf_harness.testing import assert_rejects

FAST = settings(max_examples=15, deadline=None)
MDP = rme.risky_choice()
PI = np.array([[0.5, 0.5], [1.0, 0.0], [1.0, 0.0]])
M = rme.moment_evaluation(MDP, PI, 2)
P, R = MDP.P.copy(), MDP.R.copy()


def _rng_exc(rng):
    return ValueError if isinstance(rng, int) and not isinstance(rng, bool) else TypeError


# ------------------------------------------------------------------ TabularMDP
@FAST
@given(v=invalid.non_numeric())
def test_mdp_arrays_non_numeric(v):
    assert_rejects(TypeError, "P", rme.TabularMDP, v, R, gamma=0.9)
    assert_rejects(TypeError, "R", rme.TabularMDP, P, v, gamma=0.9)
    if v is not None:  # init=None means uniform
        assert_rejects(TypeError, "init", rme.TabularMDP, P, R, gamma=0.9, init=v)


@FAST
@given(v=invalid.non_finite_arrays(shape=(3, 2, 3)))
def test_mdp_arrays_non_finite(v):
    assert_rejects(ValueError, "P", rme.TabularMDP, v, R, gamma=0.9)
    assert_rejects(ValueError, "R", rme.TabularMDP, P, v, gamma=0.9)


@FAST
@given(v=invalid.wrong_ndim_arrays((3,)))
def test_mdp_p_wrong_ndim(v):
    assert_rejects(ValueError, "P", rme.TabularMDP, v, R, gamma=0.9)


@FAST
@given(g=st.one_of(invalid.bad_probabilities(), st.just(1.0)))
def test_mdp_gamma_out_of_range(g):
    assert_rejects(ValueError, "gamma", rme.TabularMDP, P, R, gamma=g)


@FAST
@given(g=invalid.non_numeric())
def test_mdp_gamma_type(g):
    assert_rejects(TypeError, "gamma", rme.TabularMDP, P, R, gamma=g)


def test_mdp_values():
    bad = P.copy()
    bad[0, 0, 1] = 0.7
    assert_rejects(ValueError, "P", rme.TabularMDP, bad, R, gamma=0.9)
    assert_rejects(ValueError, "P", rme.TabularMDP, np.full((3, 2, 2), 0.5), R, gamma=0.9)
    assert_rejects(ValueError, "R", rme.TabularMDP, P, np.zeros((3, 2, 2)), gamma=0.9)
    assert_rejects(ValueError, "R", rme.TabularMDP, P, np.zeros((2, 2)), gamma=0.9)
    assert_rejects(ValueError, "init", rme.TabularMDP, P, R, gamma=0.9, init=[0.5, 0.5])
    assert_rejects(ValueError, "init", rme.TabularMDP, P, R, gamma=0.9, init=[0.5, 0.6, -0.1])
    with pytest.raises(TypeError, match="gamma"):
        rme.TabularMDP(P, R)  # gamma is required
    with pytest.raises(TypeError):
        rme.TabularMDP(P, R, 0.9)  # and keyword-only


# ------------------------------------------------------------------ mdp / pi / m arguments
FUNCS_MDP_PI = [
    ("moment_evaluation", lambda mdp, pi: rme.moment_evaluation(mdp, pi, 2)),
    ("moment_bellman", lambda mdp, pi: rme.moment_bellman(mdp, pi, M)),
    ("mean_variance", lambda mdp, pi: rme.mean_variance(mdp, pi, lam=0.5)),
    ("hitting_probability", lambda mdp, pi: rme.hitting_probability(mdp, pi, 1)),
    ("mc_returns", lambda mdp, pi: rme.mc_returns(mdp, pi, 3, rng=0)),
]


@pytest.mark.parametrize("name,fn", FUNCS_MDP_PI)
def test_mdp_and_pi(name, fn):
    assert_rejects(TypeError, "mdp", fn, "mdp", PI)
    assert_rejects(TypeError, "mdp", fn, P, PI)
    finite = pm.TabularMDP(P, R, horizon=3)
    assert_rejects(ValueError, "mdp", fn, finite, PI)
    assert_rejects(ValueError, "pi", fn, MDP, np.full((3, 2), 0.6))
    assert_rejects(ValueError, "pi", fn, MDP, np.full((2, 2), 0.5))
    assert_rejects(ValueError, "pi", fn, MDP, np.full((3, 3), 1 / 3))
    assert_rejects(ValueError, "pi", fn, MDP, np.full((4, 3, 2), 0.5))
    assert_rejects(ValueError, "pi", fn, MDP, np.array([[np.nan, 1.0], [1, 0], [1, 0]]))
    assert_rejects(ValueError, "pi", fn, MDP, np.array([[-0.5, 1.5], [1, 0], [1, 0]]))
    assert_rejects(TypeError, "pi", fn, MDP, "uniform")
    assert_rejects(ValueError, "mdp", rme.mean_variance_vi, finite)


def _int(fn, name, *args, none_ok=False, **kwargs):
    return suite.keyword(suite.Int, fn, name, *args, kwargs=kwargs, minimum=1, none_ok=none_ok)


def _pos(label, name, call):
    return suite.Int(label, name, call, minimum=1)


# counts: a non-integer is a TypeError, a count below one a ValueError
globals().update(
    suite.bad_input_suite(
        [
            _pos("moment_evaluation.m", "m", lambda v: rme.moment_evaluation(MDP, PI, v)),
            _int(rme.moment_loss, "m", MDP, MDP, [PI]),
            _int(rme.fit_model, "m", MDP, [PI]),
            _int(rme.fit_model, "steps", MDP, [PI], m=1),
            _pos("mc_returns.n_episodes", "n_episodes", lambda v: rme.mc_returns(MDP, PI, v)),
            _int(rme.mc_returns, "length", MDP, PI, 2, none_ok=True),  # None: until gamma^t < 1e-12
            _pos(
                "random_policies.n_policies", "n_policies", lambda v: rme.random_policies(v, 3, 2)
            ),
            _pos("random_policies.n_states", "n_states", lambda v: rme.random_policies(2, v, 2)),
            _pos("random_policies.n_actions", "n_actions", lambda v: rme.random_policies(2, 3, v)),
        ]
    )
)


@FAST
@given(v=invalid.non_numeric())
def test_moment_array(v):
    assert_rejects(TypeError, "M", rme.moment_bellman, MDP, PI, v)


def test_moment_array_values():
    assert_rejects(ValueError, "M", rme.moment_bellman, MDP, PI, np.ones(3))
    assert_rejects(ValueError, "M", rme.moment_bellman, MDP, PI, np.ones((2, 4)))
    assert_rejects(ValueError, "M", rme.moment_bellman, MDP, PI, np.full((2, 3), np.inf))
    assert_rejects(ValueError, "M", rme.moment_bellman, MDP, PI, np.ones((0, 3)))


# ------------------------------------------------------------------ loss and fitting
def test_policies_argument():
    for fn in (
        lambda pols: rme.moment_loss(MDP, MDP, pols, m=2),
        lambda pols: rme.fit_model(MDP, pols, m=1, steps=1),
    ):
        assert_rejects(ValueError, "policies", fn, [])
        assert_rejects(ValueError, "policies", fn, np.full((2, 3, 2), 0.7))
        assert_rejects(ValueError, "policies", fn, np.full((2, 4, 2), 0.5))
        assert_rejects(ValueError, "policies", fn, np.full((2, 3, 2, 1), 0.5))
        assert_rejects(ValueError, "policies", fn, np.full((2, 3, 2), np.nan))
        assert_rejects(TypeError, "policies", fn, [PI, np.ones((2, 2))])
        assert_rejects(TypeError, "policies", fn, "random")


def test_model_argument():
    assert_rejects(TypeError, "model", rme.moment_loss, "model", MDP, [PI], m=1)
    other = rme.TabularMDP(np.full((2, 2, 2), 0.5), np.zeros((2, 2, 2)), gamma=0.9)
    assert_rejects(ValueError, "model", rme.moment_loss, other, MDP, [PI], m=1)
    other_gamma = rme.TabularMDP(P, R, gamma=0.5)
    assert_rejects(ValueError, "model", rme.moment_loss, other_gamma, MDP, [PI], m=1)
    assert_rejects(TypeError, "mdp", rme.moment_loss, MDP, "mdp", [PI], m=1)
    assert_rejects(TypeError, "mdp", rme.fit_model, "mdp", [PI], m=1)
    assert_rejects(TypeError, "mdp", rme.mean_reward_model, P)


@FAST
@given(rng=invalid.not_rngs())
def test_rng(rng):
    exc = _rng_exc(rng)
    assert_rejects(exc, "rng", rme.fit_model, MDP, [PI], m=1, steps=1, rng=rng)
    assert_rejects(exc, "rng", rme.mc_returns, MDP, PI, 2, rng=rng)
    assert_rejects(exc, "rng", rme.random_policies, 2, 3, 2, rng=rng)


# ------------------------------------------------------------------ planning options
@FAST
@given(lam=st.one_of(st.sampled_from([np.nan, np.inf, -np.inf])))
def test_lam_values(lam):
    assert_rejects(ValueError, "lam", rme.mean_variance_vi, MDP, lam=lam)
    assert_rejects(ValueError, "lam", rme.mean_variance, MDP, PI, lam=lam)


@FAST
@given(lam=invalid.non_numeric())
def test_lam_types(lam):
    assert_rejects(TypeError, "lam", rme.mean_variance_vi, MDP, lam=lam)
    assert_rejects(TypeError, "lam", rme.mean_variance, MDP, PI, lam=lam)


def test_states_and_start():
    assert_rejects(ValueError, "states", rme.hitting_probability, MDP, PI, 3)
    assert_rejects(ValueError, "states", rme.hitting_probability, MDP, PI, [-1])
    assert_rejects(ValueError, "states", rme.hitting_probability, MDP, PI, [])
    assert_rejects(TypeError, "states", rme.hitting_probability, MDP, PI, 1.5)
    assert_rejects(TypeError, "states", rme.hitting_probability, MDP, PI, "goal")
    assert_rejects(ValueError, "start", rme.mc_returns, MDP, PI, 2, start=3)
    assert_rejects(TypeError, "start", rme.mc_returns, MDP, PI, 2, start=0.0)


# ------------------------------------------------------------------ testbeds
RISKY_Q = [
    suite.Array("risky_choice_policies.q", "q", rme.risky_choice_policies, shape=(3,), ndims=(1,))
]
globals().update(suite.bad_input_suite(RISKY_Q, max_examples=5))


@FAST
@given(q=invalid.bad_probabilities())
def test_risky_choice_policies_q_out_of_range(q):
    assert_rejects(ValueError, "q", rme.risky_choice_policies, [0.5, q])


def test_testbed_options():
    assert_rejects(ValueError, "p_intended", rme.four_rooms, p_intended=1.5)
    assert_rejects(ValueError, "p_intended", rme.four_rooms, p_intended=0.0)
    assert_rejects(TypeError, "p_intended", rme.four_rooms, p_intended="high")
    assert_rejects(ValueError, "risky_reward", rme.four_rooms, risky_reward=np.nan)
    assert_rejects(TypeError, "goal_absorbing", rme.four_rooms, goal_absorbing=1)
    assert_rejects(ValueError, "gamma", rme.four_rooms, gamma=1.0)
    assert_rejects(ValueError, "init", rme.four_rooms, init=np.ones(3) / 3)
    assert_rejects(ValueError, "safe_reward", rme.risky_choice, safe_reward=np.inf)
    assert_rejects(TypeError, "spread", rme.risky_choice, spread=None)
    assert_rejects(ValueError, "gamma", rme.risky_choice, gamma=-0.1)
    assert_rejects(ValueError, "kind", rme.random_policies, 2, 3, 2, kind="greedy")
    assert_rejects(TypeError, "kind", rme.random_policies, 2, 3, 2, kind=0)
    env = rme.four_rooms()
    assert_rejects(TypeError, "x", env.state_at, 1.0, 1)
    assert_rejects(ValueError, "free cell", env.state_at, 0, 0)
