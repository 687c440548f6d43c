"""Dependence tests against naive definitions and their false-positive rates."""

import latent_causal as lc
import numpy as np
import pytest
from scipy import stats


def _xi_naive(x, y):
    # O(n^2) definition (Chatterjee 2021) for data without ties
    n = len(x)
    ys = y[np.argsort(x, kind="stable")]
    r = np.array([np.sum(ys <= v) for v in ys])
    return 1 - 3 * np.sum(np.abs(np.diff(r))) / (n * n - 1)


def _xi_naive_ties(x, y):
    n = len(x)
    ys = y[np.argsort(x, kind="stable")]
    r = np.array([np.sum(ys <= v) for v in ys])
    l_ = np.array([np.sum(ys >= v) for v in ys])
    return 1 - n * np.sum(np.abs(np.diff(r))) / (2 * np.sum(l_ * (n - l_)))


@pytest.mark.parametrize("seed", range(5))
def test_xi_matches_the_naive_definition(seed):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(200)
    y = np.sin(3 * x) + 0.3 * rng.standard_normal(200)
    assert lc.chatterjee_xi(x, y) == pytest.approx(_xi_naive(x, y), abs=1e-12)
    yt = np.round(y, 1)  # ties in y only
    assert lc.chatterjee_xi(x, yt) == pytest.approx(_xi_naive_ties(x, yt), abs=1e-12)


def test_xi_matches_scipy_when_available():
    if not hasattr(stats, "chatterjeexi"):
        pytest.skip("scipy < 1.15 has no chatterjeexi")
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal(300), rng.standard_normal(300)
    y = y + x**2
    assert lc.chatterjee_xi(x, y) == pytest.approx(stats.chatterjeexi(x, y).statistic, abs=1e-12)


def test_xi_is_one_for_a_function_and_near_zero_for_independence():
    rng = np.random.default_rng(1)
    x = rng.standard_normal(2000)
    assert lc.chatterjee_xi(x, x**2) > 0.99
    assert abs(lc.chatterjee_xi(x, rng.standard_normal(2000))) < 4 * np.sqrt(0.4 / 2000)


@pytest.mark.parametrize("test", ["pearson", "xi"])
def test_bonferroni_false_positive_rate(test):
    # independent columns: the expected number of false edges is alpha (alpha / P per pair,
    # P pairs). Over R repetitions, the count of false edges is ~ Binomial(R*P, alpha/P):
    # mean R*alpha, sd ~ sqrt(R*alpha). Without Bonferroni the mean would be R*P*alpha.
    rng = np.random.default_rng(0)
    R, n, alpha = 100, 5, 0.3
    edges = sum(
        lc.estimate_udg(rng.standard_normal((100, n)), test=test, alpha=alpha).sum() // 2
        for _ in range(R)
    )
    mean = R * alpha
    assert abs(edges - mean) < 4 * np.sqrt(mean) + 3, edges


def test_hsic_detects_a_nonmonotone_dependence_pearson_misses():
    rng = np.random.default_rng(2)
    x = rng.standard_normal(300)
    y = x**2 + 0.2 * rng.standard_normal(300)
    X = np.column_stack([x, y])
    assert lc.estimate_udg(X, test="hsic")[0, 1]
    assert lc.estimate_udg(X, test="xi")[0, 1]
    assert not lc.estimate_udg(X, test="pearson")[0, 1]


def test_hsic_null_pvalues_are_roughly_uniform():
    rng = np.random.default_rng(3)
    p = np.array(
        [lc.hsic_pvalue(rng.standard_normal(100), rng.standard_normal(100)) for _ in range(100)]
    )
    assert 0.02 <= np.mean(p < 0.1) <= 0.2  # binomial(100, 0.1): 4 sd around 10


def test_shift_set_detects_shifted_columns_only():
    rng = np.random.default_rng(4)
    a = rng.standard_normal((1000, 4))
    b = rng.standard_normal((1000, 4))
    b[:, 2] += 0.5
    assert lc.estimate_shift_set(a, b) == frozenset({2})
