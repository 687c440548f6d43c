"""The equivalence loss (against naive loops and closed forms) and model fitting."""

import numpy as np
import pytest
import risk_model_eq as rme
from _reference import naive_moments, naive_operator, sparse_mdp
from risk_model_eq.moments import _loss_and_grads, _moments

import papershelf_mdp as pm

QS = np.linspace(0.0, 1.0, 11)  # the risky choice's policies gamble with probability q


def _naive_loss(model, mdp, pis, m):
    tot = 0.0
    for pi in pis:
        M = rme.moment_evaluation(mdp, pi, m)  # tested against enumeration in test_moments
        TM = naive_operator(model.P, model.R, model.gamma, pi, M)
        tot += np.sum((TM[1:] - M[1:]) ** 2)
    return tot / len(pis)


def test_loss_matches_naive_loops():
    g = np.random.default_rng(0)
    mdp = sparse_mdp(g, S=4, A=2, branches=3, gamma=0.7)
    model = rme.TabularMDP(
        g.dirichlet(np.ones(4), size=(4, 2)), g.normal(size=(4, 2, 4)), gamma=0.7
    )
    pis = rme.random_policies(3, 4, 2, rng=1)
    for m in (1, 2, 3):
        assert rme.moment_loss(model, mdp, pis, m=m) == pytest.approx(
            _naive_loss(model, mdp, pis, m), rel=1e-9
        )


def test_naive_moments_agree_with_exact():
    g = np.random.default_rng(1)
    mdp = sparse_mdp(g, S=3, A=2, branches=2, gamma=0.6)
    pi = g.dirichlet(np.ones(2), size=3)
    np.testing.assert_allclose(
        rme.moment_evaluation(mdp, pi, 3),
        naive_moments(mdp.P, mdp.R, mdp.gamma, pi, 3, n_iter=200),
        rtol=1e-9,
        atol=1e-12,
    )


def test_risky_choice_pve_but_not_two_moment():
    mdp = rme.risky_choice()
    tilde = rme.mean_reward_model(mdp)
    qs, pis = QS, rme.risky_choice_policies(QS)
    for pi in pis:
        np.testing.assert_allclose(pm.policy_value(tilde, pi), pm.policy_value(mdp, pi), atol=1e-12)
    assert rme.moment_loss(tilde, mdp, pis, m=1) < 1e-24
    # second-moment residual at the decision state is -q: loss = mean(q^2) = 0.35
    for q, pi in zip(qs, pis):
        M = rme.moment_evaluation(mdp, pi, 2)
        res = rme.moment_bellman(tilde, pi, M) - M
        assert res[2, 0] == pytest.approx(-q, abs=1e-12)
        np.testing.assert_allclose(res[:2], 0.0, atol=1e-12)
    assert rme.moment_loss(tilde, mdp, pis, m=2) == pytest.approx(np.mean(qs**2), rel=1e-12)
    assert rme.moment_loss(mdp, mdp, pis, m=4) < 1e-28


def test_loss_gradient_matches_finite_differences():
    g = np.random.default_rng(2)
    mdp = sparse_mdp(g, S=4, A=2, branches=3, gamma=0.8)
    pis = rme.random_policies(5, 4, 2, rng=3)
    M = _moments(mdp.P, mdp.R, mdp.gamma, pis, 3)
    P = g.dirichlet(np.ones(4), size=(4, 2))
    R = g.normal(size=(4, 2, 4))
    loss, gP, gR = _loss_and_grads(P, R, 0.8, pis, M)
    model = rme.TabularMDP(P, R, gamma=0.8)
    assert loss == pytest.approx(rme.moment_loss(model, mdp, pis, m=3), rel=1e-12)
    e = 1e-6
    for idx in [(0, 1, 2), (3, 0, 1), (2, 1, 3)]:
        for arr, grad in ((P, gP), (R, gR)):
            up, dn = arr.copy(), arr.copy()
            up[idx] += e
            dn[idx] -= e
            args_up = (up, R) if arr is P else (P, up)
            args_dn = (dn, R) if arr is P else (P, dn)
            fd = (
                _loss_and_grads(*args_up, 0.8, pis, M)[0]
                - _loss_and_grads(*args_dn, 0.8, pis, M)[0]
            ) / (2 * e)
            assert grad[idx] == pytest.approx(fd, rel=1e-5, abs=1e-8)


def test_fit_risky_choice_two_moments_plans_safe():
    mdp = rme.risky_choice()
    pis = rme.risky_choice_policies(QS)
    for seed in range(1):
        model = rme.fit_model(mdp, pis, m=2, rng=seed)
        assert isinstance(model, rme.TabularMDP) and isinstance(model, rme.FittedModel)
        assert model.loss < 1e-3
        assert model.loss == pytest.approx(rme.moment_loss(model, mdp, pis, m=2), rel=1e-9)
        pi = rme.mean_variance_vi(model, lam=0.5)
        assert pi[0].argmax() == 0  # safe
        assert rme.mean_variance(mdp, pi, lam=0.5) == pytest.approx(-0.1, abs=1e-9)
        # the model's own second moment at the decision state is right for both actions
        for q in (0.0, 1.0):
            pol = rme.risky_choice_policies([q])[0]
            assert rme.moment_evaluation(model, pol, 2)[2, 0] == pytest.approx(
                rme.moment_evaluation(mdp, pol, 2)[2, 0], abs=0.03
            )


def test_fit_pve_model_matches_values():
    g = np.random.default_rng(4)
    mdp = sparse_mdp(g, S=6, A=2, branches=3, gamma=0.8)
    pis = rme.random_policies(6, 6, 2, rng=5)
    model = rme.fit_model(mdp, pis, m=1, steps=400, rng=0)
    assert model.loss < 1e-10
    for pi in pis:  # PVE: the model's own values equal the true ones (an exact linear solve each)
        np.testing.assert_allclose(pm.policy_value(model, pi), pm.policy_value(mdp, pi), atol=1e-4)


def test_nestedness_and_own_moments():
    g = np.random.default_rng(6)
    base = pm.random_mdp(6, 2, gamma=0.9, reward="sas", rng=6)
    mdp = rme.TabularMDP(base.P, base.R, gamma=0.9)
    pis = rme.random_policies(5, 6, 2, rng=7)
    model = rme.fit_model(mdp, pis, m=3, rng=1)
    assert model.loss < 1e-6
    assert rme.moment_loss(model, mdp, pis, m=2) <= model.loss
    assert rme.moment_loss(model, mdp, pis, m=1) < 1e-5
    for pi in pis[:3]:
        np.testing.assert_allclose(
            rme.moment_evaluation(model, pi, 3), rme.moment_evaluation(mdp, pi, 3), rtol=1e-2
        )
    del g


def test_fit_is_reproducible_and_rng_matters():
    mdp = rme.risky_choice()
    pis = rme.risky_choice_policies(QS)
    a = rme.fit_model(mdp, pis, m=1, steps=5, rng=3)
    b = rme.fit_model(mdp, pis, m=1, steps=5, rng=np.random.default_rng(3))
    c = rme.fit_model(mdp, pis, m=1, steps=5, rng=4)
    np.testing.assert_array_equal(a.R, b.R)
    assert not np.array_equal(a.R, c.R)
    assert a.n_steps <= 5 and a.m == 1 and a.gamma == mdp.gamma


def test_random_policies():
    det = rme.random_policies(5, 4, 3, kind="deterministic", rng=0)
    assert det.shape == (5, 4, 3) and set(np.unique(det)) == {0.0, 1.0}
    np.testing.assert_allclose(det.sum(-1), 1.0)
    sto = rme.random_policies(5, 4, 3, kind="stochastic", rng=0)
    np.testing.assert_allclose(sto.sum(-1), 1.0)
    assert np.all((sto > 0) & (sto < 1))
    mix = rme.random_policies(400, 2, 3, rng=0)
    n_det = int(np.all(np.isin(mix, [0.0, 1.0]), axis=(1, 2)).sum())
    assert 150 < n_det < 250
