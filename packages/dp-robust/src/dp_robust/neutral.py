"""Exact ambiguity-neutral solutions (phi = identity), Sec. 3 of Bariletto & Ho (NeurIPS 2024).

https://papers.nips.cc/paper_files/paper/2024/hash/402542c2341e5d2eadc1dd0891275901-Abstract-Conference.html

For phi(t) = t the criterion is the posterior-mean risk, which the DP gives in closed form:

    E_{Q_n} R_p(theta) = alpha/(alpha + n) R_{p0}(theta) + n/(alpha + n) R_emp(theta).

* Squared loss, p0 = {x ~ N(0, s^2 I), y ~ N(0, tau^2)}: R_{p0} = tau^2 + s^2 ||theta||^2, so the
  minimiser is ridge regression with penalty ``alpha * s^2`` on the residual sum of squares.
* Squared location loss, p0 = N(mu0, s^2 I): the minimiser is ``(sum_i x_i + alpha mu0)/(n + alpha)``.

These are the references the Monte Carlo criterion is tested against.
"""

from __future__ import annotations

import numpy as np

__all__ = ["neutral_closed_form", "neutral_mean_closed_form", "dp_risk_moments"]


def _as_2d(X, name):
    X = np.asarray(X, dtype=float)
    if X.ndim != 2:
        raise ValueError(f"{name} must be 2-D (n_samples, n_features), got shape {X.shape}")
    if X.shape[0] == 0:
        raise ValueError(f"{name} is empty")
    if not np.all(np.isfinite(X)):
        raise ValueError(f"{name} contains NaN or inf")
    return X


def neutral_closed_form(X, y, *, alpha: float = 1.0, prior_scale: float = 1.0) -> np.ndarray:
    """Exact ambiguity-neutral minimiser for squared loss and the Gaussian p0: ridge regression.

    ``argmin_theta ||y - X theta||^2 + alpha * prior_scale^2 ||theta||^2`` (no intercept), equal to
    ``sklearn.linear_model.Ridge(alpha=alpha * prior_scale**2, fit_intercept=False)``.

    Args:
        X: (n, d) covariates. y: (n,) responses.
        alpha: DP prior concentration (> 0). prior_scale: sd ``s`` of the p0 covariates.

    Returns:
        (d,) coefficients.

    >>> neutral_closed_form(np.eye(2), np.array([1.0, 2.0]), alpha=1.0)
    array([0.5, 1. ])
    """
    X = _as_2d(X, "X")
    y = np.asarray(y, dtype=float).ravel()
    if y.shape[0] != X.shape[0]:
        raise ValueError(f"y has {y.shape[0]} entries, X has {X.shape[0]} rows")
    if not np.all(np.isfinite(y)):
        raise ValueError("y contains NaN or inf")
    alpha, prior_scale = float(alpha), float(prior_scale)
    if not alpha > 0:
        raise ValueError(f"alpha must be > 0, got {alpha}")
    if not prior_scale > 0:
        raise ValueError(f"prior_scale must be > 0, got {prior_scale}")
    lam = alpha * prior_scale**2
    d = X.shape[1]
    return np.linalg.solve(X.T @ X + lam * np.eye(d), X.T @ y)


def neutral_mean_closed_form(X, *, alpha: float = 1.0, prior_mean=0.0) -> np.ndarray:
    """Exact ambiguity-neutral location estimate: ``(sum_i x_i + alpha * prior_mean) / (n + alpha)``.

    Args:
        X: (n,) or (n, p) sample. alpha: DP concentration. prior_mean: mean of p0 (scalar or (p,)).

    Returns:
        (p,) location.

    >>> neutral_mean_closed_form(np.array([1.0, 2.0, 3.0]), alpha=1.0)
    array([1.5])
    """
    X = np.asarray(X, dtype=float)
    if X.ndim == 1:
        X = X[:, None]
    X = _as_2d(X, "X")
    alpha = float(alpha)
    if not alpha > 0:
        raise ValueError(f"alpha must be > 0, got {alpha}")
    mu0 = np.broadcast_to(np.asarray(prior_mean, dtype=float), (X.shape[1],))
    return (X.sum(axis=0) + alpha * mu0) / (X.shape[0] + alpha)


def dp_risk_moments(h_data, h_prior_mean: float, h_prior_second_moment: float, *, alpha: float):
    """Mean and variance of ``R_p = E_p h`` under ``p ~ DP(alpha + n, G_n)``.

    ``E[R_p] = E_G h`` and ``Var[R_p] = Var_G(h) / (alpha + n + 1)`` with
    ``G = G_n = (alpha p0 + sum_i delta_i)/(alpha + n)`` (standard DP moments).

    Args:
        h_data: (n,) losses at the data points.
        h_prior_mean, h_prior_second_moment: ``E_p0 h`` and ``E_p0 h^2``.
        alpha: prior concentration.

    Returns:
        (mean, variance).

    >>> dp_risk_moments(np.array([0.0, 2.0]), 1.0, 1.0, alpha=2.0)
    (1.0, 0.1)
    """
    h = np.asarray(h_data, dtype=float).ravel()
    n, a = h.size, float(alpha)
    m1 = (a * h_prior_mean + h.sum()) / (a + n)
    m2 = (a * h_prior_second_moment + (h * h).sum()) / (a + n)
    return float(m1), float((m2 - m1 * m1) / (a + n + 1))
