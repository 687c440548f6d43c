"""Property tests: valid weights for any concentration, equivariance, and SBMC's neutral limit."""

import numpy as np
from dp_robust import (
    DPRobustLinearRegression,
    DPRobustMean,
    dirichlet_weights,
    neutral_closed_form,
    stick_breaking_weights,
)
from hypothesis import given, settings
from hypothesis import strategies as st


@settings(derandomize=True, deadline=None, max_examples=40)
@given(
    M=st.integers(1, 5), T=st.integers(1, 60), a=st.floats(1e-3, 1e4), seed=st.integers(0, 2**16)
)
def test_weights_valid_for_any_concentration(M, T, a, seed):
    for w in (stick_breaking_weights(M, T, a, rng=seed), dirichlet_weights(M, T, a, rng=seed)):
        assert w.shape == (M, T)
        assert np.all(np.isfinite(w)) and np.all(w >= 0)
        np.testing.assert_allclose(w.sum(axis=1), 1.0, rtol=1e-10)


@settings(derandomize=True, deadline=None, max_examples=10)
@given(shift=st.floats(-50, 50), beta=st.sampled_from([0.5, 2.0, 100.0]))
def test_mean_is_translation_equivariant(shift, beta):
    # shifting the data and p0 by c shifts every atom by c (same draws): the estimate shifts by c
    x = np.random.default_rng(0).normal(size=(20, 2))
    kw = dict(alpha=2.0, beta=beta, M=20, T=30, random_state=3)
    base = DPRobustMean(prior_mean=1.0, **kw).fit(x).location_
    moved = DPRobustMean(prior_mean=1.0 + shift, **kw).fit(x + shift).location_
    np.testing.assert_allclose(moved, base + shift, atol=1e-5)


def test_sbmc_neutral_is_close_to_ridge():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 3))
    y = X @ np.array([1.0, -1.0, 0.5]) + rng.normal(size=30)
    ref = neutral_closed_form(X, y, alpha=2.0)
    est = DPRobustLinearRegression(
        alpha=2.0, phi="identity", method="sbmc", M=300, T=300, fit_intercept=False, random_state=0
    ).fit(X, y)
    assert np.linalg.norm(est.coef_ - ref) < 0.05 * np.linalg.norm(ref)
