"""Simulator statistics against closed forms (fixed seeds, tolerances of 4 standard errors)."""

import numpy as np
import pytest
from scipy.integrate import solve_ivp
from wsm_tpp import simulate_hawkes, simulate_poisson


def test_homogeneous_poisson_counts():
    rate, T, n = 2.0, 10.0, 400
    counts = np.array([len(simulate_poisson(rate, T, rng=i)[0]) for i in range(n)])
    assert abs(counts.mean() - rate * T) < 4 * np.sqrt(rate * T / n)


def test_inhomogeneous_poisson_counts_and_dispersion():
    T, n = 10.0, 400
    mean = 1.5 * T - np.sin(2 * T) / 4  # int_0^T (1 + sin^2 t) dt
    rng = np.random.default_rng(0)
    counts = np.array(
        [len(simulate_poisson(lambda t: 1 + np.sin(t) ** 2, T, rng=rng)[0]) for _ in range(n)]
    )
    assert abs(counts.mean() - mean) < 4 * np.sqrt(mean / n)
    # var/mean = 1 for a Poisson count; s.e. of the sample variance ~ mean * sqrt(2/n)
    assert abs(counts.var(ddof=1) - mean) < 4 * mean * np.sqrt(2 / n)


def test_univariate_hawkes_mean_count_closed_form():
    mu, a, beta, T, n = 0.5, 0.5, 2.0, 100.0, 200
    rng = np.random.default_rng(1)
    counts = np.array([len(simulate_hawkes(mu, a, beta, T, rng=rng)[0]) for _ in range(n)])
    c = beta * (1 - a)
    # E N(T) from m(t) = mu/(1-a) - mu a/(1-a) exp(-beta (1-a) t), started empty
    expected = mu * T / (1 - a) - mu * a / (1 - a) * (1 - np.exp(-c * T)) / c
    sd = np.sqrt(mu * T / (1 - a) ** 3)  # asymptotic Var N(T) = mu T / (1-a)^3
    assert abs(counts.mean() - expected) < 4 * sd / np.sqrt(n)
    assert counts.mean() / T == pytest.approx(mu / (1 - a), rel=0.05)  # stationary rate mu/(1-a)


def test_bivariate_hawkes_mean_counts_ode():
    mu, A, beta, T, n = np.array([0.3, 0.4]), np.array([[0.3, 0.2], [0.1, 0.4]]), 2.0, 50.0, 200
    # u = m - mu solves u' = -beta u + beta A (mu + u); N' = mu + u
    sol = solve_ivp(
        lambda t, y: np.concatenate([-beta * y[:2] + beta * A @ (mu + y[:2]), mu + y[:2]]),
        (0, T),
        np.zeros(4),
        rtol=1e-10,
        atol=1e-10,
    )
    expected = sol.y[2:, -1]
    rng = np.random.default_rng(2)
    counts = np.array(
        [np.bincount(simulate_hawkes(mu, A, beta, T, rng=rng)[1], minlength=2) for _ in range(n)]
    )
    rho = np.linalg.inv(np.eye(2) - A)
    sd = np.sqrt(np.diag(rho @ np.diag(rho @ mu) @ rho.T) * T)  # asymptotic covariance diag
    assert np.all(np.abs(counts.mean(0) - expected) < 4 * sd / np.sqrt(n))


def test_sequences_are_valid():
    t, k = simulate_hawkes([0.3, 0.4], [[0.3, 0.2], [0.1, 0.4]], 2.0, 30.0, rng=0)
    assert t.dtype == np.float64 and k.dtype == np.int64
    assert np.all(np.diff(t) > 0) and t[0] >= 0 and t[-1] <= 30.0 and set(k) <= {0, 1}


def test_explosive_hawkes_is_guarded():
    with pytest.raises(RuntimeError, match="max_events"):
        simulate_hawkes(1.0, 1.5, 2.0, 1000.0, rng=0, max_events=500)


def test_gauss_hawkes_mean_count_renewal_equation():
    """Mean intensity solves m(t) = mu + int_0^t a g(t - s) m(s) ds (discretised, dt = 0.005)."""
    mu, a, centre, sigma, T, n = 0.5, 0.6, 1.0, 0.5, 50.0, 200
    dt = 0.005
    grid = np.arange(int(T / dt)) * dt
    g = a * np.exp(-0.5 * ((grid - centre) / sigma) ** 2) / (np.sqrt(2 * np.pi) * sigma)
    lam = np.full(grid.size, mu)
    for i in range(1, grid.size):
        lam[i] = mu + dt * np.dot(g[1 : i + 1][::-1], lam[:i])
    expected = lam.sum() * dt
    rng = np.random.default_rng(3)
    counts = np.array(
        [
            len(simulate_hawkes(mu, a, centre, T, kernel="gauss", sigma=sigma, rng=rng)[0])
            for _ in range(n)
        ]
    )
    branching = a * 0.9772498680518208  # a * Phi(centre / sigma)
    sd = np.sqrt(mu * T / (1 - branching) ** 3)
    assert abs(counts.mean() - expected) < 4 * sd / np.sqrt(n)
    t, k = simulate_hawkes(
        [0.3, 0.4], [[0.3, 0.2], [0.1, 0.4]], 1.0, 20.0, kernel="gauss", sigma=0.5, rng=0
    )
    assert np.all(np.diff(t) >= 0) and t.max() <= 20.0 and set(k.tolist()) <= {0, 1}
