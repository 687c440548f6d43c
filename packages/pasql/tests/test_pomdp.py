"""The tabular POMDP as arrays and as an environment, and the example instances."""

import numpy as np
import pasql as pq
import pytest


def test_phase_pomdp_arrays():
    pom = pq.phase_pomdp()
    assert (pom.n_states, pom.n_actions, pom.n_obs, pom.gamma) == (2, 2, 1, 0.9)
    for a in range(2):
        assert pom.P[0, a, 1] == 1.0 and pom.P[1, a, 0] == 1.0
    np.testing.assert_array_equal(pom.expected_reward(), np.eye(2))
    np.testing.assert_array_equal(pom.init, [1.0, 0.0])


def test_six_state_standin_shape_of_the_papers_example():
    pom = pq.six_state_standin()
    assert (pom.n_states, pom.n_actions, pom.n_obs) == (6, 2, 2)
    np.testing.assert_array_equal(pom.O[:3], [[1, 0]] * 3)
    np.testing.assert_array_equal(pom.O[3:], [[0, 1]] * 3)
    assert set(np.unique(pom.R)) <= {0.0, 0.5, 1.0}
    assert {0.5, 1.0} <= set(np.unique(pom.R))
    assert np.all(pom.P.max(axis=-1) == 1.0)  # deterministic transitions


def test_env_api_and_seeding():
    pom = pq.random_pomdp(4, 3, 2, rng=0)
    y, info = pom.reset(seed=5)
    assert isinstance(y, int) and 0 <= y < 2 and 0 <= info["state"] < 4
    out = pom.step(1)
    assert len(out) == 5
    y2, r, term, trunc, info2 = out
    assert isinstance(y2, int) and isinstance(r, float) and term is False and trunc is False
    a = [pom.reset(seed=11)] + [pom.step(t % 3) for t in range(20)]
    b = [pom.reset(seed=11)] + [pom.step(t % 3) for t in range(20)]
    assert a == b
    with pytest.raises(RuntimeError):
        pq.phase_pomdp().step(0)


def test_env_sampling_law():
    """Empirical transition and observation frequencies within 5 standard errors of P and O."""
    pom = pq.random_pomdp(3, 2, 3, rng=1)
    y, info = pom.reset(seed=0)
    s = info["state"]
    n = 30_000
    cnt_sa = np.zeros((3, 2))
    cnt_sas = np.zeros((3, 2, 3))
    cnt_sy = np.zeros((3, 3))
    rng = np.random.default_rng(1)
    for _ in range(n):
        a = int(rng.integers(2))
        y, r, _, _, info = pom.step(a)
        s2 = info["state"]
        assert r == pom.R[s, a]
        cnt_sa[s, a] += 1
        cnt_sas[s, a, s2] += 1
        cnt_sy[s2, y] += 1
        s = s2
    freq = cnt_sas / cnt_sa[..., None]
    se = np.sqrt(pom.P * (1 - pom.P) / cnt_sa[..., None])
    assert np.all(np.abs(freq - pom.P) <= 5 * se + 1e-12)
    tot = cnt_sy.sum(1, keepdims=True)
    se = np.sqrt(pom.O * (1 - pom.O) / tot)
    assert np.all(np.abs(cnt_sy / tot - pom.O) <= 5 * se + 1e-12)


def test_reward_per_transition():
    pom0 = pq.random_pomdp(3, 2, 2, rng=2)
    R = np.arange(18, dtype=float).reshape(3, 2, 3)
    pom = pq.TabularPOMDP(pom0.P, pom0.O, R, pom0.init, gamma=0.5)
    assert pom.reward_kind == "sas"
    np.testing.assert_allclose(pom.expected_reward(), (pom.P * R).sum(-1))
    y, info = pom.reset(seed=3)
    s = info["state"]
    for a in (0, 1, 1, 0):
        y, r, *_, info = pom.step(a)
        assert r == R[s, a, info["state"]]
        s = info["state"]


def test_monte_carlo_return_matches_exact_value():
    """Discounted returns of a periodic policy run on the env: mean within 4 s.e. of
    evaluate_periodic."""
    pom = pq.random_pomdp(4, 2, 2, gamma=0.7, rng=3)
    ag = pq.LastObservation(2)
    pol = np.random.default_rng(0).dirichlet(np.ones(2), size=(3, 2))
    exact = pq.evaluate_periodic(pom, ag, pol)
    rng = np.random.default_rng(4)
    H, n = 40, 2000
    rets = np.empty(n)
    pom.reset(seed=5)
    u = rng.random((n, H))
    for i in range(n):
        y, _ = pom.reset()
        z, g = ag.init(y), 0.0
        for t in range(H):
            a = int(u[i, t] >= pol[t % 3, z, 0])
            y, r, *_ = pom.step(a)
            g += pom.gamma**t * r
            z = ag.update(z, y, a)
        rets[i] = g
    assert abs(rets.mean() - exact) <= 4 * rets.std() / np.sqrt(n) + pom.gamma**H / (1 - pom.gamma)


def test_six_state_standin_is_the_documented_search_result():
    """The stand-in is candidate 715 of the seeded search described in the README, and has the
    properties the search asked for."""
    g = np.random.default_rng(715)
    nxt = g.integers(0, 6, (6, 2))
    rew = g.choice([0.0, 0.5, 1.0], size=(6, 2), p=[0.6, 0.2, 0.2])
    pom = pq.six_state_standin()
    np.testing.assert_array_equal(pom.P.argmax(-1), nxt)
    np.testing.assert_array_equal(pom.R, rew)
    ag = pq.LastObservation(2)
    j1 = pq.best_periodic_bruteforce(pom, ag, 1).value
    j2 = pq.best_periodic_bruteforce(pom, ag, 2)
    assert j2.value - j1 >= 0.5
    mu1 = pq.epsilon_greedy(j2.policy, 0.3)
    lim = pq.limit_q(pom, ag, mu1)
    assert pq.evaluate_periodic(pom, ag, pq.greedy_periodic(lim)) == pytest.approx(
        j2.value, abs=1e-9
    )
    assert np.all(pq.cyclic_limit(pom, ag, mu1).sum(axis=1) > 0.01)  # every (l, z, a) visited
