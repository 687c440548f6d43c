"""Bad input gets a TypeError (wrong type) or ValueError (wrong value) naming the argument."""

import numpy as np
import pasql as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from papershelf_harness import strategies as invalid
from papershelf_harness.testing import assert_rejects

FAST = settings(max_examples=15, deadline=None)
POM = pq.random_pomdp(3, 2, 2, rng=0)
AG = pq.LastObservation(2)
MU = np.full((2, 2, 2), 0.5)
P, O, R, INIT = POM.P, POM.O, POM.R, POM.init
EXACT = (pq.evaluate_periodic, pq.cyclic_limit, pq.limit_q)


def _rng_exc(rng):
    return ValueError if isinstance(rng, int) and not isinstance(rng, bool) else TypeError


# ---------------------------------------------------------------- TabularPOMDP
@FAST
@given(v=invalid.non_numeric())
def test_pomdp_arrays_wrong_type(v):
    assert_rejects(TypeError, "P", pq.TabularPOMDP, v, O, R, INIT, gamma=0.9)
    assert_rejects(TypeError, "O", pq.TabularPOMDP, P, v, R, INIT, gamma=0.9)
    assert_rejects(TypeError, "R", pq.TabularPOMDP, P, O, v, INIT, gamma=0.9)


@FAST
@given(
    p=invalid.non_finite_arrays(shape=(3, 2, 3), base=1 / 3),
    o=invalid.non_finite_arrays(shape=(3, 2), base=0.5),
)
def test_pomdp_nan(p, o):
    assert_rejects(ValueError, "P", pq.TabularPOMDP, p, O, R, INIT, gamma=0.9)
    assert_rejects(ValueError, "O", pq.TabularPOMDP, P, o, R, INIT, gamma=0.9)
    assert_rejects(ValueError, "R", pq.TabularPOMDP, P, O, o, INIT, gamma=0.9)  # o is (S, A) too


def test_pomdp_values():
    assert_rejects(ValueError, "P", pq.TabularPOMDP, P * 0.9, O, R, INIT, gamma=0.9)
    assert_rejects(ValueError, "P", pq.TabularPOMDP, P[:2], O, R, INIT, gamma=0.9)
    assert_rejects(ValueError, "O", pq.TabularPOMDP, P, O[:2], R, INIT, gamma=0.9)
    assert_rejects(ValueError, "O", pq.TabularPOMDP, P, O * 2, R, INIT, gamma=0.9)
    assert_rejects(ValueError, "O", pq.TabularPOMDP, P, -O + 1.5, R, INIT, gamma=0.9)
    assert_rejects(ValueError, "R", pq.TabularPOMDP, P, O, R[:2], INIT, gamma=0.9)
    assert_rejects(ValueError, "init", pq.TabularPOMDP, P, O, R, INIT[:2], gamma=0.9)
    assert_rejects(ValueError, "init", pq.TabularPOMDP, P, O, R, INIT * 2, gamma=0.9)
    env = pq.phase_pomdp()
    env.reset(seed=0)
    assert_rejects(ValueError, "action", env.step, 2)
    assert_rejects(TypeError, "action", env.step, "left")
    assert_rejects(TypeError, "seed", env.reset, seed="abc")


@FAST
@given(g=st.one_of(st.floats(min_value=1.0), st.floats(max_value=-1e-9), st.just(float("nan"))))
def test_gamma_out_of_range(g):
    assert_rejects(ValueError, "gamma", pq.TabularPOMDP, P, O, R, INIT, gamma=g)
    assert_rejects(ValueError, "gamma", pq.phase_pomdp, gamma=g)
    assert_rejects(ValueError, "gamma", pq.pasql, POM, AG, MU, 10, gamma=g)
    assert_rejects(ValueError, "gamma", pq.pasql_many, POM, AG, MU, 10, 2, gamma=g)
    z, a, r = np.zeros(4, int), np.zeros(3, int), np.zeros(3)
    assert_rejects(ValueError, "gamma", pq.pasql_from_data, z, a, r, period=1, gamma=g)
    assert_rejects(
        ValueError,
        "gamma",
        pq.periodic_bellman_solve,
        np.zeros((1, 2, 2)),
        np.full((1, 2, 2, 2), 0.5),
        gamma=g,
    )


# ---------------------------------------------------------------- agent states
@FAST
@given(v=st.integers(max_value=0))
def test_counts_below_one(v):
    assert_rejects(ValueError, "n_obs", pq.LastObservation, v)
    assert_rejects(ValueError, "k", pq.FrameStack, v, 2)
    assert_rejects(ValueError, "n_obs", pq.FrameStack, 2, v)
    assert_rejects(ValueError, "n_actions", pq.FrameStack, 2, 2, v)
    assert_rejects(ValueError, "period", pq.best_periodic_bruteforce, POM, AG, v)
    assert_rejects(ValueError, "n_steps", pq.pasql, POM, AG, MU, v, gamma=0.9)
    assert_rejects(ValueError, "n_steps", pq.pasql_many, POM, AG, MU, v, 2)
    assert_rejects(ValueError, "n_runs", pq.pasql_many, POM, AG, MU, 5, v)
    assert_rejects(ValueError, "n_steps", pq.sample_trajectories, POM, AG, MU, v)
    assert_rejects(ValueError, "n_states", pq.random_pomdp, v, 2, 2)
    assert_rejects(ValueError, "n_obs", pq.random_pomdp, 2, 2, v)
    z, a, r = np.zeros(4, int), np.zeros(3, int), np.zeros(3)
    assert_rejects(ValueError, "period", pq.pasql_from_data, z, a, r, period=v, gamma=0.9)


@FAST
@given(v=invalid.non_integers())
def test_counts_must_be_ints(v):
    assert_rejects(TypeError, "n_obs", pq.LastObservation, v)
    assert_rejects(TypeError, "k", pq.FrameStack, v, 2)
    assert_rejects(TypeError, "period", pq.best_periodic_bruteforce, POM, AG, v)
    assert_rejects(TypeError, "n_steps", pq.pasql, POM, AG, MU, v, gamma=0.9)
    assert_rejects(TypeError, "n_runs", pq.pasql_many, POM, AG, MU, 5, v)


def test_agent_state_protocol_and_tables():
    for fn in EXACT:
        assert_rejects(TypeError, "agent_state", fn, POM, object(), MU)
    assert_rejects(TypeError, "agent_state", pq.pasql, POM, 3, MU, 5, gamma=0.9)
    assert_rejects(TypeError, "pomdp", pq.evaluate_periodic, "pomdp", AG, MU)
    assert_rejects(TypeError, "env", pq.pasql, "env", AG, MU, 5, gamma=0.9)
    assert_rejects(
        ValueError,
        "agent_state",
        pq.evaluate_periodic,
        POM,
        pq.LastObservation(3),
        np.full((3, 2), 0.5),
    )
    assert_rejects(ValueError, "transitions", pq.FiniteAutomaton, [0, 0], np.full((2, 2, 2), 2))
    assert_rejects(ValueError, "initial", pq.FiniteAutomaton, [0, 5], np.zeros((2, 2, 2), int))
    assert_rejects(ValueError, "initial", pq.FiniteAutomaton, [0], np.zeros((2, 2, 2), int))
    assert_rejects(TypeError, "transitions", pq.FiniteAutomaton, [0, 0], np.full((2, 2, 2), 0.5))
    assert_rejects(ValueError, "y", AG.init, 2)
    assert_rejects(ValueError, "z", pq.FrameStack(2, 2, 2).update, 99, 0, 0)


# ---------------------------------------------------------------- policies
def test_behaviour_with_wrong_number_of_agent_states():
    """Z != agent_state.n_states is a ValueError naming the policy argument."""
    bad = np.full((2, 3, 2), 0.5)
    for fn in (pq.cyclic_limit, pq.limit_q):
        assert_rejects(ValueError, "behavior", fn, POM, AG, bad)
    assert_rejects(ValueError, "policy", pq.evaluate_periodic, POM, AG, bad)
    assert_rejects(ValueError, "behavior", pq.pasql, POM, AG, bad, 5, gamma=0.9)
    assert_rejects(ValueError, "behavior", pq.pasql_many, POM, AG, bad, 5, 2)
    assert_rejects(ValueError, "behavior", pq.asql, POM, AG, bad[0], 5, gamma=0.9)
    assert_rejects(ValueError, "behavior", pq.sample_trajectories, POM, AG, bad, 5)
    assert_rejects(
        ValueError, "behavior", pq.pasql, POM, AG, np.full((2, 2, 3), 1 / 3), 5, gamma=0.9
    )
    assert_rejects(ValueError, "behavior", pq.pasql_many, POM, AG, np.stack([MU] * 3), 5, 2)
    assert_rejects(ValueError, "behavior", pq.asql, POM, AG, MU, 5, gamma=0.9)  # needs (Z, A)


@FAST
@given(p=invalid.bad_probabilities())
def test_non_stochastic_policies(p):
    bad = np.full((2, 2, 2), 0.5)
    bad[1, 0] = [p, 0.5]
    assert_rejects(ValueError, "policy", pq.evaluate_periodic, POM, AG, bad)
    assert_rejects(ValueError, "behavior", pq.cyclic_limit, POM, AG, bad)
    assert_rejects(ValueError, "behavior", pq.pasql, POM, AG, bad, 5, gamma=0.9)
    assert_rejects(ValueError, "policy", pq.epsilon_greedy, bad, 0.1)
    assert_rejects(ValueError, "epsilon", pq.epsilon_greedy, MU, p)


@FAST
@given(v=invalid.wrong_ndim_arrays((2, 3)))
def test_policy_ndim(v):
    assert_rejects(ValueError, "policy", pq.evaluate_periodic, POM, AG, v)
    assert_rejects(ValueError, "Q", pq.greedy_periodic, v)


@FAST
@given(q=invalid.non_finite_arrays(shape=(2, 2, 2)))
def test_greedy_nan(q):
    assert_rejects(ValueError, "Q", pq.greedy_periodic, q)
    assert_rejects(
        ValueError, "r", pq.periodic_bellman_solve, q, np.full((2, 2, 2, 2), 0.5), gamma=0.5
    )


@pytest.mark.parametrize(
    "P",
    [np.full((2, 2, 2, 3), 1 / 3), np.full((2, 2, 2, 2), 0.4)],
    ids=["next_state_axis_mismatch", "rows_not_stochastic"],
)
def test_bellman_bad_P(P):
    assert_rejects(ValueError, "P", pq.periodic_bellman_solve, np.zeros((2, 2, 2)), P, gamma=0.5)


def test_greedy_tol_and_bruteforce_max_policies():
    assert_rejects(ValueError, "tol", pq.greedy_periodic, np.zeros((2, 2)), tol=-1.0)
    assert_rejects(
        ValueError, "max_policies", pq.best_periodic_bruteforce, POM, AG, 1, max_policies=0
    )


# ---------------------------------------------------------------- learning options
@FAST
@given(
    v=st.one_of(st.floats(max_value=0.0), st.floats(min_value=1.0 + 1e-9), st.just(float("nan")))
)
def test_step_size_values(v):
    assert_rejects(ValueError, "step_size", pq.pasql, POM, AG, MU, 5, gamma=0.9, step_size=v)
    assert_rejects(ValueError, "step_size", pq.pasql_many, POM, AG, MU, 5, 2, step_size=v)
    assert_rejects(
        ValueError, "step_size", pq.pasql, POM, AG, MU, 5, gamma=0.9, step_size=lambda n: v
    )


@FAST
@given(v=st.one_of(st.text(max_size=3), st.builds(object), st.just([0.1])))
def test_step_size_types(v):
    assert_rejects(TypeError, "step_size", pq.pasql, POM, AG, MU, 5, gamma=0.9, step_size=v)
    z, a, r = np.zeros(4, int), np.zeros(3, int), np.zeros(3)
    assert_rejects(
        TypeError, "step_size", pq.pasql_from_data, z, a, r, period=1, gamma=0.9, step_size=v
    )


@FAST
@given(v=st.one_of(st.just(float("nan")), st.just(float("inf")), st.text(min_size=1, max_size=2)))
def test_q_init(v):
    exc = TypeError if isinstance(v, str) else ValueError
    assert_rejects(exc, "q_init", pq.pasql, POM, AG, MU, 5, gamma=0.9, q_init=v)
    assert_rejects(exc, "q_init", pq.pasql_many, POM, AG, MU, 5, 2, q_init=v)
    assert_rejects(exc, "q_init", pq.limit_q, POM, AG, MU, q_init=v)


@FAST
@given(rng=invalid.not_rngs())
def test_rng(rng):
    exc = _rng_exc(rng)
    assert_rejects(exc, "rng", pq.pasql, POM, AG, MU, 5, gamma=0.9, rng=rng)
    assert_rejects(exc, "rng", pq.pasql_many, POM, AG, MU, 5, 2, rng=rng)
    assert_rejects(exc, "rng", pq.sample_trajectories, POM, AG, MU, 5, rng=rng)
    assert_rejects(exc, "rng", pq.random_pomdp, 2, 2, 2, rng=rng)


# ---------------------------------------------------------------- recorded data
@FAST
@given(r=invalid.non_finite_arrays(shape=(5,)))
def test_from_data_nan_rewards(r):
    z, a = np.zeros(6, int), np.zeros(5, int)
    assert_rejects(ValueError, "rewards", pq.pasql_from_data, z, a, r, period=2, gamma=0.9)


def test_from_data_shapes_and_codes():
    z, a, r = np.zeros(6, int), np.zeros(5, int), np.zeros(5)
    kw = {"period": 2, "gamma": 0.9}
    assert_rejects(ValueError, "agent_states", pq.pasql_from_data, z[:5], a, r, **kw)
    assert_rejects(ValueError, "rewards", pq.pasql_from_data, z, a, r[:4], **kw)
    assert_rejects(ValueError, "agent_states", pq.pasql_from_data, z[None], a, r, **kw)
    assert_rejects(ValueError, "agent_states", pq.pasql_from_data, z - 1, a, r, **kw)
    assert_rejects(ValueError, "actions", pq.pasql_from_data, z, a + 3, r, n_actions=2, **kw)
    assert_rejects(
        ValueError, "agent_states", pq.pasql_from_data, z + 4, a, r, n_agent_states=2, **kw
    )
    assert_rejects(TypeError, "agent_states", pq.pasql_from_data, z + 0.5, a, r, **kw)
    assert_rejects(TypeError, "actions", pq.pasql_from_data, z, "a", r, **kw)
    assert_rejects(ValueError, "actions", pq.pasql_from_data, z[:1], a[:0], r[:0], **kw)
    assert_rejects(
        ValueError,
        "rewards",
        pq.pasql_from_data,
        np.zeros((2, 6), int),
        np.zeros((2, 5), int),
        np.zeros((3, 5)),
        **kw,
    )
    assert_rejects(ValueError, "n_actions", pq.pasql_from_data, z, a, r, n_actions=0, **kw)
