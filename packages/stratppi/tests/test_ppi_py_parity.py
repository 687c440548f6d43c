"""Switching from ppi_py is a change of import: our PPI++ baselines against ppi_py 0.2.3.

Three parts: (1) the signatures are ppi_py's (names, order, defaults); (2) on the same data the
numbers are ppi_py's (1e-10 for means and OLS; 1e-6 for the logistic, which ppi_py solves with
L-BFGS-B and we with Newton), over lam / alternative / w / w_unlabeled / coord /
lam_optim_mode; (3) the checks of ppi_py's own test suite (tests/test_mean.py, test_ols.py,
test_logistic.py, PPI and classical-mean cases), ported to our functions with fixed seeds.

Needs the `test-ppi` dependency group: `nox -s "tests_extras(package='stratppi')"` runs it;
`nox -s tests` skips it. The first logistic/OLS call compiles ppi_py's numba code (~30 s).
"""

import inspect
import warnings

import numpy as np
import pytest
import stratppi as sp
from scipy.special import expit
from stratppi import baselines

ppi_py = pytest.importorskip("ppi_py")


def _flat(x):
    return np.hstack([np.ravel(v) for v in (x if isinstance(x, tuple) else (x,))])


def _same(ours, theirs, atol):
    """Equal, bound by bound; ppi_py's one-sided bounds are a scalar inf (ours: an array)."""
    ours, theirs = (ours, theirs) if isinstance(ours, tuple) else ((ours,), (theirs,))
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        a = np.ravel(a)
        np.testing.assert_allclose(a, np.broadcast_to(np.ravel(b), a.shape), atol=atol)


# --- (1) signatures -----------------------------------------------------------------------------


@pytest.mark.parametrize("name", baselines.__all__)
def test_signature_is_ppi_py_s(name):
    ours = inspect.signature(getattr(sp, name)).parameters.values()
    theirs = inspect.signature(getattr(ppi_py, name)).parameters.values()
    shared = [(p.name, p.default) for p in ours if p.kind is not p.KEYWORD_ONLY]
    assert shared == [(p.name, p.default) for p in theirs]
    extra = [p for p in ours if p.kind is p.KEYWORD_ONLY]
    assert all(p.name in ("clip", "ddof") for p in extra), extra


# --- (2) the same numbers -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def mean_data():
    rng = np.random.default_rng(0)
    n, N, d = 300, 3000, 3
    Y = rng.normal(size=(n, d)) + [0.0, 1.0, 2.0]
    F = Y + rng.normal(size=(n, d)) * [0.3, 1.0, 3.0] + 0.2
    FU = rng.normal(size=(N, d)) * [1.05, 1.4, 3.2] + [0.2, 1.2, 2.2]
    return Y, F, FU, rng.uniform(0.2, 2.0, n), rng.uniform(0.2, 2.0, N)


@pytest.mark.parametrize("lam", [None, 0.0, 0.4, 1.0])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("dim", [1, 3])
def test_mean_functions_match(mean_data, lam, weighted, dim):
    Y, F, FU, w, wu = mean_data
    if dim == 1:
        Y, F, FU = Y[:, 1], F[:, 1], FU[:, 1]
    kw = {"w": w, "w_unlabeled": wu} if weighted else {}
    ours = sp.ppi_mean_pointestimate(Y, F, FU, lam=lam, **kw)
    _same(ours, ppi_py.ppi_mean_pointestimate(Y, F, FU, lam=lam, **kw), 1e-12)
    for alternative in ("two-sided", "larger", "smaller"):
        ours = sp.ppi_mean_ci(Y, F, FU, alpha=0.05, alternative=alternative, lam=lam, ddof=0, **kw)
        peer_lam = lam
        if lam is None and alternative != "two-sided":
            # ppi_py 0.2.3 drops `alternative` when it tunes lam; give it our tuned lam instead
            tuned = sp.ppi_mean_ci(Y, F, FU, lam=None, ddof=0, **kw)
            _same(tuned, ppi_py.ppi_mean_ci(Y, F, FU, **kw), 1e-10)
            peer_lam = _tuned_mean_lam(Y, F, FU, w if weighted else None, wu if weighted else None)
        theirs = ppi_py.ppi_mean_ci(
            Y, F, FU, alpha=0.05, alternative=alternative, lam=peer_lam, **kw
        )
        _same(ours, theirs, 1e-10)
        # ppi_py's p-value does not clip a tuned lam: clip=False gives its numbers
        ours = sp.ppi_mean_pval(
            Y, F, FU, null=0.9, alternative=alternative, lam=lam, clip=False, ddof=0, **kw
        )
        theirs = ppi_py.ppi_mean_pval(Y, F, FU, null=0.9, alternative=alternative, lam=lam, **kw)
        _same(ours, theirs, 1e-10)


def _tuned_mean_lam(Y, F, FU, w, wu):
    """Our tuned lam, recovered from the lam=None and lam=0/1 point estimates (it enters linearly)."""
    e0 = _flat(sp.ppi_mean_pointestimate(Y, F, FU, lam=0.0, w=w, w_unlabeled=wu))
    e1 = _flat(sp.ppi_mean_pointestimate(Y, F, FU, lam=1.0, w=w, w_unlabeled=wu))
    et = _flat(sp.ppi_mean_pointestimate(Y, F, FU, w=w, w_unlabeled=wu))
    return float(((et - e0) / (e1 - e0))[0])


def test_mean_element_mode_matches(mean_data):
    Y, F, FU, _, _ = mean_data
    for fn in ("ppi_mean_pointestimate", "ppi_mean_ci"):
        kw = {"ddof": 0} if fn == "ppi_mean_ci" else {}
        ours = getattr(sp, fn)(Y, F, FU, lam_optim_mode="element", **kw)
        theirs = getattr(ppi_py, fn)(Y, F, FU, lam_optim_mode="element")
        _same(ours, theirs, 1e-10)


def test_classical_mean_matches(mean_data):
    Y, _, _, w, _ = mean_data
    Y = Y[:, 1]  # ppi_py's classical_mean_ci is 1-d only (2-d Y gives it the grand mean)
    for kw in ({}, {"w": w}):
        for alternative in ("two-sided", "larger", "smaller"):
            ours = sp.classical_mean_ci(Y, alpha=0.2, alternative=alternative, ddof=0, **kw)
            theirs = ppi_py.classical_mean_ci(Y, alpha=0.2, alternative=alternative, **kw)
            _same(ours, theirs, 1e-12)


def _reg_data(rng, n, N, p=3, logistic=False):
    X = np.c_[np.ones(n), rng.normal(size=(n, p - 1))]
    XU = np.c_[np.ones(N), rng.normal(size=(N, p - 1))]
    beta = np.linspace(-0.5, 1.0, p)
    if logistic:
        Y = (rng.random(n) < expit(X @ beta)).astype(float)
        F = expit(X @ (beta + 0.3) + 0.5 * rng.normal(size=n))
        FU = expit(XU @ (beta + 0.3) + 0.5 * rng.normal(size=N))
    else:
        Y = X @ beta + rng.normal(size=n)
        F = X @ (beta + [0.2, 0.4, 0.0][:p]) + 0.5 * rng.normal(size=n)  # error correlated with X
        FU = XU @ (beta + [0.2, 0.4, 0.0][:p]) + 0.5 * rng.normal(size=N)
    return X, Y, F, XU, FU, rng.uniform(0.2, 2.0, n), rng.uniform(0.2, 2.0, N)


@pytest.fixture(scope="module")
def ols_data():
    return _reg_data(np.random.default_rng(1), 400, 4000)


@pytest.mark.parametrize("lam", [None, 0.0, 0.5, 1.0])
@pytest.mark.parametrize("coord", [None, 1])
@pytest.mark.parametrize("weighted", [False, True])
def test_ols_matches(ols_data, lam, coord, weighted):
    X, Y, F, XU, FU, w, wu = ols_data
    kw = {"w": w, "w_unlabeled": wu} if weighted else {}
    ours = sp.ppi_ols_pointestimate(X, Y, F, XU, FU, lam=lam, coord=coord, **kw)
    theirs = ppi_py.ppi_ols_pointestimate(X, Y, F, XU, FU, lam=lam, coord=coord, **kw)
    np.testing.assert_allclose(ours, theirs, atol=1e-10)
    for alternative in ("two-sided", "larger", "smaller"):
        ours = sp.ppi_ols_ci(
            X, Y, F, XU, FU, alpha=0.1, alternative=alternative, lam=lam, coord=coord, **kw
        )
        theirs = ppi_py.ppi_ols_ci(
            X, Y, F, XU, FU, alpha=0.1, alternative=alternative, lam=lam, coord=coord, **kw
        )
        _same(ours, theirs, 1e-10)


def test_ols_lam0_one_stratum_equals_classical_ols_of_ppi_py(ols_data):
    X, Y, F, XU, FU, _, _ = ols_data
    z, zu = np.zeros(len(Y), int), np.zeros(len(FU), int)
    ours = sp.stratppi_ols_ci(X, Y, F, XU, FU, z, zu, lam=0.0, ddof=0)
    _same(ours, ppi_py.classical_ols_ci(X, Y), 1e-10)


@pytest.fixture(scope="module")
def logistic_data():
    return _reg_data(np.random.default_rng(2), 400, 4000, logistic=True)


@pytest.mark.parametrize("lam", [None, 0.0, 0.6, 1.0])
@pytest.mark.parametrize("weighted", [False, True])
def test_logistic_matches(logistic_data, lam, weighted):
    X, Y, F, XU, FU, w, wu = logistic_data
    kw = {"w": w, "w_unlabeled": wu} if weighted else {}
    ours = sp.ppi_logistic_pointestimate(X, Y, F, XU, FU, lam=lam, **kw)
    theirs = ppi_py.ppi_logistic_pointestimate(X, Y, F, XU, FU, lam=lam, **kw)
    np.testing.assert_allclose(ours, theirs, atol=1e-6)
    ours = sp.ppi_logistic_ci(X, Y, F, XU, FU, alpha=0.1, alternative="two-sided", lam=lam, **kw)
    theirs = ppi_py.ppi_logistic_ci(
        X, Y, F, XU, FU, alpha=0.1, alternative="two-sided", lam=lam, **kw
    )
    _same(ours, theirs, 1e-6)
    ours = sp.ppi_logistic_pval(X, Y, F, XU, FU, lam=lam, alternative="larger", **kw)
    theirs = ppi_py.ppi_logistic_pval(X, Y, F, XU, FU, lam=lam, alternative="larger", **kw)
    np.testing.assert_allclose(ours, theirs, atol=1e-6)


def test_stratified_logistic_one_stratum_equals_ppi_py(logistic_data):
    X, Y, F, XU, FU, _, _ = logistic_data
    z, zu = np.zeros(len(Y), int), np.zeros(len(FU), int)
    ours = sp.stratppi_logistic_ci(X, Y, F, XU, FU, z, zu, lam=0.7)
    _same(ours, ppi_py.ppi_logistic_ci(X, Y, F, XU, FU, lam=0.7), 1e-6)


@pytest.mark.parametrize("lam", [None, 0.0, 0.3, 1.0])
def test_stratified_mean_one_stratum_equals_ppi_py(lam):
    d = sp.simulate(n=600, N=6000, rng=3)
    z, zu = np.zeros(len(d.Y), int), np.zeros(len(d.Yhat_unlabeled), int)
    ours = sp.stratppi_mean_ci(d.Y, d.Yhat, d.Yhat_unlabeled, z, zu, lam=lam, alpha=0.05, ddof=0)
    theirs = ppi_py.ppi_mean_ci(d.Y, d.Yhat, d.Yhat_unlabeled, alpha=0.05, lam=lam)
    _same(ours, theirs, 1e-12)


# --- (3) ppi_py's own tests, against our functions ----------------------------------------------

ALPHAS = np.array([0.5, 0.2, 0.1, 0.05, 0.01])


def test_ported_ppi_mean_pointestimate():
    rng = np.random.default_rng(10)
    Y = rng.normal(0, 1, 100)
    assert abs(sp.ppi_mean_pointestimate(Y, Y + 2, np.ones(10000) * 2)) < 1e-12


def test_ported_ppi_mean_ci():
    rng = np.random.default_rng(11)
    trials, epsilon, included = 100, 0.1, np.zeros_like(ALPHAS)
    for _ in range(trials):
        Y, F, FU = rng.normal(0, 1, 10000), rng.normal(-2, 1, 10000), rng.normal(-2, 1, 10000)
        for j, alpha in enumerate(ALPHAS):
            lo, hi = sp.ppi_mean_ci(Y, F, FU, alpha=alpha)
            included[j] += lo <= 0 <= hi
    assert np.all(included / trials >= 1 - ALPHAS - epsilon), included / trials


def test_ported_ppi_mean_multid():
    rng = np.random.default_rng(12)
    trials, epsilon, included = 100, 0.1, np.zeros((len(ALPHAS), 5))
    for _ in range(trials):
        Y, F, FU = (rng.normal(m, 1, (10000, 5)) for m in (0, -2, -2))
        for j, alpha in enumerate(ALPHAS):
            lo, hi = sp.ppi_mean_ci(Y, F, FU, alpha=alpha)
            included[j] += (lo <= 0) & (hi >= 0)
    assert np.all(included / trials >= (1 - ALPHAS - epsilon)[:, None]), included / trials


def test_ported_ppi_mean_elem():
    # ppi_py's test passes `lambd_optim_mode`, a name its functions do not take (TypeError in
    # ppi_py 0.2.3); ported with the real name, and checked: each coordinate as its own 1-d run
    rng = np.random.default_rng(13)
    Y, F, FU = rng.normal(0, 1, 10000), rng.normal(-2, 1, 10000), rng.normal(-2, 1, 10000)
    for fn in (sp.ppi_mean_pointestimate, sp.ppi_mean_ci, sp.ppi_mean_pval):
        assert np.all(np.isfinite(_flat(fn(Y, F, FU, lam_optim_mode="element"))))
    Y, F, FU = (rng.normal(m, 1, (10000, 5)) for m in (0, -2, -2))
    lo, hi = sp.ppi_mean_ci(Y, F, FU, alpha=0.1, lam_optim_mode="element")
    p = sp.ppi_mean_pval(Y, F, FU, lam_optim_mode="element")
    for j in range(5):
        assert (lo[j], hi[j]) == pytest.approx(
            sp.ppi_mean_ci(Y[:, j], F[:, j], FU[:, j], alpha=0.1), abs=1e-12
        )
        assert p[j] == pytest.approx(sp.ppi_mean_pval(Y[:, j], F[:, j], FU[:, j]), abs=1e-12)


def test_ported_ppi_mean_pval():
    rng = np.random.default_rng(14)
    trials, epsilon, rejected = 1000, 0.05, np.zeros_like(ALPHAS)
    for _ in range(trials):
        Y, F, FU = rng.normal(0, 1, 10000), rng.normal(-2, 1, 10000), rng.normal(-2, 1, 10000)
        rejected += sp.ppi_mean_pval(Y, F, FU, null=0) < ALPHAS
    assert np.all(rejected / trials <= ALPHAS + epsilon), rejected / trials


def test_ported_classical_mean_ci():
    rng = np.random.default_rng(15)
    trials, epsilon, included = 1000, 0.05, np.zeros_like(ALPHAS)
    for _ in range(trials):
        Y = rng.normal(0, 1, 10000)
        for j, alpha in enumerate(ALPHAS):
            lo, hi = sp.classical_mean_ci(Y, alpha=alpha)
            included[j] += lo <= 0 <= hi
    assert np.all(included / trials >= 1 - ALPHAS - epsilon), included / trials


def _ols_problem(rng, n, N, d):
    """ppi_py's OLS test problem: a linear model and predictions biased by +2 per coefficient."""
    X, XU = rng.normal(size=(n, d)), rng.normal(size=(N, d))
    beta = rng.normal(size=d)
    beta_pred = beta + rng.normal(size=d) + 2
    Y = X @ beta + rng.normal(size=n)
    F, FU = X @ beta_pred + rng.normal(size=n), XU @ beta_pred + rng.normal(size=N)
    return X, Y, F, XU, FU, beta, beta_pred


def test_ported_ppi_ols_pointestimate():
    rng = np.random.default_rng(16)
    n, N, d = 1000, 10000, 10
    X, Y, F, XU, FU, beta, beta_pred = _ols_problem(rng, n, N, d)
    est = sp.ppi_ols_pointestimate(X, Y, F, XU, FU)
    assert np.linalg.norm(est - beta) < np.linalg.norm(beta_pred - beta)  # less biased


def test_ported_ppi_ols_ci():
    rng = np.random.default_rng(17)
    n, N, trials, epsilon = 1000, 10000, 1000, 0.05
    alphas, included = np.array([0.05, 0.1, 0.2]), np.zeros(3)
    for _ in range(trials):
        X, Y, F, XU, FU, beta, _ = _ols_problem(rng, n, N, 1)
        for j, alpha in enumerate(alphas):
            lo, hi = sp.ppi_ols_ci(X, Y, F, XU, FU, alpha=alpha)
            included[j] += lo[0] <= beta[0] <= hi[0]
    assert np.all(included / trials >= 1 - alphas - epsilon), included / trials


def test_ported_ppi_logistic_pointestimate_debias():
    rng = np.random.default_rng(18)
    n, N, d = 100, 1000, 2
    X, XU = rng.normal(size=(n, d)), rng.normal(size=(N, d))
    beta = rng.normal(size=d)
    beta_pred = beta + rng.normal(size=d) + 2
    Y = expit(X @ beta + rng.normal(size=n))
    F, FU = expit(X @ beta_pred + rng.normal(size=n)), expit(XU @ beta_pred + rng.normal(size=N))
    est = sp.ppi_logistic_pointestimate(
        X, (Y > 0.5).astype(int), F, XU, FU, optimizer_options={"gtol": 1e-3}
    )
    assert np.linalg.norm(est - beta) < np.linalg.norm(beta_pred - beta)


def test_ported_ppi_logistic_pointestimate_recovers():
    rng = np.random.default_rng(19)
    n, N, d = 10000, 100000, 3
    X, XU = rng.normal(size=(n, d)), rng.normal(size=(N, d))
    beta = rng.normal(size=d)
    Y = rng.binomial(1, expit(X @ beta))
    est = sp.ppi_logistic_pointestimate(
        X, Y, expit(X @ beta), XU, expit(XU @ beta), optimizer_options={"gtol": 1e-3}
    )
    assert np.linalg.norm(est - beta) < 0.2


def test_ported_ppi_logistic_pval_makesense():
    rng = np.random.default_rng(20)
    n, N = 10000, 100000
    X, XU = rng.normal(size=(n, 3)), rng.normal(size=(N, 3))
    beta = np.array([0, 0, 1.0])
    Y = rng.binomial(1, expit(X @ beta))
    for lam in (0.5, None):
        p = sp.ppi_logistic_pval(
            X, Y, expit(X @ beta), XU, expit(XU @ beta), lam=lam, optimizer_options={"gtol": 1e-3}
        )
        assert p[-1] < 0.1


def test_ported_ppi_logistic_ci():
    # ppi_py runs 10 trials in parallel processes with epsilon = 0.4; serially here
    rng = np.random.default_rng(21)
    n, N, d, trials, epsilon = 1000, 10000, 2, 10, 0.4
    alphas, included = np.array([0.05, 0.1, 0.2]), np.zeros(3)
    for _ in range(trials):
        X, XU = rng.normal(size=(n, d)), rng.normal(size=(N, d))
        beta = rng.normal(size=d)
        beta_pred = beta + rng.normal(size=d) + 2
        Y = rng.binomial(1, expit(X @ beta))
        with warnings.catch_warnings():
            warnings.simplefilter("error", sp.SeparationWarning)
            for j, alpha in enumerate(alphas):
                lo, hi = sp.ppi_logistic_ci(
                    X,
                    Y,
                    expit(X @ beta_pred),
                    XU,
                    expit(XU @ beta_pred),
                    alpha=alpha,
                    optimizer_options={"gtol": 1e-3},
                )
                included[j] += lo[0] <= beta[0] <= hi[0]
    assert np.all(included / trials >= 1 - alphas - epsilon), included / trials
