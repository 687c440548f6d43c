"""Regression tests of the defects of issue 10."""

import numpy as np
import pytest
from dp_robust import DirichletProcessPosterior, DPRobustLinearRegression, SmoothAmbiguityRisk

from papershelf_harness.testing import assert_rejects


def _nan_prior(rng, size):
    return np.full((size, 4), np.nan)


def test_nan_prior_sampler_is_a_value_error_naming_prior():
    # 0.1 returned coef_ = [0, 0, 0]: the NaN atoms made every risk NaN and L-BFGS stopped at 0
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 3))
    y = X @ [1.0, -1.0, 0.5]
    est = DPRobustLinearRegression(prior=_nan_prior, M=10, T=20, random_state=0)
    assert_rejects(ValueError, "prior", est.fit, X, y)


def test_nan_base_sampler_is_a_value_error_naming_base_sampler():
    data = np.ones((5, 4))
    post = DirichletProcessPosterior(data, 1.0, _nan_prior, rng=0)
    assert_rejects(ValueError, "base_sampler", post.sample_mdmc, 5, 50)
    risk = SmoothAmbiguityRisk("squared", base_sampler=_nan_prior, M=5, T=50, rng=0)
    assert_rejects(ValueError, "base_sampler", risk.draw, data)


@pytest.mark.parametrize("bad", [lambda rng, k: np.ones((k, 2)), lambda rng, k: "x", lambda rng: 0])
def test_prior_of_wrong_shape_or_signature_names_prior(bad):
    X = np.random.default_rng(0).normal(size=(30, 3))
    est = DPRobustLinearRegression(prior=bad, M=10, T=20, random_state=0)
    assert_rejects((TypeError, ValueError), "prior", est.fit, X, X[:, 0])
