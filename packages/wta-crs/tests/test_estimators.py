"""The numpy estimators against independent references: exact enumeration of the sampling
distribution, brute force, and Monte Carlo with tolerances derived from the samples."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from wta_crs import (
    choose_num_deterministic,
    crs_matmul_grad,
    crs_variance,
    topk_matmul_grad,
    wta_crs_matmul_grad,
    wta_crs_variance,
)
from wta_crs._synthetic import heavy_rows as heavy


def row_products(X, G):
    return np.linalg.norm(X, axis=1) * np.linalg.norm(G, axis=1)


def enumerate_wta(X, G, k, p, c):
    """Exact mean and MSE of WTA-CRS by enumerating every ordered draw of the rest (naive)."""
    p = p / p.sum()
    order = sorted(range(len(p)), key=lambda i: (-p[i], i))
    winners, rest = order[:c], order[c:]
    A = G.T @ X
    base = sum((np.outer(G[i], X[i]) for i in winners), np.zeros_like(A))
    mass = sum(p[j] for j in rest)
    m = k - c
    mean = np.zeros_like(A)
    mse = 0.0
    for draw in itertools.product(rest, repeat=m):
        prob = np.prod([p[j] / mass for j in draw])
        est = base + sum(mass / (m * p[j]) * np.outer(G[j], X[j]) for j in draw)
        mean += prob * est
        mse += prob * np.sum((est - A) ** 2)
    return mean, mse


@pytest.mark.parametrize("c", [0, 1, 2])
def test_wta_closed_form_and_unbiasedness_by_exact_enumeration(c):
    X, G = heavy(6, 3, 2, seed=c)
    k = 4
    p = row_products(X, G)
    mean, mse = enumerate_wta(X, G, k, p, c)
    np.testing.assert_allclose(mean, G.T @ X, rtol=1e-10, atol=1e-10)
    assert wta_crs_variance(X, G, k, num_deterministic=c) == pytest.approx(mse, rel=1e-9)
    if c == 0:  # c = 0 is plain CRS
        assert crs_variance(X, G, k) == pytest.approx(mse, rel=1e-9)


def test_closed_form_with_custom_p_by_exact_enumeration():
    X, G = heavy(5, 2, 3, seed=7)
    p = np.array([1.0, 3.0, 0.5, 2.0, 1.5])  # not proportional to the row products
    mean, mse = enumerate_wta(X, G, 3, p, 1)
    np.testing.assert_allclose(mean, G.T @ X, atol=1e-10)
    assert wta_crs_variance(X, G, 3, p=p, num_deterministic=1) == pytest.approx(mse, rel=1e-9)


def test_zero_probability_rows_count_as_bias_in_the_mse():
    X, G = heavy(4, 2, 2, seed=3)
    p = np.array([1.0, 1.0, 1.0, 0.0])  # row 3 is never drawn
    A_missed = np.outer(G[3], X[3])
    A_seen = G[:3].T @ X[:3]
    a2 = row_products(X, G)[:3] ** 2
    expected = (np.sum(a2 / (1 / 3)) - np.sum(A_seen**2)) / 2 + np.sum(A_missed**2)
    assert crs_variance(X, G, 2, p=p) == pytest.approx(expected, rel=1e-12)


def z_scores(samples, target):
    """Per-entry z-scores of the sample mean against the target (sample standard errors)."""
    samples = np.asarray(samples)
    se = samples.std(axis=0, ddof=1) / np.sqrt(len(samples))
    return np.abs(samples.mean(axis=0) - target) / np.maximum(se, 1e-300)


@pytest.mark.parametrize(
    "estimator",
    [
        lambda X, G, k, r: crs_matmul_grad(X, G, k, rng=r),
        lambda X, G, k, r: wta_crs_matmul_grad(X, G, k, rng=r),
        lambda X, G, k, r: wta_crs_matmul_grad(X, G, k, num_deterministic=3, rng=r),
        lambda X, G, k, r: wta_crs_matmul_grad(X, G, k, p=np.ones(len(X)), rng=r),
    ],
    ids=["crs", "wta-adaptive", "wta-c3", "wta-uniform-p"],
)
def test_estimators_are_unbiased_monte_carlo(estimator):
    # 4 x 3 = 12 entries; |z| < 4.5 for every entry: a false alarm has probability < 1e-4
    # (normal approximation of the mean of 1000 draws)
    X, G = heavy(40, 3, 4, seed=1)
    rng = np.random.default_rng(5)
    draws = [estimator(X, G, 8, rng) for _ in range(1000)]
    assert z_scores(draws, G.T @ X).max() < 4.5


def test_the_monte_carlo_check_detects_topk_bias():
    # the same statistic flags the deterministic top-k estimator, and shrinks with no draws
    X, G = heavy(40, 3, 4, seed=1)
    est = topk_matmul_grad(X, G, 8)
    bias = est - G.T @ X
    assert np.sum(bias**2) > 0.01 * np.sum((G.T @ X) ** 2)
    rng = np.random.default_rng(5)
    fake = [est + 1e-9 * rng.standard_normal(est.shape) for _ in range(50)]
    assert z_scores(fake, G.T @ X).max() > 4.5


def test_wrong_scaling_is_detected():
    # an estimator scaled by 1/(k p) instead of (1 - P_C)/((k - c) p) is biased: the check sees it
    X, G = heavy(40, 3, 4, seed=1)
    rng = np.random.default_rng(5)
    draws = [1.1 * wta_crs_matmul_grad(X, G, 8, rng=rng) for _ in range(1000)]
    assert z_scores(draws, G.T @ X).max() > 4.5


@pytest.mark.parametrize("frac", [0.1, 0.3])
def test_closed_forms_match_monte_carlo(frac):
    X, G = heavy(128, 16, 8, seed=2)
    k = int(frac * 128)
    A = G.T @ X
    rng = np.random.default_rng(11)
    for fn, var in [(crs_matmul_grad, crs_variance), (wta_crs_matmul_grad, wta_crs_variance)]:
        err = np.array([np.sum((fn(X, G, k, rng=rng) - A) ** 2) for _ in range(1000)])
        se = err.std(ddof=1) / np.sqrt(len(err))
        assert abs(err.mean() - var(X, G, k)) < 4.5 * se


def test_wta_beats_crs_on_heavy_tailed_rows():
    # the paper's claim: lower variance when P_C > c / k (checked on the closed forms)
    X, G = heavy(256, 64, 32, seed=0)
    p = row_products(X, G)
    p = p / p.sum()
    for frac in (0.1, 0.3):
        k = int(frac * 256)
        c = choose_num_deterministic(p, k)
        P_C = np.sort(p)[::-1][:c].sum()
        assert c > 0 and P_C > c / k
        assert wta_crs_variance(X, G, k) < crs_variance(X, G, k)


def test_wta_equals_crs_when_no_winner():
    X, G = heavy(30, 3, 2, seed=4)
    a = wta_crs_matmul_grad(X, G, 5, num_deterministic=0, rng=9)
    b = crs_matmul_grad(X, G, 5, rng=9)
    np.testing.assert_allclose(a, b, rtol=1e-12)
    assert wta_crs_variance(X, G, 5, num_deterministic=0) == pytest.approx(crs_variance(X, G, 5))


def test_topk_is_the_sum_of_the_largest_rows():
    X, G = heavy(20, 3, 2, seed=6)
    prods = row_products(X, G)
    top = np.argsort(prods)[::-1][:5]
    expected = sum(np.outer(G[i], X[i]) for i in top)
    np.testing.assert_allclose(topk_matmul_grad(X, G, 5), expected, rtol=1e-12)
    np.testing.assert_allclose(topk_matmul_grad(X, G, 20), G.T @ X, rtol=1e-12)


def test_winners_all_mass_is_exact():
    # when the winners hold all the mass the stochastic part is empty and the estimate is exact
    X, G = heavy(10, 3, 2, seed=8)
    G[4:] = 0.0
    out = wta_crs_matmul_grad(X, G, 6, num_deterministic=4, rng=0)
    np.testing.assert_allclose(out, G.T @ X, atol=1e-12)
    assert wta_crs_variance(X, G, 6, num_deterministic=4) == pytest.approx(0.0, abs=1e-12)


def test_all_zero_gradient_gives_zero():
    X, _ = heavy(10, 3, 2, seed=8)
    G = np.zeros((10, 2))
    assert np.all(crs_matmul_grad(X, G, 3, rng=0) == 0)
    assert np.all(wta_crs_matmul_grad(X, G, 3, rng=0) == 0)


def test_seeded_draws_repeat():
    X, G = heavy(30, 3, 2, seed=4)
    np.testing.assert_array_equal(
        wta_crs_matmul_grad(X, G, 7, rng=3), wta_crs_matmul_grad(X, G, 7, rng=3)
    )


def brute_force_c(p, k):
    p = sorted((float(v) / sum(p) for v in p), reverse=True)
    best, best_c = None, None
    for c in range(0, min(k - 1, len(p)) + 1):
        score = max(1.0 - sum(p[:c]), 0.0) / (k - c)
        if best is None or score < best - 1e-15:
            best, best_c = score, c
    return best_c


@settings(max_examples=60, deadline=None)
@given(
    p=st.lists(st.floats(0.0, 100.0), min_size=1, max_size=30).filter(lambda v: sum(v) > 1e-3),
    k=st.integers(1, 40),
)
def test_choose_num_deterministic_matches_brute_force(p, k):
    c = choose_num_deterministic(np.array(p), k)
    p_sorted = np.sort(np.array(p) / np.sum(p))[::-1]

    def score(c):
        return max(1 - p_sorted[:c].sum(), 0.0) / (k - c)

    assert 0 <= c <= min(k - 1, len(p))
    assert score(c) <= min(score(j) for j in range(min(k - 1, len(p)) + 1)) + 1e-12
    assert c == brute_force_c(p, k) or abs(score(c) - score(brute_force_c(p, k))) < 1e-12


def test_choose_num_deterministic_examples():
    assert choose_num_deterministic(np.ones(100), 10) == 0  # flat p: plain CRS
    assert choose_num_deterministic([0.9, 0.05, 0.05], 2) == 1
    assert choose_num_deterministic([5.0, 1.0], 1) == 0  # k = 1: c < k
