"""Allocation, stratification and input-validation properties."""

import numpy as np
import pytest
import stratppi as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from stratppi.simulate import _moments


@settings(derandomize=True, deadline=None, max_examples=200)
@given(
    budget=st.integers(10, 5000),
    w=st.lists(st.floats(0.01, 1.0), min_size=1, max_size=8),
    s=st.lists(st.floats(0.0, 2.0), min_size=8, max_size=8),
    method=st.sampled_from(["proportional", "optimal"]),
    n_min=st.integers(0, 2),
)
def test_allocate_integers_sum_to_budget_and_respect_n_min(budget, w, s, method, n_min):
    K = len(w)
    if K * n_min > budget:
        return
    n_k = sp.allocate(budget, w, sigma=s[:K], method=method, n_min=n_min)
    assert n_k.dtype == np.int64 and n_k.sum() == budget and np.all(n_k >= n_min)


def test_allocate_respects_caps():
    n_k = sp.allocate(100, [0.8, 0.1, 0.1], caps=np.array([30, 100, 100]))
    assert n_k.tolist()[0] == 30 and n_k.sum() == 100


def test_optimal_beats_proportional_on_analytic_variance():
    rng = np.random.default_rng(0)
    for _ in range(1000):
        K = rng.integers(2, 8)
        w, sig = rng.dirichlet(np.ones(K)), rng.uniform(0.01, 1, K)
        n = int(rng.integers(200, 5000))
        prop = sp.allocate(n, w, n_min=1)
        opt = sp.allocate(n, w, sigma=sig, method="optimal", n_min=1)
        assert sp.neyman_variance(opt, w, sig) <= sp.neyman_variance(prop, w, sig) * (1 + 1e-3)


def test_heuristic_uses_mean_f_one_minus_f():
    scores = [np.full(10, 0.5), np.full(10, 0.9)]  # sigma = 0.5 and 0.3
    assert sp.allocate(80, [0.5, 0.5], scores=scores, method="heuristic", n_min=0).tolist() == [
        50,
        30,
    ]


def test_make_strata_equal_mass_and_reusable_edges():
    x = np.random.default_rng(0).random(1000)
    labels, edges = sp.make_strata(x, K=5)
    assert np.bincount(labels).tolist() == [200] * 5
    new, _ = sp.make_strata(np.array([-1.0, edges[2], 2.0]), edges=edges)
    assert new.tolist() == [0, 2, 4]
    binary, e2 = sp.make_strata(np.r_[np.zeros(50), np.ones(50)], K=5)  # ties merge bins
    assert np.unique(binary).tolist() == [0, 1] and len(e2) == 3


@pytest.fixture
def d():
    return sp.simulate(n=200, N=2000, rng=0)


def test_bad_inputs_raise_clear_errors(d):
    args = (d.Y, d.Yhat, d.Yhat_unlabeled, d.strata, d.strata_unlabeled)
    with pytest.raises(ValueError, match="Yhat has"):
        sp.stratppi_mean_ci(d.Y, d.Yhat[:-1], *args[2:])
    with pytest.raises(ValueError, match="Y contains NaN"):
        sp.stratppi_mean_ci(np.r_[np.nan, d.Y[1:]], *args[1:])
    with pytest.raises(ValueError, match="Y is empty"):
        sp.stratppi_mean_ci(
            np.array([]), np.array([]), d.Yhat_unlabeled, np.array([], int), d.strata_unlabeled
        )
    with pytest.raises(TypeError, match="Y must be a real numeric"):
        sp.stratppi_mean_ci(np.array(["a"] * len(d.Y)), *args[1:])
    with pytest.raises(ValueError, match="alpha"):
        sp.stratppi_mean_ci(*args, alpha=1.5)
    with pytest.raises(ValueError, match="alternative"):
        sp.stratppi_mean_ci(*args, alternative="lower")
    with pytest.raises(ValueError, match="strata has length"):
        sp.stratppi_mean_ci(d.Y, d.Yhat, d.Yhat_unlabeled, d.strata[:-1], d.strata_unlabeled)
    with pytest.raises(TypeError, match="strata_unlabeled"):
        sp.stratppi_mean_ci(d.Y, d.Yhat, d.Yhat_unlabeled, d.strata, d.strata_unlabeled + 0.5)
    with pytest.raises(ValueError, match="weights has length"):
        sp.stratppi_mean_ci(*args, weights=[0.5, 0.5])
    with pytest.raises(ValueError, match="weights must be"):
        sp.stratppi_mean_ci(*args, weights=[-1, 1, 1, 1])
    with pytest.raises(ValueError, match="lam must be"):
        sp.stratppi_mean_ci(*args, lam=[0.5, 0.5])
    with pytest.raises(ValueError, match="at least 2"):
        s = d.strata.copy()
        s[s == 3] = 2
        s[np.flatnonzero(d.strata == 3)[0]] = 3
        sp.stratppi_mean_ci(d.Y, d.Yhat, d.Yhat_unlabeled, s, d.strata_unlabeled)
    with pytest.raises(ValueError, match="ddof"):
        sp.stratppi_mean_ci(*args, ddof=2)
    with pytest.raises(ValueError, match="budget"):
        sp.allocate(5, [0.5, 0.3, 0.2], n_min=2)
    with pytest.raises(TypeError, match="budget"):
        sp.allocate(10.5, [0.5, 0.5])
    with pytest.raises(ValueError, match="sigma"):
        sp.allocate(10, [0.5, 0.5], method="optimal")
    with pytest.raises(ValueError, match="method"):
        sp.allocate(10, [0.5, 0.5], method="neyman")
    with pytest.raises(ValueError, match="scores"):
        sp.allocate(10, [0.5, 0.5], scores=[[0.2, 1.5], [0.3]], method="heuristic")
    with pytest.raises(ValueError, match="K must be"):
        sp.make_strata([0.1, 0.2], K=0)
    X, XU = np.ones((len(d.Y), 1)), np.ones((len(d.Yhat_unlabeled), 2))
    with pytest.raises(ValueError, match="X_unlabeled has 2 columns"):
        sp.stratppi_ols_ci(X, d.Y, d.Yhat, XU, d.Yhat_unlabeled, d.strata, d.strata_unlabeled)
    with pytest.raises(ValueError, match="binary"):
        sp.stratppi_logistic_ci(
            X, d.Y + 0.5, d.Yhat, XU[:, :1], d.Yhat_unlabeled, d.strata, d.strata_unlabeled
        )


def test_zero_weight_stratum_is_ignored_and_missing_pool_forces_lam0(d):
    # a stratum with labels but no unlabelled pool gets weight 0 by default (N_k / N)
    s = np.r_[d.strata, [9, 9]]
    Y, F = np.r_[d.Y, [0.0, 1.0]], np.r_[d.Yhat, [0.5, 0.5]]
    with pytest.warns(UserWarning, match="labels are ignored"):
        a = sp.stratppi_mean_ci(Y, F, d.Yhat_unlabeled, s, d.strata_unlabeled)
    b = sp.stratppi_mean_ci(d.Y, d.Yhat, d.Yhat_unlabeled, d.strata, d.strata_unlabeled)
    np.testing.assert_allclose(a, b, atol=1e-12)
    # with explicit weight, that stratum is classical (tuned lam_k = 0)
    lam = sp.stratppi_mean_lam(
        Y, F, d.Yhat_unlabeled, s, d.strata_unlabeled, weights=[1, 1, 1, 1, 1]
    )
    assert lam[-1] == 0.0


def test_pval_consistent_with_ci(d):
    args = (d.Y, d.Yhat, d.Yhat_unlabeled, d.strata, d.strata_unlabeled)
    lo, hi = sp.stratppi_mean_ci(*args, alpha=0.1)
    assert sp.stratppi_mean_pval(*args, null=lo) == pytest.approx(0.1, abs=1e-9)
    lo1, _ = sp.stratppi_mean_ci(*args, alpha=0.1, alternative="larger")
    assert sp.stratppi_mean_pval(*args, null=lo1, alternative="larger") == pytest.approx(
        0.1, abs=1e-9
    )


def test_heuristic_accepts_one_score_per_stratum():
    a = sp.allocate(80, [0.5, 0.5], scores=np.array([0.5, 0.9]), method="heuristic", n_min=0)
    assert a.tolist() == [50, 30]


def test_tuned_lam_and_sigma_converge_to_oracle():
    # large sample: lam_k -> Cov/((1 + n/N) Var f) and sd(Y - lam f) -> closed form oracle_sigma
    d = sp.simulate(n=80_000, N=400_000, rng=4)
    # tolerances ~3.5 s.e.: s.e.(lam_k) <= ~0.006 and s.e.(sd_k) ~ sigma_k / sqrt(2 n_k) <= 0.004
    _, cov, vf = _moments((0.9, 0.7, 0.5, 0.3), (0.05, 0.2, 0.5, 1.0), 0.9, 0.05)
    lam = sp.stratppi_mean_lam(d.Y, d.Yhat, d.Yhat_unlabeled, d.strata, d.strata_unlabeled)
    np.testing.assert_allclose(lam, np.clip(cov / vf / 1.2, 0, 1), atol=0.02)
    sig = sp.stratum_sigma(d.Y, d.Yhat, d.Yhat_unlabeled, d.strata, d.strata_unlabeled, lam=lam)
    np.testing.assert_allclose(sig, sp.oracle_sigma(lam=lam), atol=0.015)


def test_invariant_to_row_order_and_label_names(d):
    args = (d.Y, d.Yhat, d.Yhat_unlabeled, d.strata, d.strata_unlabeled)
    base = sp.stratppi_mean_ci(*args)
    rng = np.random.default_rng(0)
    i, j = rng.permutation(len(d.Y)), rng.permutation(len(d.Yhat_unlabeled))
    perm = sp.stratppi_mean_ci(
        d.Y[i], d.Yhat[i], d.Yhat_unlabeled[j], d.strata[i], d.strata_unlabeled[j]
    )
    np.testing.assert_allclose(perm, base, rtol=1e-10)
    relab = sp.stratppi_mean_ci(
        d.Y, d.Yhat, d.Yhat_unlabeled, 10 * d.strata + 7, 10 * d.strata_unlabeled + 7
    )
    np.testing.assert_allclose(relab, base, rtol=1e-12)
    neg = sp.stratppi_mean_ci(
        d.Y, d.Yhat, d.Yhat_unlabeled, -d.strata, -d.strata_unlabeled
    )  # slow path
    np.testing.assert_allclose(neg, base, rtol=1e-12)


def test_scipy_alternative_aliases(d):
    """'greater' / 'less' (scipy's spelling) are aliases of ppi_py's 'larger' / 'smaller'."""
    args = (d.Y, d.Yhat, d.Yhat_unlabeled, d.strata, d.strata_unlabeled)
    for alias, name in (("greater", "larger"), ("less", "smaller")):
        assert sp.stratppi_mean_ci(*args, alternative=alias) == sp.stratppi_mean_ci(
            *args, alternative=name
        )
        assert sp.ppi_mean_ci(d.Y, d.Yhat, d.Yhat_unlabeled, alternative=alias) == sp.ppi_mean_ci(
            d.Y, d.Yhat, d.Yhat_unlabeled, alternative=name
        )
        assert sp.stratppi_mean_pval(*args, null=0.5, alternative=alias) == sp.stratppi_mean_pval(
            *args, null=0.5, alternative=name
        )
    lo, hi = sp.stratppi_mean_ci(*args, alternative="greater")
    assert np.isinf(hi) and np.isfinite(lo)
