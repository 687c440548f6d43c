"""Moment operator and exact evaluation against independent references."""

import numpy as np
import pytest
import risk_model_eq as rme
from _reference import enumerate_return_moments, naive_operator, shortcut_moments, sparse_mdp

import papershelf_mdp as pm


def test_operator_is_the_law_of_r_plus_gamma_g():
    """T M is the raw moments of R + gamma G(S') when G(s') has moments M(s'): check with
    discrete return laws per state, summed atom by atom (no binomial expansion)."""
    g = np.random.default_rng(0)
    mdp = sparse_mdp(g, S=4, A=3, branches=3, gamma=0.7)
    pi = g.dirichlet(np.ones(3), size=4)
    atoms = g.normal(size=(4, 5))
    w = g.dirichlet(np.ones(5), size=4)
    m = 4
    M = np.array([[np.sum(w[t] * atoms[t] ** i) for t in range(4)] for i in range(m + 1)])
    want = np.zeros((m + 1, 4))
    for s in range(4):
        for a in range(3):
            for t in range(4):
                x = mdp.R[s, a, t] + mdp.gamma * atoms[t]
                for i in range(m + 1):
                    want[i, s] += pi[s, a] * mdp.P[s, a, t] * np.sum(w[t] * x**i)
    np.testing.assert_allclose(rme.moment_bellman(mdp, pi, M), want, rtol=1e-12, atol=1e-12)


def test_operator_matches_naive_loops_on_arbitrary_rows():
    g = np.random.default_rng(1)
    mdp = sparse_mdp(g, S=5, A=2, branches=4, gamma=0.9)
    pi = g.dirichlet(np.ones(2), size=5)
    M = g.uniform(-1, 1, size=(4, 5))  # row 0 not 1: the operator is applied as written
    np.testing.assert_allclose(
        rme.moment_bellman(mdp, pi, M),
        naive_operator(mdp.P, mdp.R, mdp.gamma, pi, M),
        rtol=1e-12,
        atol=1e-13,
    )


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_moments_match_trajectory_enumeration(seed):
    g = np.random.default_rng(seed)
    mdp = sparse_mdp(g, S=3, A=2, branches=2, gamma=0.2)
    pi = g.dirichlet(np.ones(2), size=3)
    M = rme.moment_evaluation(mdp, pi, 3)
    for s in range(3):
        want = enumerate_return_moments(mdp, pi, s, depth=9, m=3)
        # truncation: |G - G_9| <= 0.2^9 / 0.8 < 7e-7 and |G| <= 1.25, so moments agree to 1e-5
        np.testing.assert_allclose(M[:, s], want, atol=1e-5)


def test_fixed_point_first_row_and_value():
    g = np.random.default_rng(3)
    mdp = sparse_mdp(g, S=6, A=3, branches=3, gamma=0.95)
    pi = g.dirichlet(np.ones(3), size=6)
    M = rme.moment_evaluation(mdp, pi, 4)
    assert M.shape == (5, 6)
    np.testing.assert_array_equal(M[0], 1.0)
    np.testing.assert_allclose(rme.moment_bellman(mdp, pi, M), M, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(M[1], pm.policy_value(mdp, pi), rtol=1e-12)
    # moments of a real random variable: Var >= 0, E[G^4] >= E[G^2]^2
    assert np.all(M[2] - M[1] ** 2 >= -1e-12)
    assert np.all(M[4] - M[2] ** 2 >= -1e-12)


def test_joint_cross_term_not_the_shortcut():
    """Where R depends on s', the reference code's E[R] E[M(S')] is wrong; ours matches brute
    force and the shortcut does not (so the test would catch it)."""
    g = np.random.default_rng(4)
    mdp = sparse_mdp(g, S=3, A=2, branches=2, gamma=0.2)
    pi = g.dirichlet(np.ones(2), size=3)
    ours = rme.moment_evaluation(mdp, pi, 2)
    short = shortcut_moments(mdp.P, mdp.R, mdp.gamma, pi)
    want = np.stack([enumerate_return_moments(mdp, pi, s, 9, 2) for s in range(3)], axis=1)
    np.testing.assert_allclose(ours, want, atol=1e-5)
    assert np.max(np.abs(short[2] - want[2])) > 1e-3


def test_sa_rewards_broadcast_and_base_class():
    g = np.random.default_rng(5)
    P = g.dirichlet(np.ones(4), size=(4, 2))
    r = g.normal(size=(4, 2))
    pi = g.dirichlet(np.ones(2), size=4)
    a = rme.TabularMDP(P, r, gamma=0.8)
    b = rme.TabularMDP(P, np.repeat(r[:, :, None], 4, axis=2), gamma=0.8)
    base = pm.TabularMDP(P, r, gamma=0.8)  # a papershelf-mdp MDP with (S, A) rewards works too
    assert a.R.shape == (4, 2, 4)
    Ma = rme.moment_evaluation(a, pi, 3)
    np.testing.assert_allclose(Ma, rme.moment_evaluation(b, pi, 3), rtol=1e-14)
    np.testing.assert_allclose(Ma, rme.moment_evaluation(base, pi, 3), rtol=1e-14)


def test_monte_carlo_moments_within_four_standard_errors():
    g = np.random.default_rng(6)
    mdp = sparse_mdp(g, S=5, A=2, branches=3, gamma=0.8)
    pi = g.dirichlet(np.ones(2), size=5)
    M = rme.moment_evaluation(mdp, pi, 2)
    for s in (0, 3):
        G = rme.mc_returns(mdp, pi, 20_000, start=s, rng=s)
        for i in (1, 2):
            se = np.std(G**i) / np.sqrt(G.size)
            assert abs(np.mean(G**i) - M[i, s]) < 4 * se


def test_gamma_zero_is_one_step():
    g = np.random.default_rng(7)
    mdp = sparse_mdp(g, S=3, A=2, branches=2, gamma=0.0)
    pi = g.dirichlet(np.ones(2), size=3)
    M = rme.moment_evaluation(mdp, pi, 3)
    for i in range(4):
        np.testing.assert_allclose(M[i], np.einsum("sa,sat,sat->s", pi, mdp.P, mdp.R**i))


@pytest.mark.slow
def test_four_rooms_moments_monte_carlo():
    env = rme.four_rooms()
    pi = rme.random_policies(1, 104, 4, kind="stochastic", rng=3)[0]
    M = rme.moment_evaluation(env, pi, 2)
    for s in (env.risky_state, env.state_at(1, 8), env.state_at(10, 2)):
        G = rme.mc_returns(env, pi, 4000, start=s, length=2000, rng=s)
        for i in (1, 2):
            assert abs(np.mean(G**i) - M[i, s]) < 4 * np.std(G**i) / np.sqrt(G.size)
