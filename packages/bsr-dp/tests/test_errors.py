"""MaxSE / MeanSE against dense algebra and the brief's reference values; the banded optimizer."""

import numpy as np
import pytest
from bsr_dp import (
    bsr_coefs,
    dpsgd_coefs,
    max_se,
    mean_se,
    minsep_sensitivity,
    optimize_banded_toeplitz,
    toeplitz_matrix,
    workload_momentum,
)
from bsr_dp.baselines import _loss_and_grad


def dense_errors(c, a, b):
    n = a.size
    B = toeplitz_matrix(a) @ np.linalg.inv(toeplitz_matrix(c, n))
    sens = minsep_sensitivity(c, n, b)
    rows = np.linalg.norm(B, axis=1)
    return sens * rows.max(), sens * np.linalg.norm(B) / np.sqrt(n)


@pytest.mark.parametrize("p", [1, 4, 20, 60])
def test_errors_match_dense(p):
    n, b = 60, 20
    a = workload_momentum(n, momentum=0.9, weight_decay=0.99)
    c = bsr_coefs(n, p, momentum=0.9, weight_decay=0.99)
    mx, mn = dense_errors(c, a, b)
    assert max_se(c, a, b) == pytest.approx(mx, rel=1e-10)
    assert mean_se(c, a, b) == pytest.approx(mn, rel=1e-10)


@pytest.mark.parametrize(
    ("beta", "alpha", "p", "maxse", "meanse"),
    [
        (0.9, 1.0, None, 993.1, 697.8),  # DP-SGD
        (0.9, 1.0, 1000, 131.3, 121.8),  # full square root
        (0.9, 1.0, 10, 317.7, 223.8),
        (0.9, 1.0, 100, 120.0, 88.7),
        (0.0, 1.0, None, 100.0, 70.7),
        (0.0, 1.0, 1000, 16.5, 15.7),
        (0.0, 1.0, 100, 15.7, 12.1),
        (0.9, 0.9999, 100, 114.6, 86.2),
    ],
)
def test_reference_values_n1000_b100(beta, alpha, p, maxse, meanse):
    n, b = 1000, 100
    a = workload_momentum(n, momentum=beta, weight_decay=alpha)
    c = dpsgd_coefs() if p is None else bsr_coefs(n, p, momentum=beta, weight_decay=alpha)
    assert max_se(c, a, b) == pytest.approx(maxse, abs=0.06)
    assert mean_se(c, a, b) == pytest.approx(meanse, abs=0.06)


def test_bsr_beats_dpsgd_and_full_root_multi_epoch():
    n, b = 1000, 100
    a = workload_momentum(n, momentum=0.9)
    bsr = bsr_coefs(n, b, momentum=0.9)
    assert mean_se(dpsgd_coefs(), a, b) >= 5 * mean_se(bsr, a, b)
    assert mean_se(bsr_coefs(n, n, momentum=0.9), a, b) > mean_se(bsr, a, b)
    assert max_se(bsr_coefs(n, n, momentum=0.9), a, b) > max_se(bsr, a, b)


def test_loss_gradient_matches_finite_differences():
    n, b, k = 80, 3, 10
    a = workload_momentum(n, momentum=0.9)
    c = np.concatenate([[1.0], np.random.default_rng(0).uniform(0, 0.5, 7)])
    for w in (np.ones(n), (n - np.arange(n)) / n):
        _, g = _loss_and_grad(c, a, w, n, b, k)
        eps = 1e-6
        num = [
            (
                _loss_and_grad(c + eps * e, a, w, n, b, k)[0]
                - _loss_and_grad(c - eps * e, a, w, n, b, k)[0]
            )
            / (2 * eps)
            for e in np.eye(c.size)
        ]
        np.testing.assert_allclose(g, num, atol=1e-7)


@pytest.mark.parametrize("objective", ["mean", "max"])
def test_optimizer_improves_and_bsr_is_near_optimal(objective):
    n, b = 500, 50
    a = workload_momentum(n, momentum=0.9)
    se = mean_se if objective == "mean" else max_se
    opt = optimize_banded_toeplitz(n, b, b, objective=objective, momentum=0.9)
    bsr = bsr_coefs(n, b, momentum=0.9)
    assert opt[0] == 1.0 and opt.shape == (b,)
    ratio = se(bsr, a, b) / se(opt, a, b)
    assert 1.0 <= ratio <= 1.05  # optimum is no worse than BSR; BSR within 5 %
    # from a poor start (DP-SGD) the optimizer reaches the same optimum
    opt2 = optimize_banded_toeplitz(
        n, b, b, objective=objective, momentum=0.9, init=np.eye(1, b)[0]
    )
    assert se(opt2, a, b) == pytest.approx(se(opt, a, b), rel=1e-4)


def test_optimizer_wider_than_minsep_stays_monotone():
    n, b, p = 120, 10, 30
    opt = optimize_banded_toeplitz(n, p, b, momentum=0.9)
    assert np.all(opt >= 0) and np.all(np.diff(opt) <= 1e-12)
    a = workload_momentum(n, momentum=0.9)
    # Theorem 2 is exact for monotone coefficients; the optimum beats the BSR start
    assert mean_se(opt, a, b) <= mean_se(bsr_coefs(n, p, momentum=0.9), a, b) * (1 + 1e-9)
