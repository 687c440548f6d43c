"""Theorem 2 sensitivity against brute-force enumeration of participation patterns."""

import numpy as np
import pytest
from bsr_dp import brute_force_sensitivity, bsr_coefs, minsep_sensitivity, toeplitz_matrix


@pytest.mark.parametrize("p", [1, 2, 3, 5, 12])
@pytest.mark.parametrize(("beta", "alpha"), [(0.0, 1.0), (0.9, 1.0), (0.9, 0.95)])
def test_formula_equals_brute_force(p, beta, alpha):
    n, b = 12, 3
    c = bsr_coefs(n, p, momentum=beta, weight_decay=alpha)
    brute = brute_force_sensitivity(toeplitz_matrix(c, n), b)
    assert minsep_sensitivity(c, n, b) == pytest.approx(brute, rel=1e-12)


@pytest.mark.parametrize("k", [1, 2, 3])
def test_max_participations(k):
    n, b = 13, 4
    c = bsr_coefs(n, 6, momentum=0.9)
    assert minsep_sensitivity(c, n, b, max_participations=k) == pytest.approx(
        brute_force_sensitivity(toeplitz_matrix(c, n), b, max_participations=k), rel=1e-12
    )


def test_reference_values_prefix_sum():
    # n=12, b=3: independently computed by enumeration (p = 2, 3, 5, 12)
    expected = [2.2360679775, 2.3584952830, 2.9622770716, 3.6582832593]
    got = [minsep_sensitivity(bsr_coefs(12, p), 12, 3) for p in (2, 3, 5, 12)]
    np.testing.assert_allclose(got, expected, rtol=1e-9)


def test_dpsgd_is_sqrt_k():
    assert minsep_sensitivity([1.0], 1000, 100) == pytest.approx(np.sqrt(10))
    assert minsep_sensitivity([1.0], 1001, 100) == pytest.approx(np.sqrt(11))


def test_signed_band_within_minsep_is_exact():
    c = np.array([1.0, -0.7, 0.4])
    n, b = 10, 3
    assert minsep_sensitivity(c, n, b) == pytest.approx(
        brute_force_sensitivity(toeplitz_matrix(c, n), b), rel=1e-12
    )


def test_non_monotone_gives_upper_bound_with_warning():
    rng = np.random.default_rng(0)
    n, b = 11, 2
    for _ in range(5):
        c = np.concatenate([[1.0], rng.uniform(-0.6, 0.9, 5)])
        with pytest.warns(UserWarning, match="upper bound"):
            bound = minsep_sensitivity(c, n, b)
        assert bound >= brute_force_sensitivity(toeplitz_matrix(c, n), b) - 1e-12
