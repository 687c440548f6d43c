"""Streaming noise equals the dense product C^{-1} Z."""

import numpy as np
import pytest
import scipy.linalg
from bsr_dp import CorrelatedNoise, bsr_coefs, toeplitz_matrix


@pytest.mark.parametrize("p", [1, 2, 7, 50])
def test_streaming_equals_dense_solve(p):
    n, shape, sigma = 50, (3, 2), 1.7
    c = bsr_coefs(n, p, momentum=0.9, weight_decay=0.999)
    U = CorrelatedNoise(c, shape, sigma=sigma, rng=123).sample(n)  # (n, 3, 2)
    rng = np.random.default_rng(123)
    Z = np.stack([sigma * rng.standard_normal(shape) for _ in range(n)]).reshape(n, -1)
    dense = scipy.linalg.solve_triangular(toeplitz_matrix(c, n), Z, lower=True).reshape(n, *shape)
    np.testing.assert_allclose(U, dense, rtol=1e-10, atol=1e-10)


def test_state_size_and_covariance():
    # Cov of the stream = sigma^2 C^{-1} C^{-T}: check the lag-0 and lag-1 entries statistically
    c = bsr_coefs(100, 3)
    gen = CorrelatedNoise(c, (20000,), sigma=1.0, rng=0)
    assert gen.state_size == 2
    U = gen.sample(4)  # (4, 20000): 20000 independent streams
    Cinv = np.linalg.inv(toeplitz_matrix(c, 4))
    cov = Cinv @ Cinv.T
    emp = U @ U.T / U.shape[1]
    # standard error of a sample second moment <= sqrt(2) * var / sqrt(N); 5 sigma tolerance
    np.testing.assert_allclose(emp, cov, atol=5 * np.sqrt(2) * cov.max() / np.sqrt(20000))


def test_iterator_and_dtype():
    gen = CorrelatedNoise([1.0, 0.5], 4, rng=1, dtype=np.float32)
    first = next(iter(gen))
    assert first.shape == (4,) and first.dtype == np.float32
    assert gen.sample(0).shape == (0, 4)
