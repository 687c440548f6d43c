"""Testbeds and the Monte-Carlo sampler."""

import numpy as np
import pytest
import risk_model_eq as rme

import papershelf_mdp as pm


def test_four_rooms_structure():
    env = rme.four_rooms()
    assert (env.n_states, env.n_actions) == (104, 4)
    assert tuple(env.cells[env.goal_state]) == (11, 1)
    assert tuple(env.cells[env.risky_state]) == (2, 6)
    assert env.state_at(2, 6) == env.risky_state
    np.testing.assert_allclose(env.P.sum(-1), 1.0)
    # goal absorbing with reward 0; entering it pays 1
    g = env.goal_state
    np.testing.assert_array_equal(env.P[g, :, g], 1.0)
    np.testing.assert_array_equal(env.R[g], 0.0)
    below = env.state_at(11, 2)
    assert env.R[below, 3, g] == 1.0 and env.P[below, 3, g] == pytest.approx(0.8)
    # every action at the risky cell has mean reward 0; moves along the doorway: -1 / +0.25
    rs = env.risky_state
    np.testing.assert_allclose(np.sum(env.P[rs] * env.R[rs], axis=1), 0.0, atol=1e-15)
    down, up = 2, 3
    for a, t in ((down, env.state_at(2, 7)), (up, env.state_at(2, 5))):
        assert env.P[rs, a, t] == pytest.approx(0.8)
        assert env.R[rs, a, t] == pytest.approx(0.25)
        others = [u for u in np.flatnonzero(env.P[rs, a]) if u != t]
        np.testing.assert_array_equal(env.R[rs, a, others], -1.0)
        assert np.sum(env.P[rs, a] * env.R[rs, a] ** 2) == pytest.approx(0.25)
    # rewards elsewhere only on entering the goal
    mask = np.ones(104, dtype=bool)
    mask[rs] = False
    R = env.R[mask].copy()
    R[:, :, g] = 0.0
    np.testing.assert_array_equal(R, 0.0)
    assert env.init[g] == 0.0 and env.init.sum() == pytest.approx(1.0)


def test_four_rooms_reference_goal_dynamics():
    env = rme.four_rooms(goal_absorbing=False, p_intended=1.0)
    g = env.goal_state
    left = env.state_at(10, 1)
    assert env.P[g, 0, left] == 1.0 and env.R[g, 1, g] == 1.0  # bumping at the goal pays again
    with pytest.raises(ValueError, match="free cell"):
        env.state_at(0, 0)


def test_gridworld_layout_checks():
    env = rme.gridworld(["#####", "#.RG#", "#####"], gamma=0.5)
    assert env.n_states == 3 and env.risky_state == 1 and env.goal_state == 2
    with pytest.raises(ValueError, match="goal"):
        rme.gridworld(["#####", "#...#", "#####"])
    with pytest.raises(ValueError, match="layout"):
        rme.gridworld(["#x#"])
    with pytest.raises(TypeError, match="layout"):
        rme.gridworld("#.G#")


def test_risky_choice_structure():
    mdp = rme.risky_choice()
    assert (mdp.n_states, mdp.n_actions, mdp.gamma) == (3, 2, 0.9)
    np.testing.assert_array_equal(mdp.init, [1.0, 0.0, 0.0])
    M_safe = rme.moment_evaluation(mdp, np.array([[1.0, 0], [1, 0], [1, 0]]), 2)
    M_risky = rme.moment_evaluation(mdp, np.array([[0.0, 1], [1, 0], [1, 0]]), 2)
    np.testing.assert_allclose(M_safe[:, 0], [1.0, -0.1, 0.01])
    np.testing.assert_allclose(M_risky[:, 0], [1.0, 0.0, 1.0])


def test_risky_choice_policies_gamble_with_probability_q():
    q = np.array([0.0, 0.25, 1.0])
    pis = rme.risky_choice_policies(q)
    assert pis.shape == (3, 3, 2)
    np.testing.assert_allclose(pis.sum(axis=-1), 1.0)
    np.testing.assert_array_equal(pis[:, 0, 1], q)  # the gamble at the decision state
    np.testing.assert_array_equal(pis[:, 1:, 0], 1.0)
    mdp = rme.risky_choice()
    for qi, pi in zip(q, pis):  # E[G] = -0.1 (1 - q), E[G^2] = 0.01 (1 - q) + q
        M = rme.moment_evaluation(mdp, pi, 2)[:, 0]
        np.testing.assert_allclose(M, [1.0, -0.1 * (1 - qi), 0.01 * (1 - qi) + qi], atol=1e-12)


def test_mean_reward_model():
    env = rme.four_rooms()
    tilde = rme.mean_reward_model(env)
    np.testing.assert_array_equal(tilde.P, env.P)
    pi = rme.random_policies(1, 104, 4, kind="stochastic", rng=0)[0]
    np.testing.assert_allclose(pm.policy_value(tilde, pi), pm.policy_value(env, pi), atol=1e-12)
    rs = env.risky_state
    np.testing.assert_array_equal(tilde.R[rs], 0.0)


def test_mc_returns_exact_cases():
    mdp = rme.risky_choice()
    safe = np.array([[1.0, 0], [1, 0], [1, 0]])
    np.testing.assert_allclose(rme.mc_returns(mdp, safe, 5, rng=0), -0.1)
    risky = np.array([[0.0, 1], [1, 0], [1, 0]])
    G = rme.mc_returns(mdp, risky, 20_000, rng=1)
    assert set(np.unique(G)) == {-1.0, 1.0}
    assert abs(G.mean()) < 4 / np.sqrt(G.size)
    # length=1 is the first reward; start= overrides init
    assert np.all(rme.mc_returns(mdp, risky, 10, start=1, length=1, rng=2) == 0.0)


def test_mc_returns_truncated_sum():
    """A deterministic chain paying 1 per step: sum_{t < L} gamma^t exactly."""
    P = np.ones((1, 1, 1))
    mdp = rme.TabularMDP(P, np.ones((1, 1, 1)), gamma=0.9)
    G = rme.mc_returns(mdp, np.ones((1, 1)), 3, length=7, rng=0)
    np.testing.assert_allclose(G, (1 - 0.9**7) / 0.1)
    G = rme.mc_returns(mdp, np.ones((1, 1)), 2, rng=0)  # default length: gamma^L < 1e-12
    np.testing.assert_allclose(G, 10.0, rtol=1e-11)


def test_tabular_env_episode_returns():
    """The re-exported gymnasium-API env runs the same dynamics as the exact moments."""
    mdp = rme.risky_choice()
    env = rme.TabularEnv(mdp, max_steps=3)
    returns = []
    for seed in range(400):
        obs, info = env.reset(seed=seed)
        assert obs == 0
        G, disc, done = 0.0, 1.0, False
        while not done:
            obs, r, terminated, truncated, info = env.step(1)
            G += disc * r
            disc *= mdp.gamma
            done = terminated or truncated
        returns.append(G)
    assert set(returns) == {-1.0, 1.0}
    assert abs(np.mean(returns)) < 4 / np.sqrt(400)
