"""The tabular tools against closed forms written here (linear solves, truncated series)."""

import inspect

import behavior_distill as bd
import numpy as np
import pytest

import papershelf_mdp as pm


def _random(seed, S=15, A=4, gamma=0.9, sas=False):
    rng = np.random.default_rng(seed)
    P = rng.dirichlet(np.ones(S), size=(S, A))
    R = rng.random((S, A, S) if sas else (S, A))
    init = rng.dirichlet(np.ones(S))
    mdp = bd.TabularMDP(P, R, gamma=gamma, init=init)
    pi, pi_star = rng.dirichlet(np.ones(A), size=(2, S))
    return mdp, pi, pi_star


def _reference_q(P, r, gamma, pi):
    """Q from the (S*A) x (S*A) system Q = r + gamma P Pi Q (independent of V)."""
    S, A = r.shape
    M = np.einsum("sat,tb->satb", P, pi).reshape(S * A, S * A)
    return np.linalg.solve(np.eye(S * A) - gamma * M, r.reshape(-1)).reshape(S, A)


def _reference_occupancy(P, init, gamma, pi, n_terms=600):
    """(1 - gamma) sum_t gamma^t Pr(s_t, a_t), the truncated series."""
    d = init.copy()
    occ = np.zeros_like(pi)
    for t in range(n_terms):
        occ += (1 - gamma) * gamma**t * d[:, None] * pi
        d = np.einsum("sa,sat->t", d[:, None] * pi, P)
    return occ


@pytest.mark.parametrize("seed", range(3))
def test_q_values_and_value_match_the_state_action_linear_system(seed):
    mdp, pi, _ = _random(seed)
    Q = _reference_q(mdp.P, mdp.R, mdp.gamma, pi)
    np.testing.assert_allclose(bd.q_values(mdp, pi), Q, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(bd.policy_value(mdp, pi), (pi * Q).sum(1), rtol=1e-12)
    assert bd.policy_return(mdp, pi) == pytest.approx(mdp.init @ (pi * Q).sum(1), rel=1e-12)


def test_transition_rewards_are_averaged_over_next_states():
    mdp, pi, _ = _random(5, sas=True)
    r = np.einsum("sat,sat->sa", mdp.P, mdp.R)
    np.testing.assert_allclose(
        bd.q_values(mdp, pi), _reference_q(mdp.P, r, mdp.gamma, pi), rtol=1e-12
    )


def test_occupancy_is_the_normalised_discounted_series():
    mdp, pi, _ = _random(1)
    occ = bd.occupancy(mdp, pi)
    assert occ.shape == (15, 4)
    assert occ.sum() == pytest.approx(1.0, abs=1e-12)
    np.testing.assert_allclose(
        occ, _reference_occupancy(mdp.P, mdp.init, mdp.gamma, pi), atol=1e-12
    )


@pytest.mark.parametrize("seed", range(30))
def test_performance_gap_identity_to_1e_10(seed):
    mdp, pi, pi_star = _random(seed, sas=seed % 2 == 1)
    lhs, rhs = bd.performance_gap_identity(mdp, pi, pi_star)
    # lhs from the independent Q system, rhs from the series occupancy and that Q
    Q_star = _reference_q(mdp.P, mdp.expected_reward(), mdp.gamma, pi_star)
    Q_pi = _reference_q(mdp.P, mdp.expected_reward(), mdp.gamma, pi)
    j = lambda Q, p: mdp.init @ (p * Q).sum(1)  # noqa: E731
    assert lhs == pytest.approx(j(Q_star, pi_star) - j(Q_pi, pi), abs=1e-10)
    assert abs(lhs - rhs) < 1e-10
    d = _reference_occupancy(mdp.P, mdp.init, mdp.gamma, pi).sum(1)
    assert rhs == pytest.approx(d @ (Q_star * (pi_star - pi)).sum(1) / (1 - mdp.gamma), abs=1e-9)


def test_identity_needs_the_occupancy_of_pi_not_of_pi_star():
    # the same sum under d_{pi*} is a different number: the test above can fail
    mdp, pi, pi_star = _random(3)
    lhs, _ = bd.performance_gap_identity(mdp, pi, pi_star)
    d_star = bd.occupancy(mdp, pi_star).sum(1)
    wrong = d_star @ (bd.q_values(mdp, pi_star) * (pi_star - pi)).sum(1) / (1 - mdp.gamma)
    assert abs(wrong - lhs) > 1e-3


def test_identity_is_zero_for_equal_policies_and_positive_against_the_optimum():
    mdp, pi, _ = _random(4)
    assert bd.performance_gap_identity(mdp, pi, pi) == pytest.approx((0.0, 0.0), abs=1e-12)
    _, opt = bd.optimal_policy(mdp)
    lhs, rhs = bd.performance_gap_identity(mdp, pi, opt)
    assert lhs > 0 and rhs == pytest.approx(lhs, abs=1e-10)


@pytest.mark.parametrize("seed", range(10))
def test_gap_bounds_hold_and_the_weighted_one_is_usually_tighter(seed):
    mdp, pi, pi_star = _random(seed)
    b = bd.gap_bounds(mdp, pi, pi_star)
    assert abs(b.gap) <= b.weighted + 1e-12
    assert abs(b.gap) <= b.tv + 1e-12
    d = bd.occupancy(mdp, pi).sum(1)
    Q = bd.q_values(mdp, pi_star)
    assert b.weighted == pytest.approx(d @ (Q * np.abs(pi_star - pi)).sum(1) / 0.1, rel=1e-12)
    assert b.weighted < b.tv


def test_gap_bounds_refuse_negative_rewards():
    rng = np.random.default_rng(0)
    P = rng.dirichlet(np.ones(3), size=(3, 2))
    mdp = bd.TabularMDP(P, -rng.random((3, 2)), gamma=0.5, init=np.ones(3) / 3)
    with pytest.raises(ValueError, match="non-negative"):
        bd.gap_bounds(mdp, np.full((3, 2), 0.5), np.full((3, 2), 0.5))


def test_tabular_mdp_signature_and_shared_base():
    sig = inspect.signature(bd.TabularMDP)
    params = list(sig.parameters.values())
    assert [p.name for p in params[:4]] == ["P", "R", "gamma", "init"]
    assert params[2].kind is params[3].kind is inspect.Parameter.KEYWORD_ONLY
    assert params[2].default is params[3].default is inspect.Parameter.empty
    mdp, _, _ = _random(0)
    assert isinstance(mdp, pm.TabularMDP)
    with pytest.raises(TypeError):
        bd.TabularMDP(mdp.P, mdp.R, mdp.init, gamma=0.9)  # init is keyword-only


def test_functions_accept_a_shared_discounted_mdp_and_refuse_a_finite_horizon():
    mdp = pm.random_mdp(4, 2, gamma=0.8, rng=0)
    pi = np.full((4, 2), 0.5)
    lhs, rhs = bd.performance_gap_identity(mdp, pi, pm.optimal_policy(mdp)[1])
    assert lhs == pytest.approx(rhs, abs=1e-12)
    finite = pm.random_mdp(4, 2, horizon=3, rng=0)
    with pytest.raises(ValueError, match="mdp"):
        bd.q_values(finite, pi)
