"""bootstrap against the closed-form binomial standard error and a naive index bootstrap."""

import math

import numpy as np
import pytest
from scifibench import bootstrap


def _rel_tol(n_boot, sigmas=5.0):
    # the sample SD of B draws has relative standard deviation ~ 1 / sqrt(2 (B - 1))
    return sigmas / math.sqrt(2 * (n_boot - 1))


@pytest.mark.parametrize(("k", "n"), [(280, 500), (262, 500), (50, 100), (9, 10)])
def test_se_matches_binomial_closed_form(k, n):
    correct = np.r_[np.ones(k, bool), np.zeros(n - k, bool)]
    mean, se, (lo, hi) = bootstrap(correct, rng=0)
    p = k / n
    closed = math.sqrt(p * (1 - p) / n)
    assert mean == p
    assert abs(se - closed) <= _rel_tol(100_000) * closed
    assert lo < p < hi


def test_paper_setting_280_of_500_gives_0_0222():
    mean, se, (lo, hi) = bootstrap([1] * 280 + [0] * 220, rng=1)
    assert mean == 0.56
    assert abs(se - 0.0222) < 0.0222 * 0.05  # the brief's "within 5% relative"
    # the 95% percentile interval is about mean +- 1.96 se (normal approximation at n=500)
    assert abs((hi - lo) / 2 - 1.96 * se) < 0.004


def test_matches_a_naive_index_bootstrap():
    rng = np.random.default_rng(5)
    correct = rng.random(200) < 0.7
    b = 4000
    idx = rng.integers(0, correct.size, size=(b, correct.size))
    naive = correct[idx].mean(axis=1)
    _, se, (lo, hi) = bootstrap(correct, n_boot=b, rng=6)
    assert abs(se - naive.std(ddof=1)) <= _rel_tol(b) * naive.std(ddof=1) * math.sqrt(2)
    assert abs(lo - np.quantile(naive, 0.025)) <= 0.02
    assert abs(hi - np.quantile(naive, 0.975)) <= 0.02


def test_degenerate_and_seeded():
    assert bootstrap(np.ones(7, bool), n_boot=10, rng=0) == (1.0, 0.0, (1.0, 1.0))
    assert bootstrap([0, 1, 1], n_boot=50, rng=3) == bootstrap([0, 1, 1], n_boot=50, rng=3)


def test_non_binary_scores_are_rejected():
    with pytest.raises(ValueError, match="correct"):
        bootstrap([0.5, 1.0, 0.0])
