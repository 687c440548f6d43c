"""Allocation, stratification and input-validation properties."""

import time

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


def test_allocate_caps_and_n_min_bind_on_different_strata():
    # issue 10: 0.1.0 returned [6, 3] (over the cap, total 9)
    assert sp.allocate(10, [0.9, 0.1], caps=[5, 10]).tolist() == [5, 5]
    assert sp.allocate(30, [0.9, 0.05, 0.05], caps=[10, 30, 30], n_min=5).tolist() == [10, 10, 10]


def _continuous(budget, rho, lo, hi):
    """Reference: bisection on t for sum_k clip(t rho_k, lo_k, hi_k) = budget."""
    a, b = 0.0, 1.0
    while np.clip(b * rho, lo, hi).sum() < budget and b < 1e300:
        b *= 2
    for _ in range(200):
        m = 0.5 * (a + b)
        a, b = (m, b) if np.clip(m * rho, lo, hi).sum() < budget else (a, m)
    return np.clip(b * rho, lo, hi)


@settings(derandomize=True, deadline=None, max_examples=120)
@given(
    w=st.lists(st.floats(0.001, 1.0), min_size=1, max_size=4),
    s=st.lists(st.floats(0.05, 2.0), min_size=4, max_size=4),
    caps=st.lists(st.integers(0, 30), min_size=4, max_size=4),
    n_min=st.integers(0, 5),
    frac=st.floats(0.0, 1.0),
)
def test_allocate_with_caps_is_the_rounded_box_constrained_optimum(w, s, caps, n_min, frac):
    K = len(w)
    caps = np.array(caps[:K]) + n_min
    lo_total, hi_total = K * n_min, int(caps.sum())
    budget = max(1, lo_total + int(frac * (hi_total - lo_total)))
    if budget < lo_total or budget > hi_total:
        return
    rho = np.array(w) * np.array(s[:K])
    n_k = sp.allocate(budget, w, sigma=s[:K], method="optimal", n_min=n_min, caps=caps)
    assert n_k.sum() == budget and np.all(n_k >= n_min) and np.all(n_k <= caps)
    x = _continuous(budget, rho / rho.sum(), np.full(K, float(n_min)), caps.astype(float))
    assert np.all(np.abs(n_k - x) < 1 + 1e-6), (n_k, x)  # rounding moves each by < 1


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


# --- stratum labels -------------------------------------------------------------------------------

_label_text = st.text(alphabet=st.characters(codec="utf-8"), max_size=6)


@settings(derandomize=True, deadline=None, max_examples=150)
@given(
    names=st.lists(_label_text, min_size=1, max_size=8, unique=True),
    idx=st.lists(st.integers(0, 7), min_size=2, max_size=60),
    as_bytes=st.booleans(),
)
def test_label_encoding_equals_np_unique(names, idx, as_bytes):
    from stratppi._validation import encode_strata

    names = np.array(names)
    if as_bytes:
        try:
            names = names.astype("S")
        except UnicodeEncodeError:
            return
    lab = names[np.array(idx) % len(names)]
    s, su = lab[: len(lab) // 2], lab[len(lab) // 2 :]
    labels, c, cu = encode_strata(s, su, len(s), len(su))
    ref, inv = np.unique(np.concatenate([s, su]), return_inverse=True)
    assert labels.tolist() == ref.tolist()
    assert c.tolist() == inv[: len(s)].tolist() and cu.tolist() == inv[len(s) :].tolist()


def test_object_and_string_labels_give_the_integer_result(d):
    names = np.array(["low", "mid", "high", "top"])
    ints = sp.stratppi_mean_ci(d.Y, d.Yhat, d.Yhat_unlabeled, d.strata, d.strata_unlabeled)
    order = np.argsort(names)  # string strata are taken in sorted-label order
    relabel = np.empty(4, int)
    relabel[order] = np.arange(4)
    for kind in (str, object, "S"):
        s, su = names[d.strata].astype(kind), names[d.strata_unlabeled].astype(kind)
        got = sp.stratppi_mean_ci(d.Y, d.Yhat, d.Yhat_unlabeled, s, su)
        np.testing.assert_allclose(got, ints, rtol=1e-12)
    lam_s = sp.stratppi_mean_lam(
        d.Y, d.Yhat, d.Yhat_unlabeled, names[d.strata], names[d.strata_unlabeled]
    )
    lam_i = sp.stratppi_mean_lam(d.Y, d.Yhat, d.Yhat_unlabeled, d.strata, d.strata_unlabeled)
    np.testing.assert_allclose(lam_s[relabel], lam_i, rtol=1e-12)


def test_string_labels_are_encoded_without_sorting_the_strings():
    # issue 10: string labels were 35x slower than integers because every label was sorted
    # (np.unique on n + N strings); now they are packed into integer keys in one pass.
    from stratppi._validation import resolve_strata

    rng = np.random.default_rng(0)
    n, N = 20_000, 200_000
    names = np.array(["stratum_alpha", "stratum_beta", "stratum_gamma", "stratum_delta"])
    s, su = names[rng.integers(0, 4, n)], names[rng.integers(0, 4, N)]

    def cpu_ms(fn):
        fn()
        best = np.inf
        for _ in range(5):
            t = time.process_time()
            fn()
            best = min(best, time.process_time() - t)
        return best

    ours = cpu_ms(lambda: resolve_strata(s, su, n, N, None))
    sort = cpu_ms(lambda: np.unique(np.concatenate([s, su]), return_inverse=True))
    assert ours < 0.5 * sort, (ours, sort)
