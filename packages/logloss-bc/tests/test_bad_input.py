"""Bad input gets a TypeError (wrong type) or ValueError (wrong value) naming the argument."""

import importlib.util

import logloss_bc as lb
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from papershelf_harness import strategies as invalid
from papershelf_harness import suite
from papershelf_harness.testing import assert_rejects

FAST = settings(max_examples=20, deadline=None)
MDP, EXPERT = lb.random_imitation_mdp(4, 3, horizon=5, rng=0)
OBS = np.zeros((2, 5), dtype=int)
ACT = np.ones((2, 5), dtype=int)
KW = {"n_states": 4, "n_actions": 3}


def _rng_exc(rng):
    return ValueError if isinstance(rng, int) and not isinstance(rng, bool) else TypeError


# ------------------------------------------------------------------ tabular_logloss_bc
@FAST
@given(v=invalid.non_numeric())
def test_trajectories_non_numeric(v):
    assert_rejects(TypeError, "observations", lb.tabular_logloss_bc, v, ACT, **KW)
    assert_rejects(TypeError, "actions", lb.tabular_logloss_bc, OBS, v, **KW)
    assert_rejects(TypeError, "observations", lb.policy_log_probs, EXPERT, v, ACT)


@FAST
@given(v=invalid.wrong_ndim_arrays((2,)))
def test_trajectories_wrong_ndim(v):
    assert_rejects(ValueError, "observations", lb.tabular_logloss_bc, v.astype(int), ACT, **KW)
    assert_rejects(ValueError, "actions", lb.tabular_logloss_bc, OBS, v.astype(int), **KW)


def test_trajectories_bad_values():
    assert_rejects(TypeError, "observations", lb.tabular_logloss_bc, OBS + 0.5, ACT, **KW)
    assert_rejects(TypeError, "actions", lb.tabular_logloss_bc, OBS, ACT > 0, **KW)
    assert_rejects(ValueError, "observations", lb.tabular_logloss_bc, OBS - 1, ACT, **KW)
    assert_rejects(ValueError, "observations", lb.tabular_logloss_bc, OBS + 4, ACT, **KW)
    assert_rejects(ValueError, "actions", lb.tabular_logloss_bc, OBS, ACT + 2, **KW)  # >= n_actions
    assert_rejects(ValueError, "actions", lb.tabular_logloss_bc, OBS, ACT[:1], **KW)
    assert_rejects(ValueError, "actions", lb.tabular_logloss_bc, OBS, ACT[:, :4], **KW)
    assert_rejects(ValueError, "observations", lb.tabular_logloss_bc, OBS[:0], ACT[:0], **KW)
    assert_rejects(ValueError, "observations", lb.tabular_logloss_bc, [[0, np.nan]], [[0, 0]], **KW)
    assert_rejects(ValueError, "actions", lb.policy_log_probs, EXPERT, OBS, ACT + 2)


@FAST
@given(v=invalid.non_integers())
def test_sizes_must_be_ints(v):
    assert_rejects(TypeError, "n_states", lb.tabular_logloss_bc, OBS, ACT, n_states=v, n_actions=3)
    assert_rejects(TypeError, "n_actions", lb.tabular_logloss_bc, OBS, ACT, n_states=4, n_actions=v)
    assert_rejects(TypeError, "n_states", lb.random_imitation_mdp, v, 2, horizon=3)
    assert_rejects(TypeError, "horizon", lb.random_imitation_mdp, 3, 2, horizon=v)
    assert_rejects(TypeError, "n_rounds", lb.tabular_dagger, MDP, EXPERT, n_rounds=v, n_per_round=1)


@FAST
@given(v=invalid.negative_or_zero_ints())
def test_sizes_below_one(v):
    assert_rejects(ValueError, "n_states", lb.tabular_logloss_bc, OBS, ACT, n_states=v, n_actions=3)
    assert_rejects(
        ValueError, "n_actions", lb.tabular_logloss_bc, OBS, ACT, n_states=4, n_actions=v
    )
    assert_rejects(ValueError, "n_actions", lb.random_imitation_mdp, 3, v, horizon=3)
    assert_rejects(ValueError, "horizon", lb.random_imitation_mdp, 3, 2, horizon=v)
    assert_rejects(ValueError, "horizon", lb.TabularMDP, MDP.P, MDP.R, MDP.init, horizon=v)
    assert_rejects(
        ValueError, "n_per_round", lb.tabular_dagger, MDP, EXPERT, n_rounds=1, n_per_round=v
    )


def test_options():
    assert_rejects(TypeError, "stationary", lb.tabular_logloss_bc, OBS, ACT, **KW, stationary=1)
    assert_rejects(
        TypeError,
        "stationary",
        lb.tabular_dagger,
        MDP,
        EXPERT,
        n_rounds=1,
        n_per_round=1,
        stationary="no",
    )
    assert_rejects(
        TypeError, "normalized", lb.random_imitation_mdp, 3, 2, horizon=3, normalized=None
    )
    assert_rejects(
        ValueError, "concentration", lb.random_imitation_mdp, 3, 2, horizon=3, concentration=0.0
    )


# ------------------------------------------------------------- exact values and Hellinger
@FAST
@given(p=invalid.bad_probabilities())
def test_policies_must_be_stochastic(p):
    bad = EXPERT.copy()
    bad[0, 0] = p
    assert_rejects(ValueError, "policy", lb.exact_value, MDP, bad)
    assert_rejects(ValueError, "policies", lb.exact_values, MDP, bad[None])
    assert_rejects(ValueError, "pa", lb.hellinger_sq, MDP, bad, EXPERT)
    assert_rejects(ValueError, "pb", lb.hellinger_sq, MDP, EXPERT, bad)
    assert_rejects(ValueError, "expert", lb.tabular_dagger, MDP, bad, n_rounds=1, n_per_round=1)
    assert_rejects(ValueError, "policy", lb.policy_log_probs, bad, OBS, ACT)


def test_policy_shapes_and_mdps():
    assert_rejects(ValueError, "policy", lb.exact_value, MDP, EXPERT[:3])
    assert_rejects(ValueError, "pb", lb.hellinger_sq, MDP, EXPERT, np.full((4, 4, 3), 1 / 3))
    assert_rejects(ValueError, "policies", lb.exact_values, MDP, EXPERT)
    assert_rejects(TypeError, "mdp", lb.exact_value, "mdp", EXPERT)
    assert_rejects(TypeError, "mdp", lb.hellinger_sq, None, EXPERT, EXPERT)
    disc = lb.TabularMDP(MDP.P, MDP.R, gamma=0.9)
    assert_rejects(ValueError, "mdp", lb.hellinger_sq, disc, EXPERT, EXPERT)
    assert_rejects(ValueError, "mdp", lb.tabular_dagger, disc, EXPERT, n_rounds=1, n_per_round=1)
    assert_rejects(ValueError, "P", lb.TabularMDP, MDP.P * 2, MDP.R, MDP.init, horizon=5)
    assert_rejects(ValueError, "policy", lb.policy_log_probs, np.full((3, 4, 3), 1 / 3), OBS, ACT)


@FAST
@given(v=invalid.non_finite_arrays((2, 3), base=-1.0))
def test_log_probs_nan_or_inf(v):
    v = v - 20.0  # the finite entries are log-probabilities (< 0)
    if np.isnan(v).any() or (v == np.inf).any():
        assert_rejects(ValueError, "log_probs", lb.hellinger_sq_from_logprobs, v)
        assert_rejects(ValueError, "log_ratios", lb.hellinger_sq_from_log_ratios, v)
    else:  # -inf: a probability 0 is allowed
        assert 0.0 <= lb.hellinger_sq_from_logprobs(v) <= 2.0


@FAST
@given(v=st.floats(min_value=1e-12, max_value=1e6))
def test_log_probs_positive(v):
    assert_rejects(ValueError, "log_probs", lb.hellinger_sq_from_logprobs, [[-1.0, v]])


def test_log_probs_shape_and_type():
    assert_rejects(ValueError, "log_probs", lb.hellinger_sq_from_logprobs, [-1.0, -2.0])
    assert_rejects(ValueError, "log_probs", lb.hellinger_sq_from_logprobs, np.zeros((0, 3)))
    assert_rejects(TypeError, "log_probs", lb.hellinger_sq_from_logprobs, "abc")
    assert_rejects(ValueError, "log_ratios", lb.hellinger_sq_from_log_ratios, np.zeros((2, 2, 2)))


# ------------------------------------------------------------------------- randomness
@FAST
@given(rng=invalid.not_rngs())
def test_rng(rng):
    exc = _rng_exc(rng)
    assert_rejects(exc, "rng", lb.random_imitation_mdp, 3, 2, horizon=3, rng=rng)
    assert_rejects(exc, "rng", lb.tabular_dagger, MDP, EXPERT, n_rounds=1, n_per_round=1, rng=rng)
    env = lb.TabularEnv(MDP)
    assert_rejects(
        exc, "rng", lb.rollout, env, lambda o: np.zeros(len(o), int), 1, horizon=2, rng=rng
    )


# ------------------------------------------------------------------ rollout and experts
def test_rollout_arguments():
    env = lb.TabularEnv(MDP)

    def pol(o):
        return np.zeros(len(o), dtype=int)

    assert_rejects(TypeError, "env", lb.rollout, MDP, pol, 1, horizon=2)
    assert_rejects(TypeError, "policy", lb.rollout, env, EXPERT, 1, horizon=2)
    assert_rejects(ValueError, "n_episodes", lb.rollout, env, pol, 0, horizon=2)
    assert_rejects(TypeError, "horizon", lb.rollout, env, pol, 1, horizon=2.0)
    assert_rejects(ValueError, "horizon", lb.rollout, env, pol, 1, horizon=0)
    assert_rejects(TypeError, "policy", lb.rollout, env, lambda o: ["left"] * len(o), 1, horizon=2)


@FAST
@given(v=invalid.non_numeric())
def test_experts_non_numeric(v):
    assert_rejects(TypeError, "observations", lb.cartpole_expert, v)
    assert_rejects(TypeError, "observations", lb.pendulum_expert, v)


@FAST
@given(v=invalid.non_finite_arrays((2, 4)), w=invalid.non_finite_arrays((3, 3)))
def test_experts_nan(v, w):
    assert_rejects(ValueError, "observations", lb.cartpole_expert, v)
    assert_rejects(ValueError, "observations", lb.pendulum_expert, w)


def test_experts_shape():
    assert_rejects(ValueError, "observations", lb.cartpole_expert, np.zeros((2, 3)))
    assert_rejects(ValueError, "observations", lb.pendulum_expert, np.zeros((2, 4)))
    assert_rejects(ValueError, "observations", lb.cartpole_expert, 1.0)


# ------------------------------------------------------------------------ torch extra
def _torch():
    torch = pytest.importorskip("torch")
    torch.set_num_threads(1)
    return torch


def _size(label, name, call):
    return suite.Int(label, name, call, minimum=1)


# network sizes: a non-integer is a TypeError, a size below one a ValueError (torch extra: the
# cases exist only where torch is installed, i.e. in tests_extras; a skip raised inside the
# suite's assert_rejects would read as a failure)
if importlib.util.find_spec("torch") is not None:
    _torch()
    globals().update(
        suite.bad_input_suite(
            [
                _size("CategoricalMLP.obs_dim", "obs_dim", lambda v: lb.CategoricalMLP(v, 2)),
                _size("CategoricalMLP.n_actions", "n_actions", lambda v: lb.CategoricalMLP(2, v)),
                _size("GaussianMLP.act_dim", "act_dim", lambda v: lb.GaussianMLP(2, v)),
                _size(
                    "GaussianMLP.hidden_sizes",
                    "hidden_sizes",
                    lambda v: lb.GaussianMLP(2, 1, hidden_sizes=(8, v)),
                ),
            ]
        )
    )


def test_policy_options():
    _torch()
    assert_rejects(TypeError, "hidden_sizes", lb.CategoricalMLP, 2, 2, hidden_sizes="64")
    assert_rejects(TypeError, "hidden_sizes", lb.CategoricalMLP, 2, 2, hidden_sizes=64)
    assert_rejects(ValueError, "activation", lb.CategoricalMLP, 2, 2, activation="sigmoid")
    assert_rejects(
        ValueError, "max_log_std", lb.GaussianMLP, 2, 1, min_log_std=1.0, max_log_std=0.0
    )
    assert_rejects(ValueError, "min_log_std", lb.GaussianMLP, 2, 1, min_log_std=np.nan)
    assert_rejects(TypeError, "state_dependent_std", lb.GaussianMLP, 2, 1, state_dependent_std=0)


def test_policy_inputs():
    torch = _torch()
    cat, gau = lb.CategoricalMLP(3, 2), lb.GaussianMLP(3, 2)
    obs = np.zeros((4, 3))
    assert_rejects(ValueError, "obs", cat.log_prob, np.zeros((4, 2)), np.zeros(4, int))
    assert_rejects(ValueError, "obs", cat.log_prob, np.full((4, 3), np.nan), np.zeros(4, int))
    assert_rejects(TypeError, "obs", cat.act, "obs")
    assert_rejects(ValueError, "actions", cat.log_prob, obs, np.full(4, 2))  # >= n_actions
    assert_rejects(ValueError, "actions", cat.log_prob, obs, np.full(4, -1))
    assert_rejects(ValueError, "actions", cat.log_prob, obs, np.zeros(3, int))
    assert_rejects(TypeError, "actions", cat.log_prob, torch.zeros(4, 3), torch.zeros(4))
    assert_rejects(TypeError, "actions", cat.log_prob, obs, np.full(4, 0.5))
    assert_rejects(ValueError, "actions", gau.log_prob, obs, np.zeros((4, 3)))
    assert_rejects(ValueError, "actions", gau.squared_error, obs, np.full((4, 2), np.inf))
    assert_rejects(TypeError, "deterministic", cat.act, obs, deterministic=1)
    assert_rejects(TypeError, "generator", gau.act, obs, generator=0)


def test_learner_arguments():
    torch = _torch()
    pi = lb.CategoricalMLP(3, 2)
    obs, act = np.zeros((10, 3)), np.zeros(10, int)
    for learn in (lb.logloss_bc, lb.mse_bc):
        assert_rejects(TypeError, "policy", learn, "policy", obs, act, epochs=1)
        assert_rejects(ValueError, "epochs", learn, pi, obs, act, epochs=0)
        assert_rejects(TypeError, "epochs", learn, pi, obs, act, epochs=1.5)
        assert_rejects(ValueError, "lr", learn, pi, obs, act, epochs=1, lr=0.0)
        assert_rejects(ValueError, "lr", learn, pi, obs, act, epochs=1, lr=np.inf)
        assert_rejects(ValueError, "batch_size", learn, pi, obs, act, epochs=1, batch_size=0)
        assert_rejects(TypeError, "generator", learn, pi, obs, act, epochs=1, generator=1)
        assert_rejects(ValueError, "actions", learn, pi, obs, act[:9], epochs=1)
        assert_rejects(ValueError, "observations", learn, pi, np.zeros((10, 4)), act, epochs=1)
        assert_rejects(ValueError, "observations", learn, pi, np.zeros((0, 3)), act[:0], epochs=1)
        assert_rejects(ValueError, "actions", learn, pi, obs, np.full(10, 5), epochs=1)
        assert_rejects(TypeError, "observations", learn, pi, None, act, epochs=1)
    before = [p.detach().clone() for p in pi.parameters()]
    act_bad = act.copy()
    act_bad[-1] = 7  # the whole data set is checked before the first step
    assert_rejects(ValueError, "actions", lb.logloss_bc, pi, obs, act_bad, epochs=1, batch_size=2)
    assert all(torch.equal(a, b) for a, b in zip(before, pi.parameters()))
    assert_rejects(TypeError, "policy", lb.logloss_bc, torch.nn.Linear(3, 2), obs, act, epochs=1)


def test_dagger_and_hellinger_arguments():
    _torch()
    env = lb.TabularEnv(MDP)
    pi = lb.CategoricalMLP(1, 3)
    kw = {"rounds": 1, "n_per_round": 1, "horizon": 2, "epochs": 1}

    def ex(o):
        return np.zeros(len(o), dtype=int)

    assert_rejects(TypeError, "env", lb.dagger, "env", ex, pi, **kw)
    assert_rejects(TypeError, "expert", lb.dagger, env, EXPERT, pi, **kw)
    assert_rejects(TypeError, "policy", lb.dagger, env, ex, object(), **kw)
    assert_rejects(ValueError, "loss", lb.dagger, env, ex, pi, **kw, loss="l1")
    assert_rejects(ValueError, "rounds", lb.dagger, env, ex, pi, **{**kw, "rounds": 0})
    assert_rejects(TypeError, "rng", lb.dagger, env, ex, pi, **kw, rng="abc")
    obs, act = np.zeros((2, 3, 1)), np.zeros((2, 3), int)
    assert_rejects(
        ValueError,
        "mask",
        lb.hellinger_sq_deterministic_expert,
        pi,
        obs,
        act,
        mask=np.ones((2, 2), bool),
    )
    assert_rejects(
        ValueError, "observations", lb.hellinger_sq_deterministic_expert, pi, obs[0], act[0]
    )
