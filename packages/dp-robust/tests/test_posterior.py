"""Posterior samplers against exact Dirichlet / DP moments."""

import numpy as np
import pytest
from dp_robust import (
    DirichletProcessPosterior,
    dirichlet_weights,
    dp_risk_moments,
    location_gaussian_prior,
    stick_breaking_weights,
)


def test_weights_are_probability_vectors():
    for w in (stick_breaking_weights(50, 30, 5.0, rng=0), dirichlet_weights(50, 30, 0.5, rng=0)):
        assert w.shape == (50, 30)
        assert np.all(w >= 0)
        np.testing.assert_allclose(w.sum(axis=1), 1.0, rtol=1e-12)


def test_stick_breaking_weight_means():
    # E[w_j] = (1/(1+a)) (a/(1+a))^(j-1) for j < T; leftover E = (a/(1+a))^(T-1)
    a, M, T = 4.0, 40_000, 6
    w = stick_breaking_weights(M, T, a, rng=1)
    j = np.arange(1, T)
    expect = np.append((1 / (1 + a)) * (a / (1 + a)) ** (j - 1), (a / (1 + a)) ** (T - 1))
    se = w.std(axis=0) / np.sqrt(M)
    assert np.all(np.abs(w.mean(axis=0) - expect) < 4 * se)


def test_dirichlet_weight_moments_tiny_shape():
    # Dirichlet(c, ..., c), c = a/T: mean 1/T, var (1/T)(1 - 1/T)/(a + 1); c = 0.01 is tiny
    a, T, M = 0.5, 50, 40_000
    w = dirichlet_weights(M, T, a, rng=2)
    assert np.all(np.isfinite(w))
    np.testing.assert_allclose(w.mean(), 1 / T, rtol=1e-12)  # rows sum to one exactly
    var = w.var(axis=0).mean()
    np.testing.assert_allclose(var, (1 / T) * (1 - 1 / T) / (a + 1), rtol=0.05)


def _moments_setup():
    rng = np.random.default_rng(3)
    data = rng.normal(1.0, 2.0, size=10)  # n = 10
    alpha, theta = 2.0, 0.5
    # h(xi) = (xi - theta)^2, p0 = N(0, 1): E h = 1 + theta^2, E h^2 = 3 + 6 theta^2 + theta^4
    mean, var = dp_risk_moments(
        (data - theta) ** 2, 1 + theta**2, 3 + 6 * theta**2 + theta**4, alpha=alpha
    )
    post = DirichletProcessPosterior(data, alpha, location_gaussian_prior(0.0), rng=4)
    return post, theta, mean, var


def _risks(w, atoms, theta):
    return np.einsum("mt,mt->m", w, (atoms[..., 0] - theta) ** 2)


def test_sbmc_matches_dp_moments():
    post, theta, mean, var = _moments_setup()
    a = post.concentration  # 12
    T = 150
    assert (a / (a + 1)) ** (T - 1) < 1e-3  # expected leftover stick mass is negligible
    R = _risks(*post.sample_sbmc(20_000, T), theta)
    assert abs(R.mean() - mean) < 3 * R.std() / np.sqrt(R.size)
    assert abs(R.var() / var - 1) < 0.10


def test_mdmc_matches_finite_T_variance():
    post, theta, mean, var = _moments_setup()
    a, T = post.concentration, 20
    R = _risks(*post.sample_mdmc(20_000, T), theta)
    assert abs(R.mean() - mean) < 3 * R.std() / np.sqrt(R.size)
    # finite-T MDMC: Var = Var_G h (1 + a/T) / (a + 1), i.e. var * (1 + a/T)
    assert abs(R.var() / (var * (1 + a / T)) - 1) < 0.10


def test_atoms_mix_data_and_prior_in_right_proportion():
    data = np.full(8, 100.0)  # prior draws are near 0, data atoms are exactly 100
    post = DirichletProcessPosterior(data, 2.0, location_gaussian_prior(0.0), rng=5)
    atoms = post.sample_atoms(200, 100)
    frac = np.mean(atoms != 100.0)
    p = 2.0 / 10.0
    assert abs(frac - p) < 4 * np.sqrt(p * (1 - p) / atoms.size)


def test_posterior_validation():
    s = location_gaussian_prior(0.0)
    with pytest.raises(ValueError, match="alpha"):
        DirichletProcessPosterior(np.ones(3), 0.0, s)
    with pytest.raises(ValueError, match="finite"):
        DirichletProcessPosterior(np.array([1.0, np.nan]), 1.0, s)
    with pytest.raises(ValueError, match="empty"):
        DirichletProcessPosterior(np.ones((0, 2)), 1.0, s)
    with pytest.raises(TypeError, match="base_sampler"):
        DirichletProcessPosterior(np.ones(3), 1.0, None)
    with pytest.raises(ValueError, match="method"):
        DirichletProcessPosterior(np.ones(3), 1.0, s).sample(2, 2, method="polya")
    with pytest.raises(ValueError, match="M"):
        DirichletProcessPosterior(np.ones(3), 1.0, s).sample_mdmc(0, 2)
    with pytest.raises(ValueError, match="base_sampler"):
        DirichletProcessPosterior(np.ones((3, 2)), 50.0, s, rng=0).sample_mdmc(5, 5)
