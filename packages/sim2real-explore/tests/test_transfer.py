"""Algorithm 1 and its baselines: FQI against a naive reference and against Q*, the episode
budget counted by a wrapper that offers only reset/step, and the method's outcomes on the lock."""

from collections import defaultdict

import numpy as np
import pytest
import sim2real_explore as se

import papershelf_mdp as pm


class OnlyResetStep:
    """The real system as Algorithm 1 may see it: reset/step and nothing else; it counts."""

    def __init__(self, mdp):
        self._env = pm.TabularEnv(mdp)
        self.resets = 0
        self.steps = 0

    def reset(self, *, seed=None, options=None):
        self.resets += 1
        return self._env.reset(seed=seed)

    def step(self, action):
        assert isinstance(action, int)
        self.steps += 1
        return self._env.step(action)


def _naive_fqi(data, H, S, A, *, pool=False, gamma=1.0):
    """Dict-of-lists FQI: Q_h(s, a) = mean of r + gamma max Q_{h+1}(s') over matching samples."""
    Q = np.zeros((H + 1, S, A))
    for h in range(H - 1, -1, -1):
        acc = defaultdict(list)
        for t in range(len(data)):
            if not pool and data.step[t] != h:
                continue
            s, a, r, s2 = data.state[t], data.action[t], data.reward[t], data.next_state[t]
            boot = 0.0 if data.terminal[t] else gamma * max(Q[h + 1, s2])
            acc[(s, a)].append(r + boot)
        for (s, a), ys in acc.items():
            Q[h, s, a] = sum(ys) / len(ys)
    return Q[:H]


@pytest.mark.parametrize(("pool", "gamma"), [(False, 1.0), (True, 1.0), (False, 0.9), (True, 0.5)])
def test_fqi_matches_naive_reference(pool, gamma):
    rng = np.random.default_rng(0)
    n, H, S, A = 300, 4, 5, 3
    data = se.Transitions.from_arrays(
        rng.integers(H, size=n),
        rng.integers(S, size=n),
        rng.integers(A, size=n),
        rng.normal(size=n),
        rng.integers(S, size=n),
        rng.random(n) < 0.2,
    )
    Q = se.fitted_q_iteration(
        data, horizon=H, n_states=S, n_actions=A, pool_steps=pool, gamma=gamma
    )
    assert np.allclose(Q, _naive_fqi(data, H, S, A, pool=pool, gamma=gamma))


def test_fqi_on_plentiful_data_recovers_q_star():
    mdp = pm.random_mdp(4, 2, horizon=3, reward="hsa", rng=1)
    rng = np.random.default_rng(2)
    m = 3000  # samples per (h, s, a)
    H, S, A = 3, 4, 2
    h, s, a = np.meshgrid(np.arange(H), np.arange(S), np.arange(A), indexing="ij")
    h, s, a = (np.repeat(x.ravel(), m) for x in (h, s, a))
    P = mdp.transitions()
    cum = np.cumsum(P[h, s, a], axis=-1)
    s2 = np.minimum((rng.random(len(h))[:, None] > cum).sum(-1), S - 1)
    r = mdp.R[h, s, a]
    data = se.Transitions.from_arrays(h, s, a, r, s2)
    Q = se.fitted_q_iteration(data, horizon=H, n_states=S, n_actions=A)
    # each backup averages m samples of a value in [0, H]: 5 sd of the mean, summed over steps
    tol = 5 * H * H / (2 * np.sqrt(m))
    assert np.abs(Q - pm.optimal_q(mdp)).max() < tol
    assert np.abs(Q - pm.optimal_q(mdp)).max() > 0  # it is an estimate, not the exact Q*


def test_greedy_policy_ties_to_the_lowest_action():
    pi = se.greedy_policy(np.array([[1.0, 1.0, 0.0], [0.0, 2.0, 2.0]]))
    assert np.array_equal(pi, [[1, 0, 0], [0, 1, 0]])


def test_budget_and_only_reset_step():
    sim, real = se.two_corridor_lock(6)
    for n in (1, 3, 4, 7, 100):
        env = OnlyResetStep(real)
        pol, info = se.sim2real_transfer(sim, env, n_episodes=n, rng=0)
        assert env.resets == info.episodes_used == info["episodes_used"] <= n
        assert info.n_explore + 2 * info.n_eval == info.episodes_used
        assert info.n_eval == n // 4
        assert env.steps <= 6 * env.resets
        assert pol.shape == (6, sim.n_states, 2)
        assert (
            len(info.data) == info.counts.sum() == 6 * info.n_explore
        )  # the lock never ends early
        env = OnlyResetStep(real)
        _, info = se.zeta_greedy_transfer(sim, env, n_episodes=n, zeta=0.3, rng=0)
        assert env.resets == info.episodes_used <= n


def test_transfer_info_is_a_frozen_mapping():
    sim, real = se.two_corridor_lock(4)
    _, info = se.sim2real_transfer(sim, real, n_episodes=40, rng=0)
    assert set(info) >= {"episodes_used", "selected", "fqi_return", "sim_return", "q_values"}
    assert dict(info)["n_eval"] == info.n_eval == 10
    with pytest.raises(AttributeError):
        info.selected = "sim"
    with pytest.raises(KeyError):
        info["nope"]


def test_reproducible_and_same_law_through_any_env():
    sim, real = se.two_corridor_lock(6)
    a = se.sim2real_transfer(sim, real, n_episodes=200, rng=5)
    b = se.sim2real_transfer(sim, real, n_episodes=200, rng=5)
    assert np.array_equal(a[0], b[0]) and np.array_equal(a[1].counts, b[1].counts)
    # the exploration data through papershelf-mdp's TabularEnv have the same law: in both, the
    # last lock digit (state H-2 at step H-2) is visited with the same frequency, within noise
    freq = []
    for env_of in (lambda: real, lambda: OnlyResetStep(real)):
        c = sum(
            se.sim2real_transfer(sim, env_of(), n_episodes=400, rng=s)[1].counts[4, 4].sum()
            for s in range(5)
        )
        freq.append(c / (5 * 200))
    p = np.mean(freq)
    assert abs(freq[0] - freq[1]) < 5 * np.sqrt(2 * p * (1 - p) / 1000)


def test_direct_transfer_is_the_sim_optimum():
    sim = pm.random_mdp(5, 3, horizon=4, rng=3)
    pi = se.direct_transfer(sim)
    assert np.allclose(se.policy_value(sim, pi), pm.optimal_value(sim))
    assert np.all(pi.max(-1) == 1.0)


def test_exploration_transfer_finds_the_lock_direct_does_not():
    """H = 8: the exploration mixture plays the last digit's key with probability >= 1/(2*3*8)
    per episode, so 300 exploration episodes see it ~12 times; a wrong method (no random tail,
    no coverage) would never open the lock."""
    sim, real = se.two_corridor_lock(8)
    wins = 0
    for seed in range(10):
        pol, info = se.sim2real_transfer(sim, real, n_episodes=600, rng=seed)
        v = se.policy_value(real, pol)[0, 0]
        assert v == pytest.approx(0.6) or v == pytest.approx(0.5)
        wins += v == pytest.approx(0.6)
        assert (info.selected == "fqi") == (info.fqi_return > info.sim_return)
    assert wins >= 7
    assert se.policy_value(real, se.direct_transfer(sim))[0, 0] == pytest.approx(0.5)


def test_zeta_greedy_with_an_uninformative_lock_never_opens_it():
    """q_sim = 0: every lock digit needs a random 1, (zeta/2)^15 per episode at H = 16 (< 4e-5
    for zeta = 1 over 1000 exploration episodes), so FQI never sees the goal."""
    sim, real = se.two_corridor_lock(16, q_sim=0.0)
    for zeta in (0.1, 1.0):
        pol, info = se.zeta_greedy_transfer(sim, real, n_episodes=2000, zeta=zeta, rng=0)
        assert info.q_values[0, 0, se.KEY_ACTION] == 0.0
        assert se.policy_value(real, pol)[0, 0] == pytest.approx(0.5)


def test_zeta_zero_explores_only_the_sim_path():
    sim, real = se.two_corridor_lock(6)
    _, info = se.zeta_greedy_transfer(sim, real, n_episodes=40, zeta=0.0, rng=0)
    visited = info.counts.sum(-1) > 0  # (H, S)
    corridor = [0] + list(range(5, 9)) + [10]  # start, the corridor states, its end
    for h in range(6):
        assert np.flatnonzero(visited[h]).tolist() == [corridor[h]]


def test_sim_equals_real_is_near_optimal():
    for seed in range(3):
        sim = pm.random_mdp(6, 3, horizon=4, reward="hsa", rng=seed)
        pol, info = se.sim2real_transfer(sim, sim, n_episodes=800, rng=seed)
        vstar = sim.init @ pm.optimal_value(sim)[0]
        assert sim.init @ se.policy_value(sim, pol)[0] >= vstar - 0.05


def test_a_user_exploration_design_is_used():
    sim, real = se.two_corridor_lock(5)
    only_corridor = [[se.direct_transfer(sim)] for _ in range(5)]
    _, info = se.sim2real_transfer(sim, real, n_episodes=100, rng=0, exploration=only_corridor)
    # drawn switch step h: pi^{sim,*} before h, random after -- the lock is entered only at h = 0
    assert info.counts[0, 0].sum() == info.n_explore
    phi = se.one_hot_features(sim.n_states, 2)
    design = se.e_optimal_design(sim, phi, n_iters=4)
    pol, info = se.sim2real_transfer(sim, real, n_episodes=400, rng=0, exploration=design)
    assert info.episodes_used == 400


def test_evaluate_matches_exact_value():
    sim, real = se.two_corridor_lock(5)
    pi = np.full((sim.n_states, 2), 0.5)
    ret = se.evaluate(pm.TabularEnv(real), pi, 1500, horizon=5, rng=0)
    v = pm.policy_return(real, pi)
    assert abs(ret.mean() - v) < 5 * ret.std() / np.sqrt(1500)


@pytest.mark.parametrize("reward", ["sa", "sas", "hsa", "hsas"])
def test_the_env_a_tabular_real_system_is_wrapped_in_samples_its_law(reward):
    """Returns of the built-in wrapper vs the exact value, every reward layout, time-varying P,
    and the numpy-row path used for large MDPs."""
    from sim2real_explore import _envs

    P = np.random.default_rng(0).dirichlet(np.ones(4), size=(3, 4, 2))
    R = np.random.default_rng(1).random(
        {"sa": (4, 2), "sas": (4, 2, 4), "hsa": (3, 4, 2), "hsas": (3, 4, 2, 4)}[reward]
    )
    mdp = se.TabularMDP(P, R, horizon=3, reward_kind=reward)
    pi = np.full((4, 2), 0.5)
    v = pm.policy_return(mdp, pi)
    for limit in (_envs.LIST_LIMIT, 0):
        old, _envs.LIST_LIMIT = _envs.LIST_LIMIT, limit
        try:
            env = _envs.FastTabularEnv(mdp)
        finally:
            _envs.LIST_LIMIT = old
        ret = se.evaluate(env, pi, 3000, horizon=3, rng=0)
        assert abs(ret.mean() - v) < 5 * ret.std() / np.sqrt(3000)
