"""Property tests over random (momentum, weight decay, n, bandwidth)."""

import numpy as np
from bsr_dp import (
    brute_force_sensitivity,
    bsr_coefs,
    minsep_sensitivity,
    toeplitz_matrix,
    workload_momentum,
)
from hypothesis import given, settings
from hypothesis import strategies as st

betas = st.floats(0.0, 0.99)
alphas = st.floats(0.5, 1.0, exclude_min=True)


@settings(max_examples=60, deadline=None)
@given(n=st.integers(1, 300), beta=betas, alpha=alphas)
def test_full_root_squares_to_workload(n, beta, alpha):
    c = bsr_coefs(n, n, momentum=beta, weight_decay=alpha)
    a = workload_momentum(n, momentum=beta, weight_decay=alpha)
    np.testing.assert_allclose(np.convolve(c, c)[:n], a, rtol=1e-10, atol=1e-12)
    assert np.all(c > 0) and np.all(np.diff(c) <= 1e-15)


@settings(max_examples=30, deadline=None)
@given(n=st.integers(2, 13), b=st.integers(1, 6), p=st.integers(1, 13), beta=betas, alpha=alphas)
def test_sensitivity_formula_matches_enumeration(n, b, p, beta, alpha):
    c = bsr_coefs(n, p, momentum=beta, weight_decay=alpha)
    brute = brute_force_sensitivity(toeplitz_matrix(c, n), b)
    assert np.isclose(minsep_sensitivity(c, n, b), brute, rtol=1e-12)
