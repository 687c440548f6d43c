"""Exact special cases and agreement between independent implementations (StratPPI vs our PPI++).

The comparisons with ppi_py itself are in test_ppi_py_parity.py (run by `nox -s tests_extras`).
"""

import warnings

import numpy as np
import pytest
import stratppi as sp
from scipy.optimize import minimize
from scipy.stats import norm


@pytest.fixture(scope="module")
def data():
    return sp.simulate(n=600, N=6000, rng=3)


def _naive_strat(Y, F, FU, s, su, lam, alpha=0.1, ddof=1):
    """Loop-per-stratum textbook formula (brief Sec. 'The method'), weights N_k / N."""
    labels = np.unique(np.r_[s, su])
    N = len(su)
    est, var = 0.0, 0.0
    for i, k in enumerate(labels):
        lk = lam[i]
        y, f, fu = Y[s == k], F[s == k], FU[su == k]
        w = len(fu) / N
        est += w * (lk * fu.mean() + (y - lk * f).mean())
        var += w**2 * (
            np.var(y - lk * f, ddof=ddof) / len(y) + lk**2 * np.var(fu, ddof=ddof) / len(fu)
        )
    z = norm.ppf(1 - alpha / 2)
    return est - z * np.sqrt(var), est + z * np.sqrt(var)


def test_matches_naive_formula_with_tuned_lam(data):
    d = data
    lam = sp.stratppi_mean_lam(d.Y, d.Yhat, d.Yhat_unlabeled, d.strata, d.strata_unlabeled)
    ours = sp.stratppi_mean_ci(d.Y, d.Yhat, d.Yhat_unlabeled, d.strata, d.strata_unlabeled)
    ref = _naive_strat(d.Y, d.Yhat, d.Yhat_unlabeled, d.strata, d.strata_unlabeled, lam)
    np.testing.assert_allclose(ours, ref, rtol=0, atol=1e-12)
    # tuned lam_k = Cov_k(Y, f) / ((1 + n_k/N_k) Var_k(f)) computed by hand
    for i in range(4):
        y, f = d.Y[d.strata == i], d.Yhat[d.strata == i]
        fu = d.Yhat_unlabeled[d.strata_unlabeled == i]
        cov = np.mean((y - y.mean()) * (f - f.mean()))
        ref_lam = cov / ((1 + len(y) / len(fu)) * np.var(np.r_[f, fu], ddof=1))
        assert lam[i] == pytest.approx(np.clip(ref_lam, 0, 1), abs=1e-12)


def test_lam0_is_classical_stratified_mean(data):
    d = data
    lo, hi = sp.stratppi_mean_ci(
        d.Y, d.Yhat, d.Yhat_unlabeled, d.strata, d.strata_unlabeled, lam=0.0
    )
    w = np.bincount(d.strata_unlabeled) / len(d.strata_unlabeled)
    means = np.array([d.Y[d.strata == k].mean() for k in range(4)])
    varis = np.array([np.var(d.Y[d.strata == k], ddof=1) / np.sum(d.strata == k) for k in range(4)])
    est, se = w @ means, np.sqrt(w**2 @ varis)
    z = norm.ppf(0.95)
    assert lo == pytest.approx(est - z * se, abs=1e-12)
    assert hi == pytest.approx(est + z * se, abs=1e-12)


@pytest.mark.parametrize("lam", [None, 0.0, 0.3, 1.0])
@pytest.mark.parametrize("alternative", ["two-sided", "larger", "smaller"])
@pytest.mark.parametrize("ddof", [0, 1])
def test_one_stratum_equals_our_ppi(data, lam, alternative, ddof):
    d = data
    z, zu = np.zeros(len(d.Y), int), np.zeros(len(d.Yhat_unlabeled), int)
    ours = sp.stratppi_mean_ci(
        d.Y,
        d.Yhat,
        d.Yhat_unlabeled,
        z,
        zu,
        lam=lam,
        alpha=0.05,
        alternative=alternative,
        ddof=ddof,
    )
    base = sp.ppi_mean_ci(d.Y, d.Yhat, d.Yhat_unlabeled, 0.05, alternative, lam, ddof=ddof)
    np.testing.assert_allclose(np.hstack(ours), np.hstack(base), rtol=1e-12, atol=1e-12)
    pe = sp.stratppi_mean_pointestimate(d.Y, d.Yhat, d.Yhat_unlabeled, z, zu, lam=lam)
    assert pe == pytest.approx(
        sp.ppi_mean_pointestimate(d.Y, d.Yhat, d.Yhat_unlabeled, lam), abs=1e-12
    )
    p1 = sp.stratppi_mean_pval(d.Y, d.Yhat, d.Yhat_unlabeled, z, zu, null=0.7, lam=lam, ddof=ddof)
    p2 = sp.ppi_mean_pval(d.Y, d.Yhat, d.Yhat_unlabeled, 0.7, "two-sided", lam, ddof=ddof)
    assert p1 == pytest.approx(p2, abs=1e-12)


def test_one_stratum_default_ddof_equals_our_ppi(data):
    d = data
    z, zu = np.zeros(len(d.Y), int), np.zeros(len(d.Yhat_unlabeled), int)
    ours = sp.stratppi_mean_ci(d.Y, d.Yhat, d.Yhat_unlabeled, z, zu)
    np.testing.assert_allclose(ours, sp.ppi_mean_ci(d.Y, d.Yhat, d.Yhat_unlabeled), atol=1e-12)


def test_lam1_is_weighted_per_stratum_ppi(data):
    d = data
    lo, hi = sp.stratppi_mean_ci(
        d.Y, d.Yhat, d.Yhat_unlabeled, d.strata, d.strata_unlabeled, lam=1.0, ddof=0
    )
    w = np.bincount(d.strata_unlabeled) / len(d.strata_unlabeled)
    est, var = 0.0, 0.0
    for k in range(4):
        m, su = d.strata == k, d.strata_unlabeled == k
        a, b = sp.ppi_mean_ci(d.Y[m], d.Yhat[m], d.Yhat_unlabeled[su], alpha=0.1, lam=1.0, ddof=0)
        est += w[k] * (a + b) / 2
        var += w[k] ** 2 * ((b - a) / (2 * norm.ppf(0.95))) ** 2
    half = norm.ppf(0.95) * np.sqrt(var)
    assert lo == pytest.approx(est - half, abs=1e-12)
    assert hi == pytest.approx(est + half, abs=1e-12)


def test_multidim_mean_is_coordinatewise_with_element_mode(data):
    d = data
    Y2, F2, FU2 = (
        np.c_[d.Y, 1 - d.Y],
        np.c_[d.Yhat, d.Yhat**2],
        np.c_[d.Yhat_unlabeled, d.Yhat_unlabeled**2],
    )
    lo, hi = sp.stratppi_mean_ci(
        Y2, F2, FU2, d.strata, d.strata_unlabeled, lam_optim_mode="element"
    )
    for j in range(2):
        l1, h1 = sp.stratppi_mean_ci(Y2[:, j], F2[:, j], FU2[:, j], d.strata, d.strata_unlabeled)
        assert (lo[j], hi[j]) == pytest.approx((l1, h1), abs=1e-12)


def test_string_labels_and_dict_weights(data):
    d = data
    names = np.array(["a", "b", "c", "d"])
    w = {"a": 0.4, "b": 0.3, "c": 0.2, "d": 0.1}
    got = sp.stratppi_mean_ci(
        d.Y, d.Yhat, d.Yhat_unlabeled, names[d.strata], names[d.strata_unlabeled], weights=w
    )
    want = sp.stratppi_mean_ci(
        d.Y, d.Yhat, d.Yhat_unlabeled, d.strata, d.strata_unlabeled, weights=[4, 3, 2, 1]
    )
    np.testing.assert_allclose(got, want, atol=1e-12)


def _reg_data(rng, n=300, N=3000, logistic=False):
    X = np.c_[np.ones(n), rng.normal(size=n)]
    XU = np.c_[np.ones(N), rng.normal(size=N)]
    beta = np.array([0.3, 1.0])
    s, su = (X[:, 1] > 0).astype(int), (XU[:, 1] > 0).astype(int)
    if logistic:
        p, pu = 1 / (1 + np.exp(-X @ beta)), 1 / (1 + np.exp(-XU @ beta))
        Y = (rng.random(n) < p).astype(float)
        F = np.clip(p + 0.1 * rng.normal(size=n), 0, 1)
        FU = np.clip(pu + 0.1 * rng.normal(size=N), 0, 1)
    else:
        Y = X @ beta + rng.normal(size=n)
        F, FU = X @ beta + 0.5 * rng.normal(size=n), XU @ beta + 0.5 * rng.normal(size=N)
    return X, Y, F, XU, FU, s, su


def _naive_loss(kind, X, Y, F, XU, FU, s, su, lam):
    w = np.bincount(su) / len(su)

    def ell(Xm, t, th):
        z = Xm @ th
        return 0.5 * np.mean((t - z) ** 2) if kind == "ols" else np.mean(np.logaddexp(0, z) - t * z)

    def L(th):
        return sum(
            w[k]
            * (
                ell(X[s == k], Y[s == k], th)
                + lam[k] * (ell(XU[su == k], FU[su == k], th) - ell(X[s == k], F[s == k], th))
            )
            for k in range(len(w))
        )

    return minimize(L, np.zeros(X.shape[1]), method="BFGS", options={"gtol": 1e-10}).x


@pytest.mark.parametrize("kind", ["ols", "logistic"])
def test_regression_minimises_stratified_rectified_loss(kind):
    X, Y, F, XU, FU, s, su = _reg_data(np.random.default_rng(5), logistic=kind == "logistic")
    lam = np.array([0.4, 0.9])
    f = sp.stratppi_ols_pointestimate if kind == "ols" else sp.stratppi_logistic_pointestimate
    got = f(X, Y, F, XU, FU, s, su, lam=lam)
    np.testing.assert_allclose(got, _naive_loss(kind, X, Y, F, XU, FU, s, su, lam), atol=1e-5)


def test_logistic_one_stratum_equals_our_ppi_logistic():
    # the stratified code (K = 1) and the PPI++ baseline build the Hessian, gradients and
    # covariance separately; only the Newton solver is shared
    X, Y, F, XU, FU, s, su = _reg_data(np.random.default_rng(7), logistic=True)
    z, zu = np.zeros(len(Y), int), np.zeros(len(FU), int)
    for lam in (0.0, 0.7, 1.0):
        ours = sp.stratppi_logistic_ci(X, Y, F, XU, FU, z, zu, lam=lam)
        np.testing.assert_allclose(ours, sp.ppi_logistic_ci(X, Y, F, XU, FU, lam=lam), atol=1e-10)


def test_ols_difference_from_ppi_form_is_the_readme_formula():
    """README: at lam = 1 the two OLS estimators differ by (S_U^-1 - S_L^-1) X'(Y - f) / n,
    of order 1/sqrt(n) -- the size of the interval itself -- when the prediction error
    correlates with X, and of order 1/n when it does not."""
    rng = np.random.default_rng(11)
    n, N, draws = 500, 5000, 20
    ratios = {"correlated": [], "uncorrelated": []}
    for _ in range(draws):
        for name, slope in (("correlated", 0.5), ("uncorrelated", 0.0)):
            X, XU = np.c_[np.ones(n), rng.normal(size=n)], np.c_[np.ones(N), rng.normal(size=N)]
            beta = np.array([1.0, 2.0])
            Y = X @ beta + rng.normal(size=n)
            # the autorater misses part of the slope: its error Y - f correlates with X
            F = X @ (beta - [0, slope]) + rng.normal(size=n)
            FU = XU @ (beta - [0, slope]) + rng.normal(size=N)
            z, zu = np.zeros(n, int), np.zeros(N, int)
            ours = sp.stratppi_ols_pointestimate(X, Y, F, XU, FU, z, zu, lam=1.0)
            ppi = sp.ppi_ols_pointestimate(X, Y, F, XU, FU, lam=1.0)
            S_L, S_U = X.T @ X / n, XU.T @ XU / N
            formula = (np.linalg.inv(S_U) - np.linalg.inv(S_L)) @ X.T @ (Y - F) / n
            np.testing.assert_allclose(ours - ppi, formula, atol=1e-12)
            lo, hi = sp.stratppi_ols_ci(X, Y, F, XU, FU, z, zu, lam=1.0)
            ratios[name].append(abs(ours - ppi)[1] / (hi - lo)[1])
    mean = {k: float(np.mean(v)) for k, v in ratios.items()}
    # 500 labels: ~10% of the slope's interval width on average, against ~2% without correlation
    assert mean["correlated"] > 0.05 and mean["uncorrelated"] < 0.03, mean


def _dup(rng, n, kind):
    x = rng.normal(size=n)
    extra = x if kind == "duplicate" else np.zeros(n)
    return np.c_[np.ones(n), x, extra]


@pytest.mark.parametrize("kind", ["duplicate", "zero"])
@pytest.mark.parametrize("fn", ["stratppi_ols_ci", "stratppi_logistic_ci", "ppi_ols_ci"])
def test_rank_deficient_design_raises(kind, fn):
    # issue 10: 0.1.0 returned intervals (the coefficient split in half, zero width)
    rng = np.random.default_rng(0)
    X, XU = _dup(rng, 200, kind), _dup(rng, 2000, kind)
    Y = (X[:, 1] + rng.normal(size=200) > 0).astype(float)
    F, FU = np.full(200, 0.5), np.full(2000, 0.5)
    args = (X, Y, F, XU, FU) + (
        () if fn.startswith("ppi") else ((X[:, 1] > 0) * 1, (XU[:, 1] > 0) * 1)
    )
    match = "columns 1 and 2 are identical" if kind == "duplicate" else "column 2 is all zeros"
    with pytest.raises(ValueError, match=f"^X {match}"):
        getattr(sp, fn)(*args)


def test_collinear_unlabeled_design_raises():
    rng = np.random.default_rng(0)
    X, XU = (
        np.c_[np.ones(100), rng.normal(size=(100, 2))],
        np.c_[np.ones(1000), rng.normal(size=(1000, 2))],
    )
    XU[:, 2] = 2 * XU[:, 1] - 1
    s, su = np.zeros(100, int), np.zeros(1000, int)
    with pytest.raises(ValueError, match="^X_unlabeled has rank 2 < 3"):
        sp.stratppi_ols_ci(X, X[:, 1], X[:, 1], XU, XU[:, 1], s, su)


def test_separable_logistic_warns():
    # issue 10: 0.1.0 returned slope 966 with an interval of width 0.004, silently
    rng = np.random.default_rng(0)
    x, xu = rng.normal(size=200), rng.normal(size=2000)
    X, XU = np.c_[np.ones(200), x], np.c_[np.ones(2000), xu]
    Y, FU = (x > 0).astype(float), (xu > 0).astype(float)
    s, su = np.zeros(200, int), np.zeros(2000, int)
    with pytest.warns(sp.SeparationWarning, match="separable"):
        sp.stratppi_logistic_ci(X, Y, Y, XU, FU, s, su)
    with pytest.warns(sp.SeparationWarning, match="separable"):
        sp.ppi_logistic_ci(X, Y, Y, XU, FU)
    # overlapping classes: a finite fit and no warning
    Y = (rng.random(200) < 1 / (1 + np.exp(-2 * x))).astype(float)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        F, FU = np.clip(0.5 + 0.3 * x, 0.05, 0.95), np.clip(0.5 + 0.3 * xu, 0.05, 0.95)
        sp.stratppi_logistic_ci(X, Y, F, XU, FU, s, su)
        sp.ppi_logistic_ci(X, Y, F, XU, FU)


def test_logistic_newton_stops_at_the_rounding_floor(monkeypatch):
    # after converging (|g| ~ 1e-10) the line search saw only the loss's rounding noise, and
    # Newton crawled on with ever shorter steps (up to maxiter = 100; 13-16 on some draws here)
    import stratppi._glm as glm

    solve, calls = glm._solve, []
    monkeypatch.setattr(glm, "_solve", lambda H, g: calls.append(1) or solve(H, g))
    counts = []
    for seed in range(20):
        rng = np.random.default_rng(seed)
        n, N = 2000, 50_000
        X, XU = np.c_[np.ones(n), rng.normal(size=n)], np.c_[np.ones(N), rng.normal(size=N)]
        p, pu = 1 / (1 + np.exp(-X @ [0.3, 1])), 1 / (1 + np.exp(-XU @ [0.3, 1]))
        Y = (rng.random(n) < p).astype(float)
        a, b = np.full(n, 1 / n), np.full(N, 1 / N)
        calls.clear()
        theta = glm.solve_logistic(X, 0 * a, a * (Y - p), XU, b, pu)  # lam = 1
        counts.append(len(calls))
        g = -X.T @ (a * (Y - p)) + XU.T @ (b * (1 / (1 + np.exp(-XU @ theta)) - pu))
        assert np.max(np.abs(g)) < 1e-9
    assert max(counts) <= 6, counts
