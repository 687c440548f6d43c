"""The MC criterion, its gradient and its limits against independent closed forms."""

import dp_robust as dpr
import numpy as np
import pytest
from sklearn.linear_model import Ridge


def _regression(n=40, d=5, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = X @ rng.normal(size=d) + rng.normal(size=n)
    return X, y


def _fd_grad(f, theta, eps=1e-6):
    g = np.zeros_like(theta)
    for i in range(theta.size):
        e = np.zeros_like(theta)
        e[i] = eps
        g[i] = (f(theta + e) - f(theta - e)) / (2 * eps)
    return g


CASES = [(loss, b) for loss in ("squared", "absolute", "logistic") for b in (False, True)] + [
    ("location", False)
]


@pytest.mark.parametrize("loss, fit_intercept", CASES)
@pytest.mark.parametrize("phi, beta", [("exp", 0.7), ("power", 2.0), ("identity", 1.0)])
def test_gradient_matches_finite_differences(loss, fit_intercept, phi, beta):
    X, y = _regression(n=15, d=3)
    if loss == "logistic":
        y = np.sign(y)
        data, sampler = np.column_stack([y, X]), dpr.logistic_gaussian_prior(3)
    elif loss == "location":
        data, sampler = X, dpr.location_gaussian_prior(np.zeros(3))
    else:
        data, sampler = np.column_stack([y, X]), dpr.gaussian_prior(3)
    risk = dpr.SmoothAmbiguityRisk(
        loss,
        phi=phi,
        beta=beta,
        alpha=2.0,
        base_sampler=sampler,
        M=7,
        T=9,
        fit_intercept=fit_intercept,
        rng=0,
    ).draw(data)
    theta = np.random.default_rng(1).normal(size=risk.n_params) * 0.3
    _, g = risk(theta)
    np.testing.assert_allclose(g, _fd_grad(risk.value, theta), rtol=1e-6, atol=1e-8)


def test_custom_loss_and_phi_pair_match_builtin():
    X, y = _regression(n=20, d=2)
    data = np.column_stack([y, X])
    kw = dict(alpha=1.0, base_sampler=dpr.gaussian_prior(2), M=5, T=8, rng=0)
    loss = lambda th, a: (a[:, 0] - a[:, 1:] @ th) ** 2  # noqa: E731
    grad = lambda th, a: -2 * (a[:, 0] - a[:, 1:] @ th)[:, None] * a[:, 1:]  # noqa: E731
    custom = dpr.SmoothAmbiguityRisk(
        loss, grad=grad, phi=(lambda t: t, lambda t: np.ones_like(t)), **kw
    ).draw(data)
    builtin = dpr.SmoothAmbiguityRisk("squared", phi="identity", **kw).draw(data)
    th = np.array([0.3, -0.2])
    v1, g1 = custom(th)
    v2, g2 = builtin(th)
    np.testing.assert_allclose([v1, *g1], [v2, *g2], rtol=1e-12)


def test_exp_certainty_equivalent_is_mean_plus_half_variance_over_beta():
    # beta log mean exp(R/beta) = mean R + Var R / (2 beta) + O(1/beta^2)
    X, y = _regression()
    risk = dpr.SmoothAmbiguityRisk(
        "squared", beta=1.0, alpha=1.0, base_sampler=dpr.gaussian_prior(5), M=30, T=40, rng=0
    ).draw(np.column_stack([y, X]))
    theta = np.zeros(5)
    R, _ = risk.risks(theta)
    for beta in (1e3, 1e4):
        risk.beta = beta
        approx = R.mean() + R.var() / (2 * beta)
        assert abs(risk.value(theta) - approx) < 10 * R.std() ** 3 / beta**2


def test_neutral_closed_form_is_ridge():
    X, y = _regression()
    for alpha, s in [(1.0, 1.0), (2.0, 0.5), (10.0, 3.0)]:
        ref = (
            Ridge(alpha=alpha * s**2, fit_intercept=False, solver="cholesky", tol=1e-14)
            .fit(X, y)
            .coef_
        )
        np.testing.assert_allclose(
            dpr.neutral_closed_form(X, y, alpha=alpha, prior_scale=s), ref, atol=1e-8
        )


def test_identity_phi_minimiser_is_weighted_least_squares_on_the_draws():
    X, y = _regression()
    risk = dpr.SmoothAmbiguityRisk(
        "squared",
        phi="identity",
        alpha=2.0,
        base_sampler=dpr.gaussian_prior(5),
        M=20,
        T=50,
        rng=0,
    ).draw(np.column_stack([y, X]))
    w = risk.weights.ravel()
    A = risk.atoms.reshape(-1, 6)
    ref = np.linalg.solve((A[:, 1:] * w[:, None]).T @ A[:, 1:], (A[:, 1:] * w[:, None]).T @ A[:, 0])
    np.testing.assert_allclose(risk.minimize(), ref, atol=1e-6)


def test_mc_neutral_converges_to_ridge_as_draws_grow():
    X, y = _regression(n=30, d=4)
    ref = dpr.neutral_closed_form(X, y, alpha=2.0)
    errs = []
    for M, T in [(5, 20), (50, 200), (400, 400)]:
        est = dpr.DPRobustLinearRegression(
            alpha=2.0, phi="identity", M=M, T=T, fit_intercept=False, random_state=0
        )
        errs.append(np.linalg.norm(est.fit(X, y).coef_ - ref))
    assert errs[0] > errs[1] > errs[2]
    assert errs[2] < 0.05 * np.linalg.norm(ref)


def test_averse_tends_to_neutral_as_beta_grows():
    X, y = _regression()
    common = dict(alpha=2.0, M=30, T=50, random_state=0)
    neutral = dpr.DPRobustLinearRegression(phi="identity", **common).fit(X, y).coef_
    averse = dpr.DPRobustLinearRegression(beta=1e6, **common).fit(X, y).coef_
    strong = dpr.DPRobustLinearRegression(beta=0.5, **common).fit(X, y).coef_
    assert np.max(np.abs(averse - neutral)) < 1e-3
    assert np.max(np.abs(strong - neutral)) > 1e-2  # aversion does change the solution


def test_intercept_matches_sklearn_ridge_when_neutral():
    X, y = _regression(n=60, d=3)
    y = y + 5.0
    X = X + 2.0
    est = dpr.DPRobustLinearRegression(alpha=2.0, phi="identity", M=300, T=400, random_state=0).fit(
        X, y
    )
    ref = Ridge(alpha=2.0).fit(X, y)
    np.testing.assert_allclose(est.coef_, ref.coef_, atol=0.05)
    assert abs(est.intercept_ - ref.intercept_) < 0.2


def test_mean_identity_is_weighted_mean_of_atoms_and_neutral_limit():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(25, 2))
    est = dpr.DPRobustMean(
        alpha=3.0, phi="identity", prior_mean=[1.0, -1.0], M=400, T=300, random_state=0
    ).fit(x)
    ref = dpr.neutral_mean_closed_form(x, alpha=3.0, prior_mean=[1.0, -1.0])
    np.testing.assert_allclose(est.location_, ref, atol=0.05)


def test_risk_validation():
    with pytest.raises(ValueError, match="loss"):
        dpr.SmoothAmbiguityRisk("hinge")
    with pytest.raises(TypeError, match="grad"):
        dpr.SmoothAmbiguityRisk(lambda t, a: a[:, 0])
    with pytest.raises(ValueError, match="phi"):
        dpr.SmoothAmbiguityRisk(phi="log")
    with pytest.raises(ValueError, match="beta"):
        dpr.SmoothAmbiguityRisk(beta=-1.0)
    with pytest.raises(ValueError, match="method"):
        dpr.SmoothAmbiguityRisk(method="x")
    with pytest.raises(RuntimeError, match="draw"):
        dpr.SmoothAmbiguityRisk()(np.zeros(2))
    with pytest.raises(ValueError, match="base_sampler"):
        dpr.SmoothAmbiguityRisk().draw(np.ones((3, 2)))
    risk = dpr.SmoothAmbiguityRisk().set_draws(np.ones((2, 3)) / 3, np.ones((2, 3, 3)))
    with pytest.raises(ValueError, match="theta0"):
        risk.minimize(np.zeros(5))
    with pytest.raises(ValueError, match="solver"):
        risk.minimize(solver="adam")
    with pytest.raises(ValueError, match="atoms"):
        dpr.SmoothAmbiguityRisk().set_draws(np.ones((2, 3)), np.ones((2, 4, 3)))


def test_sgd_solver_approaches_lbfgs():
    X, y = _regression(n=40, d=2)
    risk = dpr.SmoothAmbiguityRisk(
        "squared", beta=5.0, alpha=1.0, base_sampler=dpr.gaussian_prior(2), M=20, T=50, rng=0
    ).draw(np.column_stack([y, X]))
    exact = risk.minimize()
    sgd = risk.minimize(solver="sgd", step0=5.0, n_steps=3000, rng=0)
    assert np.linalg.norm(sgd - exact) < 0.1 * np.linalg.norm(exact)


def test_laplace_axis_prior_gives_l1_penalty():
    # E_p0 |y - x theta| = (scale / d) ||theta||_1 for y = 0, x uniform on {+-scale e_j}
    from dp_robust import laplace_axis_prior

    d, scale = 4, 2.0
    atoms = laplace_axis_prior(d, scale=scale)(np.random.default_rng(0), 200_000)
    theta = np.array([1.0, -2.0, 0.0, 0.5])
    emp = np.mean(np.abs(atoms[:, 0] - atoms[:, 1:] @ theta))
    se = np.std(np.abs(atoms[:, 1:] @ theta)) / np.sqrt(atoms.shape[0])
    assert abs(emp - scale / d * np.abs(theta).sum()) < 4 * se


def test_other_priors_run():
    from dp_robust import DPRobustLogisticRegression

    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    y = (X[:, 0] > 0).astype(int)
    clf = DPRobustLogisticRegression(prior="laplace-axis", M=20, T=40, random_state=0).fit(X, y)
    assert clf.score(X, y) > 0.85
    est = dpr.DPRobustLinearRegression(
        prior="laplace-axis", loss="absolute", M=20, T=40, random_state=0
    )
    assert np.all(np.isfinite(est.fit(X, X[:, 0]).coef_))
    custom = dpr.DPRobustMean(
        prior=lambda r, k: np.full((k, 3), 5.0),
        phi="identity",
        alpha=60.0,
        M=50,
        T=200,
        random_state=0,
    ).fit(X)
    # neutral limit: (sum x + alpha * 5) / (n + alpha) with p0 a point mass at 5
    np.testing.assert_allclose(custom.location_, (X.sum(0) + 60 * 5.0) / 120, atol=0.3)
