"""K-SEQ selection against closed forms, the exact LP, min-cut, and Monte Carlo (brief checks 1-3)."""

import math

import numpy as np
import pytest
import spectr_decode as sd
from scipy import stats
from spectr_decode.core import _kseq_select


def _pairs(rng, V, n, alpha=0.5):
    for _ in range(n):
        yield rng.dirichlet(np.full(V, alpha)), rng.dirichlet(np.full(V, alpha))


def test_check1_output_distribution_is_exactly_q_and_residual_nonnegative():
    rng = np.random.default_rng(0)
    worst = 0.0
    for V in (2, 5, 17, 50):
        for k in (1, 2, 3, 5, 8):
            for p, q in _pairs(rng, V, 6):
                rho = sd.solve_rho(p, q, k)
                assert 1.0 <= rho <= k
                out = sd.kseq_output_distribution(p, q, k)
                worst = max(worst, np.abs(out - q).max())
                # un-normalised residual of the paper's formula is >= 0 at rho*
                b = sd.beta(p, q, rho)
                raw = q - np.minimum(p, q / rho) * (1 - (1 - b) ** k) / b
                assert raw.min() >= -1e-12
                res = sd.kseq_residual(p, q, k)
                assert res.min() >= 0 and abs(res.sum() - 1) < 1e-12
    assert worst < 1e-12


def test_rho_is_the_root_and_k1_is_speculative_sampling():
    rng = np.random.default_rng(1)
    for p, q in _pairs(rng, 20, 10):
        assert sd.solve_rho(p, q, 1) == 1.0
        assert sd.kseq_acceptance(p, q, 1) == pytest.approx(
            sd.maximal_coupling_acceptance(p, q), abs=1e-14
        )
        np.testing.assert_allclose(
            sd.kseq_residual(p, q, 1), np.maximum(q - p, 0) / np.maximum(q - p, 0).sum(), atol=1e-14
        )
        for k in (2, 4, 7):
            rho = sd.solve_rho(p, q, k, tol=1e-13)
            b = sd.beta(p, q, rho)
            assert 1 - (1 - b) ** k == pytest.approx(rho * b, abs=1e-9)
    # identical distributions: nothing to correct
    p = rng.dirichlet(np.ones(6))
    assert sd.kseq_acceptance(p, p, 3) == pytest.approx(1.0)


def test_check1_monte_carlo_chi_square():
    rng = np.random.default_rng(3)
    p, q = next(_pairs(rng, 5, 1))
    k, n = 3, 20_000
    rho = sd.solve_rho(p, q, k)
    counts = np.zeros(5)
    accepted = 0
    X = rng.choice(5, size=(n, k), p=p)
    for x in X:
        y, ok = _kseq_select(x, p, q, k, rho, rng)
        counts[y] += 1
        accepted += ok
    assert stats.chisquare(counts, n * q).pvalue > 1e-3
    # acceptance rate matches the closed form within 4 standard errors
    a = sd.kseq_acceptance(p, q, k)
    assert abs(accepted / n - a) < 4 * math.sqrt(a * (1 - a) / n)


def test_public_kseq_select_with_seed():
    p, q = np.array([0.2, 0.8]), np.array([0.5, 0.5])
    tok, ok = sd.kseq_select(np.array([0, 0, 0]), p, q, rng=np.random.default_rng(0))
    assert ok and tok == 0  # q(0)/(rho p(0)) >= 1 for rho <= 2.5: always accepted
    rng = np.random.default_rng(3)
    draws = [sd.kseq_select(np.array([1]), p, q, rng=rng) for _ in range(2000)]
    # k = 1, X = 1: accepted w.p. q/p = 0.625, otherwise the residual puts all mass on token 0
    assert all(t == 0 for t, ok in draws if not ok)
    frac = np.mean([ok for _, ok in draws])
    assert abs(frac - 0.625) < 4 * math.sqrt(0.625 * 0.375 / 2000)


def test_check2_guarantee_against_lp_and_mincut():
    rng = np.random.default_rng(4)
    worst = 1.0
    for V in (3, 4, 5):
        for k in (2, 3):
            for p, q in _pairs(rng, V, 15):
                lp = sd.optimal_acceptance_lp(p, q, k)
                mc = sd.optimal_acceptance_mincut(p, q, k)
                assert lp == pytest.approx(mc, abs=1e-7)  # two independent exact solvers
                ks = sd.kseq_acceptance(p, q, k)
                ub = sd.acceptance_upper_bound(p, q, k)
                assert ks <= lp + 1e-7
                assert ks >= (1 - 1 / math.e) * lp - 1e-9
                assert lp <= ub + 1e-7
                assert lp >= sd.maximal_coupling_acceptance(p, q) - 1e-7
                worst = min(worst, ks / lp)
    assert worst < 1.0  # K-SEQ is not always optimal: the comparison is informative


def test_lp_k1_is_maximal_coupling_and_refuses_large_programs():
    rng = np.random.default_rng(5)
    p, q = next(_pairs(rng, 6, 1))
    assert sd.optimal_acceptance_lp(p, q, 1) == pytest.approx(np.minimum(p, q).sum(), abs=1e-9)
    with pytest.raises(ValueError, match="max_variables"):
        sd.optimal_acceptance_lp(np.full(50, 0.02), np.full(50, 0.02), 4)
    with pytest.raises(ValueError, match="max_vocab"):
        sd.optimal_acceptance_mincut(np.full(50, 0.02), np.full(50, 0.02), 2)


def test_check3_more_drafts_help():
    rng = np.random.default_rng(6)
    for p, q in _pairs(rng, 5, 20):
        acc = [sd.kseq_acceptance(p, q, k) for k in range(1, 9)]
        assert np.all(np.diff(acc) >= -1e-10)
        assert acc[0] == pytest.approx(np.minimum(p, q).sum())
        if not np.allclose(p, q):
            assert acc[2] > acc[0]


def test_upper_bound_closed_form():
    p, q = np.array([0.5, 0.5]), np.array([0.9, 0.1])
    # y=0: min(0.9, 1-0.25) = 0.75, y=1: min(0.1, 0.75) = 0.1
    assert sd.acceptance_upper_bound(p, q, 2) == pytest.approx(0.85)
    assert sd.optimal_acceptance_lp(p, q, 2) == pytest.approx(0.85, abs=1e-9)


@pytest.mark.parametrize(
    ("p", "q", "exc", "match"),
    [
        ([0.5, 0.5], [1.0], ValueError, "must match"),
        ([0.5, 0.6], [0.5, 0.5], ValueError, "sum to 1"),
        ([np.nan, 1.0], [0.5, 0.5], ValueError, "NaN"),
        ([-0.5, 1.5], [0.5, 0.5], ValueError, "non-negative"),
        ([], [], ValueError, "empty"),
        ([[0.5, 0.5]], [[0.5, 0.5]], ValueError, "1-d"),
        (["a", "b"], [0.5, 0.5], TypeError, "real numbers"),
    ],
)
def test_bad_distributions(p, q, exc, match):
    with pytest.raises(exc, match=match):
        sd.kseq_acceptance(p, q, 2)


def test_bad_parameters():
    p = q = [0.5, 0.5]
    for bad_k in (0, -1):
        with pytest.raises(ValueError, match="k"):
            sd.solve_rho(p, q, bad_k)
    for bad_k in (1.5, True):
        with pytest.raises(TypeError, match="k"):
            sd.solve_rho(p, q, bad_k)
    with pytest.raises(ValueError, match="rho"):
        sd.beta(p, q, 0.5)
    with pytest.raises(ValueError, match="rho"):
        sd.kseq_residual(p, q, 2, rho=3.0)
    with pytest.raises(ValueError, match="draft_tokens"):
        sd.kseq_select([5], p, q, rng=0)
    with pytest.raises(TypeError, match="draft_tokens"):
        sd.kseq_select([0.5], p, q, rng=0)
    with pytest.raises(ValueError, match="draft_tokens"):
        sd.kseq_select([], p, q, rng=0)
    with pytest.raises(ValueError, match="tol"):
        sd.solve_rho(p, q, 2, tol=0)


def test_upper_bound_one_hot_draft_no_warning():
    # regression: p(y) = 1 took log1p(-1) and emitted a divide-by-zero RuntimeWarning
    import warnings

    p, q = np.array([0.0, 1.0, 0.0]), np.array([0.2, 0.5, 0.3])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert sd.acceptance_upper_bound(p, q, 3) == pytest.approx(0.5)
