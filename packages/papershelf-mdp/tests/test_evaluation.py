"""Exact evaluation against independent references: trajectory enumeration, brute force over
deterministic policies, truncated series, Monte Carlo with a derived tolerance."""

import itertools

import numpy as np
import pytest

import papershelf_mdp as pm


def _enumerate_value(mdp, pi):
    """E[sum of rewards] by summing over every trajectory (s0, a0, s1, ..., a_{H-1}, s_H)."""
    S, A, H = mdp.n_states, mdp.n_actions, mdp.horizon
    P = mdp.transitions()
    total = 0.0
    for traj in itertools.product(range(S), *([range(A), range(S)] * H)):
        s = traj[0]
        prob = mdp.init[s]
        ret = 0.0
        for h in range(H):
            a, s2 = traj[1 + 2 * h], traj[2 + 2 * h]
            prob *= pi[h, s, a] * P[h, s, a, s2]
            ret += mdp.transition_reward(h, s, a, s2)
            s = s2
        total += prob * ret
    return total


@pytest.mark.parametrize("reward", ["sa", "sas", "hsa", "hsas"])
def test_finite_horizon_value_equals_trajectory_enumeration(reward):
    rng = np.random.default_rng(0)
    mdp = pm.random_mdp(3, 2, horizon=3, reward=reward, rng=rng)
    pi = rng.dirichlet(np.ones(2), size=(3, 3))
    assert pm.policy_return(mdp, pi) == pytest.approx(_enumerate_value(mdp, pi), rel=1e-12)


def test_time_varying_transitions_are_used_per_step():
    rng = np.random.default_rng(1)
    P = rng.dirichlet(np.ones(2), size=(3, 2, 2))
    mdp = pm.TabularMDP(P, rng.random((2, 2, 2)), [0.3, 0.7], horizon=3, reward_kind="sas")
    pi = rng.dirichlet(np.ones(2), size=(2,))
    assert pm.policy_return(mdp, pi) == pytest.approx(
        _enumerate_value(mdp, np.broadcast_to(pi, (3, 2, 2))), rel=1e-12
    )


def test_finite_horizon_optimum_equals_brute_force_over_deterministic_policies():
    rng = np.random.default_rng(2)
    mdp = pm.random_mdp(2, 2, horizon=3, reward="sas", rng=rng)
    best = -np.inf
    for choice in itertools.product(range(2), repeat=3 * 2):
        pi = np.zeros((3, 2, 2))
        for i, a in enumerate(choice):
            pi[i // 2, i % 2, a] = 1.0
        best = max(best, pm.policy_return(mdp, pi))
    V, pi_star = pm.optimal_policy(mdp)
    assert mdp.init @ V[0] == pytest.approx(best, rel=1e-12)
    assert pm.policy_return(mdp, pi_star) == pytest.approx(best, rel=1e-12)


def test_discounted_value_equals_truncated_series_and_optimum_brute_force():
    rng = np.random.default_rng(3)
    mdp = pm.random_mdp(3, 2, gamma=0.9, reward="sas", rng=rng)
    pi = rng.dirichlet(np.ones(2), size=3)
    r_pi = np.einsum("sa,sa->s", pi, mdp.expected_reward())
    P_pi = np.einsum("sa,sat->st", pi, mdp.P)
    series, M = np.zeros(3), np.eye(3)
    for t in range(600):
        series += 0.9**t * M @ r_pi
        M = M @ P_pi
    np.testing.assert_allclose(pm.policy_value(mdp, pi), series, rtol=1e-12)
    best = max(
        pm.policy_return(mdp, np.eye(2)[list(c)]) for c in itertools.product(range(2), repeat=3)
    )
    V, pi_star = pm.optimal_policy(mdp)
    assert mdp.init @ V == pytest.approx(best, rel=1e-10)
    Q = pm.optimal_q(mdp)  # Bellman optimality holds exactly
    np.testing.assert_allclose(Q, mdp.expected_reward() + 0.9 * mdp.P @ Q.max(1), atol=1e-10)


def test_optimal_policy_breaks_ties_to_the_lowest_action():
    P = np.full((1, 3, 1), 1.0)
    mdp = pm.TabularMDP(P, np.array([[1.0, 2.0, 2.0]]), horizon=2)
    _, pi = pm.optimal_policy(mdp)
    assert pi[0, 0].tolist() == [0.0, 1.0, 0.0]
    mdp = pm.TabularMDP(P, np.array([[2.0, 2.0, 1.0]]), gamma=0.5)
    assert pm.optimal_policy(mdp)[1][0].tolist() == [1.0, 0.0, 0.0]


def test_occupancy_matches_series_and_sums_to_one():
    rng = np.random.default_rng(4)
    mdp = pm.random_mdp(4, 3, gamma=0.8, rng=rng)
    pi = rng.dirichlet(np.ones(3), size=4)
    d = pm.occupancy(mdp, pi)
    P_pi = np.einsum("sa,sat->st", pi, mdp.P)
    mu, acc = mdp.init.copy(), np.zeros(4)
    for t in range(400):
        acc += 0.2 * 0.8**t * mu
        mu = mu @ P_pi
    np.testing.assert_allclose(d, acc[:, None] * pi, atol=1e-12)
    assert d.sum() == pytest.approx(1.0)
    # the performance identity: return = <occupancy, r> / (1 - gamma)
    assert pm.policy_return(mdp, pi) == pytest.approx((d * mdp.expected_reward()).sum() / 0.2)


def test_state_action_distribution_per_step():
    rng = np.random.default_rng(5)
    mdp = pm.random_mdp(3, 2, horizon=4, rng=rng)
    pi = rng.dirichlet(np.ones(2), size=3)
    dist = pm.state_action_distribution(mdp, pi)
    np.testing.assert_allclose(dist.sum(axis=(1, 2)), 1.0)
    assert pm.policy_return(mdp, pi) == pytest.approx((dist * mdp.expected_reward()).sum())


def test_sampled_returns_agree_with_the_exact_value():
    rng = np.random.default_rng(6)
    mdp = pm.random_mdp(4, 2, horizon=5, reward="sas", rng=rng)
    pi = rng.dirichlet(np.ones(2), size=4)
    tr = pm.sample_trajectories(mdp, pi, 20_000, rng=7)
    se = tr.returns.std(ddof=1) / np.sqrt(20_000)
    assert abs(tr.returns.mean() - pm.policy_return(mdp, pi)) < 4 * se
    # first-step state frequencies follow init (4 s.e. per state)
    freq = np.bincount(tr.observations[:, 0], minlength=4) / 20_000
    assert np.all(np.abs(freq - mdp.init) < 4 * np.sqrt(mdp.init * (1 - mdp.init) / 20_000) + 1e-12)
    assert np.array_equal(tr.observations[:, 1:], tr.next_observations[:, :-1])


def test_env_follows_the_gymnasium_api_and_the_mdp():
    rng = np.random.default_rng(8)
    mdp = pm.random_mdp(3, 2, horizon=3, rng=rng)
    env = pm.TabularEnv(mdp)
    s, info = env.reset(seed=0)
    assert info == {"h": 0} and 0 <= s < 3
    returns = []
    for ep in range(4000):
        s, _ = env.reset(seed=ep) if ep == 0 else env.reset()
        total, done = 0.0, False
        while not done:
            s, r, terminated, truncated, info = env.step(0)
            total += r
            done = terminated or truncated
        assert terminated and not truncated and info["h"] == 3
        returns.append(total)
    pi = np.zeros((3, 2))
    pi[:, 0] = 1
    se = np.std(returns, ddof=1) / np.sqrt(len(returns))
    assert abs(np.mean(returns) - pm.policy_return(mdp, pi)) < 4 * se + 1e-12
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)
    same = [pm.TabularEnv(mdp).reset(seed=3)[0] for _ in range(3)]
    assert len(set(same)) == 1


def test_discounted_env_truncates_at_max_steps():
    mdp = pm.random_mdp(2, 2, gamma=0.9, rng=0)
    env = pm.TabularEnv(mdp, max_steps=5)
    env.reset(seed=1)
    flags = [env.step(1)[2:4] for _ in range(5)]
    assert flags[-1] == (False, True) and all(f == (False, False) for f in flags[:-1])
