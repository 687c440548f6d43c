"""Mean-variance evaluation and planning against closed forms and brute force."""

import itertools

import numpy as np
import pytest
import risk_model_eq as rme
from _reference import sparse_mdp

import papershelf_mdp as pm


def _q_pi(q):
    pi = np.zeros((3, 2))
    pi[:, 0] = 1.0
    pi[0] = [1.0 - q, q]
    return pi


@pytest.mark.parametrize("q", [0.0, 0.3, 1.0])
@pytest.mark.parametrize("lam", [0.0, 0.5, 2.0])
def test_mean_variance_closed_form_risky_choice(q, lam):
    mdp = rme.risky_choice()
    # G = -0.1 w.p. 1-q, +-1 w.p. q/2 each
    mean = -0.1 * (1 - q)
    second = 0.01 * (1 - q) + q
    assert rme.mean_variance(mdp, _q_pi(q), lam=lam) == pytest.approx(
        mean - lam * (second - mean**2), abs=1e-14
    )


def test_mean_variance_uses_the_mixture_over_init():
    """Var of G with S0 ~ init, not the average of per-state variances."""
    g = np.random.default_rng(0)
    base = sparse_mdp(g, S=4, A=2, branches=2, gamma=0.6)
    init = np.array([0.5, 0.5, 0.0, 0.0])
    mdp = rme.TabularMDP(base.P, base.R, gamma=0.6, init=init)
    pi = g.dirichlet(np.ones(2), size=4)
    G = np.concatenate([rme.mc_returns(mdp, pi, 20_000, start=s, rng=s) for s in (0, 1)])
    want = G.mean() - 0.5 * G.var()
    se = np.std(G - 0.5 * (G - G.mean()) ** 2) / np.sqrt(G.size)
    assert abs(rme.mean_variance(mdp, pi, lam=0.5) - want) < 4 * se


def test_risky_choice_planning():
    mdp = rme.risky_choice()
    safe, risky = np.eye(2)
    assert np.array_equal(rme.mean_variance_vi(mdp, lam=0.5)[0], safe)
    assert np.array_equal(rme.mean_variance_vi(rme.mean_reward_model(mdp), lam=0.5)[0], risky)
    # risk-neutral: the gamble (mean 0) beats the sure loss in both
    assert np.array_equal(rme.mean_variance_vi(mdp, lam=0.0)[0], risky)


@pytest.mark.parametrize("seed", range(4))
def test_lam_zero_is_risk_neutral_optimal(seed):
    g = np.random.default_rng(seed)
    mdp = sparse_mdp(g, S=6, A=3, branches=3, gamma=0.9)
    pi = rme.mean_variance_vi(mdp, lam=0.0)
    np.testing.assert_allclose(
        pm.policy_value(mdp, pi), pm.optimal_value(mdp), rtol=1e-9, atol=1e-9
    )


@pytest.mark.parametrize("seed", range(4))
def test_planner_is_a_fixed_point_of_mean_variance_greed(seed):
    """The returned policy picks, in every state, an action maximising Q1 - lam (Q2 - Q1^2)
    computed by brute force from its own exact moments (explicit loops)."""
    g = np.random.default_rng(10 + seed)
    mdp = sparse_mdp(g, S=5, A=3, branches=3, gamma=0.8)
    lam = 0.7
    pi = rme.mean_variance_vi(mdp, lam=lam)
    assert set(np.unique(pi)) <= {0.0, 1.0}
    M = rme.moment_evaluation(mdp, pi, 2)
    for s in range(5):
        objs = []
        for a in range(3):
            q1 = sum(mdp.P[s, a, t] * (mdp.R[s, a, t] + 0.8 * M[1, t]) for t in range(5))
            q2 = sum(
                mdp.P[s, a, t]
                * (mdp.R[s, a, t] ** 2 + 2 * 0.8 * mdp.R[s, a, t] * M[1, t] + 0.64 * M[2, t])
                for t in range(5)
            )
            objs.append(q1 - lam * (q2 - q1**2))
        assert objs[int(pi[s].argmax())] >= max(objs) - 1e-10


def test_one_decision_matches_brute_force():
    """A single decision followed by absorption: the planner's choice is the best action of
    the enumerated mean-variance objective."""
    g = np.random.default_rng(3)
    for _ in range(5):
        A, K = 4, 3  # 4 actions, each a 3-outcome lottery into absorbing states
        S = 1 + A * K
        P = np.zeros((S, A, S))
        R = np.zeros((S, A, S))
        P[1:, :, :] = 0.0
        for s in range(1, S):
            P[s, :, s] = 1.0
        objs = []
        for a in range(A):
            w = g.dirichlet(np.ones(K))
            x = g.normal(size=K)
            P[0, a, 1 + a * K : 1 + (a + 1) * K] = w
            R[0, a, 1 + a * K : 1 + (a + 1) * K] = x
            objs.append(w @ x - 0.5 * (w @ x**2 - (w @ x) ** 2))
        init = np.zeros(S)
        init[0] = 1.0
        mdp = rme.TabularMDP(P, R, gamma=0.9, init=init)
        pi = rme.mean_variance_vi(mdp, lam=0.5)
        assert pi[0].argmax() == int(np.argmax(objs))
        assert rme.mean_variance(mdp, pi, lam=0.5) == pytest.approx(max(objs), abs=1e-12)


def test_static_enumeration_bounds_the_planner():
    """On a tiny MDP, the planner's objective is at most the best over all deterministic
    stationary policies (enumerated) and equal to the objective of the policy it returns."""
    g = np.random.default_rng(4)
    mdp = sparse_mdp(g, S=4, A=2, branches=2, gamma=0.7)
    pi = rme.mean_variance_vi(mdp, lam=0.5)
    best = -np.inf
    for acts in itertools.product(range(2), repeat=4):
        cand = np.eye(2)[list(acts)]
        best = max(best, rme.mean_variance(mdp, cand, lam=0.5))
    assert rme.mean_variance(mdp, pi, lam=0.5) <= best + 1e-12


def test_hitting_probability():
    # a chain 0 -> 1 -> 2 (absorbing), with 0 also going to an absorbing 3 w.p. 0.4
    P = np.zeros((4, 1, 4))
    P[0, 0, [1, 3]] = [0.6, 0.4]
    P[1, 0, 2] = 1.0
    P[2, 0, 2] = 1.0
    P[3, 0, 3] = 1.0
    mdp = rme.TabularMDP(P, np.zeros((4, 1, 4)), gamma=0.9)
    pi = np.ones((4, 1))
    np.testing.assert_allclose(rme.hitting_probability(mdp, pi, 2), [0.6, 1.0, 1.0, 0.0])
    np.testing.assert_allclose(rme.hitting_probability(mdp, pi, [1, 3]), [1.0, 1.0, 0.0, 1.0])


def test_hitting_probability_monte_carlo():
    g = np.random.default_rng(5)
    mdp = sparse_mdp(g, S=6, A=2, branches=2, gamma=0.9)
    pi = g.dirichlet(np.ones(2), size=6)
    h = rme.hitting_probability(mdp, pi, 4)
    # simulate with an indicator reward on entering state 4 and look at returns != 0
    R = np.zeros_like(mdp.R)
    R[:, :, 4] = 1.0
    marked = rme.TabularMDP(mdp.P, R, gamma=0.999999)
    for s in (0, 1):
        if s == 4:
            continue
        hits = rme.mc_returns(marked, pi, 4000, start=s, length=400, rng=s) > 0
        se = np.sqrt(h[s] * (1 - h[s]) / hits.size) + 1e-3
        assert abs(hits.mean() - h[s]) < 4 * se
