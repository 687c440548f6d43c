"""Exact algebra: closed-form BSR coefficients against the dense matrix square root (scipy)."""

import numpy as np
import pytest
import scipy.linalg
from bsr_dp import (
    bsr_coefs,
    inverse_toeplitz_coefs,
    per_step_error,
    sqrt_toeplitz_coefs,
    toeplitz_matrix,
    workload_momentum,
)

SETTINGS = [(0.0, 1.0), (0.9, 1.0), (0.9, 0.9999), (0.99, 0.99), (0.5, 0.8)]


def dense_workload(n, beta, alpha):
    """Iterate the optimizer itself on unit gradients: column j of A = response to g_j = 1."""
    A = np.zeros((n, n))
    for j in range(n):
        m = theta = 0.0
        for t in range(n):
            m = beta * m + (1.0 if t == j else 0.0)
            theta = alpha * theta + m  # -lr dropped: A maps gradients to -(theta / lr)
            A[t, j] = theta
    return A


@pytest.mark.parametrize(("beta", "alpha"), SETTINGS)
def test_workload_matches_simulated_optimizer(beta, alpha):
    n = 30
    np.testing.assert_allclose(
        toeplitz_matrix(workload_momentum(n, momentum=beta, weight_decay=alpha)),
        dense_workload(n, beta, alpha),
        rtol=1e-13,
        atol=1e-13,
    )


@pytest.mark.parametrize(("beta", "alpha"), SETTINGS)
def test_closed_form_is_the_principal_square_root(beta, alpha):
    n = 64
    A = toeplitz_matrix(workload_momentum(n, momentum=beta, weight_decay=alpha))
    C = toeplitz_matrix(bsr_coefs(n, n, momentum=beta, weight_decay=alpha))
    np.testing.assert_allclose(C @ C, A, rtol=1e-12, atol=1e-12 * np.abs(A).max())
    root = scipy.linalg.sqrtm(A).real
    np.testing.assert_allclose(C, root, atol=1e-9 * np.abs(root).max())


@pytest.mark.parametrize(("beta", "alpha"), SETTINGS)
def test_closed_form_equals_recursion(beta, alpha):
    n = 200
    np.testing.assert_allclose(
        bsr_coefs(n, n, momentum=beta, weight_decay=alpha),
        sqrt_toeplitz_coefs(workload_momentum(n, momentum=beta, weight_decay=alpha)),
        rtol=1e-11,
        atol=1e-14,
    )


def test_prefix_sum_root_is_central_binomial():
    from math import comb

    c = bsr_coefs(30, 30)
    np.testing.assert_allclose(c, [comb(2 * k, k) / 4**k for k in range(30)], rtol=1e-14)


def test_banding_truncates_and_fft_path_agrees():
    full = bsr_coefs(
        5000, 5000, momentum=0.9, weight_decay=0.999
    )  # FFT convolution path (p > 2048)
    direct = sqrt_toeplitz_coefs(workload_momentum(3000, momentum=0.9, weight_decay=0.999))
    np.testing.assert_allclose(full[:3000], direct, rtol=1e-9, atol=1e-12)
    np.testing.assert_array_equal(
        bsr_coefs(5000, 7, momentum=0.9, weight_decay=0.999),
        bsr_coefs(5000, 2000, momentum=0.9, weight_decay=0.999)[:7],
    )
    assert bsr_coefs(10, 50).shape == (10,)


def test_inverse_and_B_is_toeplitz():
    n, p = 40, 5
    c = bsr_coefs(n, p, momentum=0.9)
    C = toeplitz_matrix(c, n)
    np.testing.assert_allclose(
        toeplitz_matrix(inverse_toeplitz_coefs(c, n)), np.linalg.inv(C), atol=1e-10
    )
    A = toeplitz_matrix(workload_momentum(n, momentum=0.9))
    B = A @ np.linalg.inv(C)
    np.testing.assert_allclose(B, toeplitz_matrix(B[:, 0]), atol=1e-9)  # lower-triangular Toeplitz
    np.testing.assert_allclose(
        per_step_error(c, workload_momentum(n, momentum=0.9)), (B**2).sum(1), rtol=1e-10
    )


def test_bsr_is_nonnegative_nonincreasing():
    for beta, alpha in SETTINGS:
        c = bsr_coefs(500, 500, momentum=beta, weight_decay=alpha)
        assert np.all(c > 0) and np.all(np.diff(c) <= 0)
