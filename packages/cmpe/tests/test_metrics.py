"""C2ST and SBC against samples whose answer is known."""

import cmpe
import numpy as np
import pytest


def test_c2st_identical_distribution_is_chance_and_shifted_is_separable():
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=(300, 2)), rng.normal(size=(300, 2))
    same = cmpe.c2st(a, b, folds=2)
    # accuracy of a chance classifier over 600 points: s.d. ~ 0.5/sqrt(600) ~ 0.02
    assert abs(same - 0.5) < 0.07
    far = cmpe.c2st(a, b + 4.0, folds=2)
    # N(0,1) vs N(4,1) per coordinate: Bayes accuracy Phi(2 sqrt 2) ~ 0.998
    assert far > 0.97
    mid = cmpe.c2st(a, b + [1.0, 0.0], folds=2)
    # Bayes accuracy Phi(0.5) ~ 0.69
    assert 0.6 < mid < 0.76


def test_sbc_ranks_counts_draws_below_truth():
    theta = np.array([[0.0, 1.0]])
    samples = np.array([[[-1.0, 0.0], [0.5, 2.0], [-0.5, 0.5]]])
    np.testing.assert_array_equal(cmpe.sbc_ranks(theta, samples), [[2, 2]])


def test_sbc_exact_posterior_is_uniform_and_biased_one_is_not():
    rng = np.random.default_rng(0)
    theta, x = cmpe.gaussian_conjugate(500, rng=rng)
    exact = cmpe.gaussian_conjugate_reference(x, 99, rng=rng)
    ranks = cmpe.sbc_ranks(theta, exact)
    assert ranks.shape == (500, 2) and ranks.min() >= 0 and ranks.max() <= 99
    assert np.all(cmpe.sbc_chi2(ranks, 99, bins=10) > 1e-3)
    overconfident = exact.mean(1, keepdims=True) + 0.3 * (exact - exact.mean(1, keepdims=True))
    assert np.all(cmpe.sbc_chi2(cmpe.sbc_ranks(theta, overconfident), 99, bins=10) < 1e-6)


def test_sbc_chi2_rejects_bins_that_do_not_divide():
    with pytest.raises(ValueError, match="bins"):
        cmpe.sbc_chi2(np.zeros((5, 1), dtype=int), 100, bins=10)
