"""The permutation test: exact enumeration vs scipy, calibration under H0, power, reproducibility."""

import numpy as np
import pytest
from rearrange_corr import rearrangement_corr, rearrangement_corr_test
from scipy import stats


def _scipy_reference(x, y, alternative, n_resamples, rng=None):
    return stats.permutation_test(
        (y,),  # one sample + "pairings": permute y against fixed x (n! arrangements)
        lambda b: rearrangement_corr(x, b),
        permutation_type="pairings",
        alternative=alternative,
        n_resamples=n_resamples,
        vectorized=False,
        rng=rng,
    )


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_exact_test_matches_scipy_permutation_test(alternative):
    rng = np.random.default_rng(0)
    x, y = rng.normal(size=6), rng.normal(size=6)
    ours = rearrangement_corr_test(x, y, alternative=alternative)
    ref = _scipy_reference(x, y, alternative, n_resamples=np.inf)
    assert ours.exact
    assert ours.statistic == pytest.approx(ref.statistic, abs=1e-12)
    assert ours.pvalue == pytest.approx(ref.pvalue, abs=1e-12)
    np.testing.assert_allclose(
        np.sort(ours.null_distribution), np.sort(ref.null_distribution), atol=1e-12
    )


def test_exact_small_example_by_hand():
    # n = 4, y = x: only the identity pairing reaches r# = 1, so p_greater = 1/24
    res = rearrangement_corr_test([1, 2, 3, 4], [1, 2, 3, 4], alternative="greater")
    assert res.statistic == 1.0 and res.pvalue == pytest.approx(1 / 24)
    assert res.null_distribution.size == 24


def test_monte_carlo_pvalue_close_to_scipy():
    rng = np.random.default_rng(1)
    x = rng.normal(size=40)
    y = 0.3 * x + rng.normal(size=40)
    ours = rearrangement_corr_test(x, y, n_permutations=4000, rng=2)
    ref = _scipy_reference(x, y, "two-sided", n_resamples=4000, rng=3)
    # two independent MC estimates of the same p: 4 binomial s.d. of the difference
    sd = np.sqrt(2 * ref.pvalue * (1 - ref.pvalue) / 4000) * 2  # x2: two-sided doubles
    assert abs(ours.pvalue - ref.pvalue) <= 4 * sd + 1e-3


def test_pvalue_uniform_under_independence():
    rng = np.random.default_rng(3)
    reps, alpha = 300, 0.1
    rejections = sum(
        rearrangement_corr_test(
            rng.normal(size=25), rng.exponential(size=25), n_permutations=199, rng=rng
        ).pvalue
        <= alpha
        for _ in range(reps)
    )
    slack = 3 * np.sqrt(alpha * (1 - alpha) / reps)  # 3 binomial s.d. of the rejection rate
    assert abs(rejections / reps - alpha) <= slack


def test_power_against_monotone_alternative():
    rng = np.random.default_rng(4)
    x = rng.uniform(size=60)
    y = np.exp(4 * x) + rng.normal(scale=20, size=60)
    res = rearrangement_corr_test(x, y, n_permutations=999, rng=0)
    assert res.pvalue <= 0.01
    assert rearrangement_corr_test(x, y, alternative="less", n_permutations=999, rng=0).pvalue > 0.9


def test_reproducible_and_unpackable():
    rng = np.random.default_rng(5)
    x, y = rng.normal(size=30), rng.normal(size=30)
    a = rearrangement_corr_test(x, y, n_permutations=500, rng=7)
    b = rearrangement_corr_test(x, y, n_permutations=500, rng=np.random.default_rng(7))
    assert a.pvalue == b.pvalue
    stat, p = a
    assert stat == rearrangement_corr(x, y) and p == a.pvalue
    assert 1 / 501 <= p <= 1.0
    assert a.null_distribution.shape == (500,)
