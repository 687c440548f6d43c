"""Exact tools against independent references: a forward DP over histories, brute-force
enumeration, closed forms, Monte-Carlo frequencies and value iteration."""

import itertools

import numpy as np
import pasql as pq
import pytest


def naive_value(pom, ag, pol, H):
    """sum_{t<H} gamma^t E[R_t] by propagating the law of (s_t, z_t) with explicit loops over
    (s, a, s', y') and the agent state's own update (no tabulation)."""
    L = pol.shape[0]
    r = pom.expected_reward()
    d = {}
    for s in range(pom.n_states):
        for y in range(pom.n_obs):
            k = (s, ag.init(y))
            d[k] = d.get(k, 0.0) + pom.init[s] * pom.O[s, y]
    J = 0.0
    for t in range(H):
        nd = {}
        for (s, z), p in d.items():
            for a in range(pom.n_actions):
                pa = p * pol[t % L, z, a]
                J += pom.gamma**t * pa * r[s, a]
                for s2 in range(pom.n_states):
                    for y2 in range(pom.n_obs):
                        k = (s2, ag.update(z, y2, a))
                        nd[k] = nd.get(k, 0.0) + pa * pom.P[s, a, s2] * pom.O[s2, y2]
        d = nd
    return J


@pytest.mark.parametrize(
    "ag", [pq.LastObservation(2), pq.FrameStack(2, 2, 2), pq.FrameStack(3, 2)], ids=repr
)
@pytest.mark.parametrize("L", [1, 3])
def test_evaluate_periodic_against_forward_dp(ag, L):
    pom = pq.random_pomdp(3, 2, 2, gamma=0.6, rng=4)
    pol = np.random.default_rng(L).dirichlet(np.ones(2), size=(L, ag.n_states))
    H = 80  # tail gamma^H / (1 - gamma) < 1e-17
    assert pq.evaluate_periodic(pom, ag, pol) == pytest.approx(
        naive_value(pom, ag, pol, H), abs=1e-12
    )


def test_evaluate_with_per_transition_rewards():
    pom0 = pq.random_pomdp(3, 2, 2, gamma=0.5, rng=8)
    R = np.random.default_rng(0).random((3, 2, 3))
    pom = pq.TabularPOMDP(pom0.P, pom0.O, R, pom0.init, gamma=0.5)
    ag = pq.LastObservation(2)
    pol = np.random.default_rng(2).dirichlet(np.ones(2), size=(2, 2))
    assert pq.evaluate_periodic(pom, ag, pol) == pytest.approx(
        naive_value(pom, ag, pol, 70), abs=1e-12
    )
    # a stationary (Z, A) policy is period 1
    assert pq.evaluate_periodic(pom, ag, pol[0]) == pytest.approx(
        pq.evaluate_periodic(pom, ag, pol[:1]), abs=1e-14
    )


def test_phase_example_closed_forms():
    g = 0.9
    pom, ag = pq.phase_pomdp(gamma=g), pq.LastObservation(1)
    j1, j2 = pq.best_periodic_bruteforce(pom, ag, 1), pq.best_periodic_bruteforce(pom, ag, 2)
    assert j1.value == pytest.approx(1 / (1 - g**2), abs=1e-12)  # 5.263
    assert j2.value == pytest.approx(1 / (1 - g), abs=1e-12)  # 10
    np.testing.assert_array_equal(j1.policy, [[[1, 0]]])
    np.testing.assert_array_equal(j2.policy, [[[1, 0]], [[0, 1]]])
    mu = np.full((2, 1, 2), 0.5)
    Q = pq.limit_q(pom, ag, mu)
    np.testing.assert_allclose(Q, [[[10, 9]], [[9, 10]]], atol=1e-10)
    assert pq.evaluate_periodic(pom, ag, pq.greedy_periodic(Q)) == pytest.approx(10, abs=1e-12)
    # ASQL: the chain is 2-periodic, the Cesaro law has s uniform, Q = 0.5 / (1 - gamma)
    np.testing.assert_allclose(pq.limit_q(pom, ag, mu[0]), [[5, 5]], atol=1e-10)
    zeta1 = pq.cyclic_limit(pom, ag, mu[:1])
    np.testing.assert_allclose(zeta1, np.full((1, 2, 1, 2), 0.25), atol=1e-12)
    np.testing.assert_array_equal(pq.cyclic_limit(pom, ag, mu[0]), zeta1[0])  # (Z, A) -> (S, Z, A)
    zeta2 = pq.cyclic_limit(pom, ag, mu)
    np.testing.assert_allclose(zeta2[0, 0], [[0.5, 0.5]], atol=1e-12)  # phase 0: s = 0
    np.testing.assert_allclose(zeta2[1, 1], [[0.5, 0.5]], atol=1e-12)  # phase 1: s = 1


@pytest.mark.parametrize("L", [1, 2, 3])
def test_bruteforce_against_enumeration(L):
    pom = pq.random_pomdp(3, 2, 2, rng=10 + L)
    ag = pq.LastObservation(2)
    best = pq.best_periodic_bruteforce(pom, ag, L)
    vals = [
        pq.evaluate_periodic(pom, ag, np.eye(2)[np.array(acts).reshape(L, 2)])
        for acts in itertools.product(range(2), repeat=2 * L)
    ]
    assert best.value == pytest.approx(max(vals), abs=1e-12)
    first = int(np.argmax(np.array(vals) >= max(vals) - 1e-12))
    np.testing.assert_array_equal(
        best.policy.argmax(-1).ravel(), np.unravel_index(first, (2,) * (2 * L))
    )
    assert pq.evaluate_periodic(pom, ag, best.policy) == pytest.approx(best.value, abs=1e-12)


def test_bruteforce_ties_go_to_the_lowest_index():
    # rewards ignore the action: every policy ties, the first (all zeros) is returned
    pom0 = pq.random_pomdp(2, 3, 2, rng=0)
    pom = pq.TabularPOMDP(
        np.repeat(pom0.P[:, :1], 3, 1), pom0.O, np.ones((2, 3)), pom0.init, gamma=0.9
    )
    best = pq.best_periodic_bruteforce(pom, pq.LastObservation(2), 2)
    np.testing.assert_array_equal(best.policy.argmax(-1), np.zeros((2, 2)))


def test_bruteforce_guard():
    pom = pq.random_pomdp(3, 2, 2, rng=0)
    with pytest.raises(ValueError, match="period"):
        pq.best_periodic_bruteforce(pom, pq.LastObservation(2), 6, max_policies=1000)


def test_monotone_along_multiples():
    ag = pq.LastObservation(2)
    for seed in range(4):
        pom = pq.random_pomdp(4, 2, 2, rng=seed)
        J = {L: pq.best_periodic_bruteforce(pom, ag, L).value for L in (1, 2, 3, 4, 6)}
        assert J[2] >= J[1] - 1e-12 and J[4] >= J[2] - 1e-12
        assert J[6] >= J[3] - 1e-12 and J[6] >= J[2] - 1e-12 and J[3] >= J[1] - 1e-12


def test_cyclic_limit_against_monte_carlo():
    """Independent runs, each read at one late time of each phase: frequencies within 5 s.e."""
    pom = pq.random_pomdp(4, 2, 2, rng=7)
    ag = pq.LastObservation(2)
    mu = np.random.default_rng(0).dirichlet(np.ones(2), size=(2, 2))
    zeta = pq.cyclic_limit(pom, ag, mu)
    assert zeta.shape == (2, 4, 2, 2)
    np.testing.assert_allclose(zeta.sum(axis=(1, 2, 3)), 1.0, atol=1e-12)
    n = 6000
    tr = pq.sample_trajectories(pom, ag, mu, 42, n_runs=n, rng=1)
    for l, t in ((0, 40), (1, 41)):
        emp = np.zeros((4, 2, 2))
        np.add.at(emp, (tr.states[:, t], tr.agent_states[:, t], tr.actions[:, t]), 1.0)
        emp /= n
        se = np.sqrt(zeta[l] * (1 - zeta[l]) / n)
        assert np.all(np.abs(emp - zeta[l]) <= 5 * se + 1e-3), (l, np.abs(emp - zeta[l]).max())


def test_cyclic_limit_is_invariant():
    """zeta^{l+1} = zeta^l M_l and zeta^0 = zeta^{L-1} M_{L-1}, M built with explicit loops."""
    pom = pq.random_pomdp(3, 2, 2, rng=5)
    ag = pq.FrameStack(2, 2, 2)
    Z = ag.n_states
    mu = np.random.default_rng(3).dirichlet(np.ones(2), size=(3, Z))
    zeta = pq.cyclic_limit(pom, ag, mu)
    for l in range(3):
        nxt = np.zeros((3, Z, 2))
        for s, z, a in itertools.product(range(3), range(Z), range(2)):
            p = zeta[l, s, z, a]
            for s2, y2 in itertools.product(range(3), range(2)):
                z2 = ag.update(z, y2, a)
                nxt[s2, z2] += p * pom.P[s, a, s2] * pom.O[s2, y2] * mu[(l + 1) % 3, z2]
        np.testing.assert_allclose(nxt, zeta[(l + 1) % 3], atol=1e-12)


def value_iteration(r, P, gamma, iters=3000):
    L = r.shape[0]
    Q = np.zeros_like(r)
    for _ in range(iters):
        V = Q.max(-1)
        Q = np.stack([r[l] + gamma * P[l] @ V[(l + 1) % L] for l in range(L)])
    return Q


def test_periodic_bellman_solve_against_value_iteration():
    rng = np.random.default_rng(0)
    r = rng.random((3, 4, 2))
    P = rng.dirichlet(np.ones(4), size=(3, 4, 2))
    Q = pq.periodic_bellman_solve(r, P, gamma=0.95)
    np.testing.assert_allclose(Q, value_iteration(r, P, 0.95), atol=1e-9)


def test_limit_q_is_the_fixed_point_of_the_limit_model():
    """r_mu, P_mu rebuilt from zeta with loops; limit_q solves their Bellman system."""
    pom = pq.random_pomdp(4, 2, 3, rng=9)
    ag = pq.LastObservation(3)
    mu = np.random.default_rng(1).dirichlet(np.ones(2), size=(2, 3))
    zeta = pq.cyclic_limit(pom, ag, mu)
    r = pom.expected_reward()
    rbar = np.zeros((2, 3, 2))
    Pbar = np.zeros((2, 3, 2, 3))
    for l, s, z, a in itertools.product(range(2), range(4), range(3), range(2)):
        w = zeta[l, s, z, a] / zeta[l, :, z, a].sum()
        rbar[l, z, a] += w * r[s, a]
        for s2, y2 in itertools.product(range(4), range(3)):
            Pbar[l, z, a, ag.update(z, y2, a)] += w * pom.P[s, a, s2] * pom.O[s2, y2]
    np.testing.assert_allclose(pq.limit_q(pom, ag, mu), value_iteration(rbar, Pbar, 0.9), atol=1e-9)


def test_limit_depends_on_behaviour():
    pom, ag = pq.six_state_standin(), pq.LastObservation(2)
    best = pq.best_periodic_bruteforce(pom, ag, 2)
    mus = [pq.epsilon_greedy(best.policy, 0.3), np.full((2, 2, 2), 0.5)]
    Qs = [pq.limit_q(pom, ag, mu) for mu in mus]
    assert np.abs(Qs[0] - Qs[1]).max() > 0.1
    Js = [pq.evaluate_periodic(pom, ag, pq.greedy_periodic(Q)) for Q in Qs]
    assert Js[0] == pytest.approx(best.value, abs=1e-9) and Js[1] < best.value - 1


def test_limit_q_unvisited_entries_stay_at_q_init():
    pom, ag = pq.random_pomdp(3, 2, 2, rng=2), pq.LastObservation(2)
    mu = np.full((2, 2, 2), 0.5)
    mu[1, :, 0], mu[1, :, 1] = 1.0, 0.0  # action 1 never taken in phase 1
    Q = pq.limit_q(pom, ag, mu, q_init=-3.0)
    np.testing.assert_array_equal(Q[1, :, 1], [-3.0, -3.0])
    Qrun = pq.pasql_many(pom, ag, mu, 20_000, 4, q_init=-3.0, rng=0)
    np.testing.assert_array_equal(Qrun[:, 1, :, 1], -3.0)
    assert np.abs(Qrun - Q).max() < 0.2


def test_greedy_periodic_and_epsilon_greedy():
    Q = np.array([[[1.0, 1.0, 0.0], [0.0, 2.0, 2.0]], [[0.0, 0.5, 0.4], [2.9999, 1.0, 3.0]]])
    pi = pq.greedy_periodic(Q)
    np.testing.assert_array_equal(pi.argmax(-1), [[0, 1], [1, 2]])
    np.testing.assert_array_equal(pq.greedy_periodic(Q, tol=0.2).argmax(-1), [[0, 1], [1, 0]])
    np.testing.assert_array_equal(pq.greedy_periodic(Q[0]), pi[0])  # (Z, A) in, (Z, A) out
    mu = pq.epsilon_greedy(pi, 0.3)
    np.testing.assert_allclose(mu.max(-1), 0.8)
    np.testing.assert_allclose(mu.sum(-1), 1.0)
