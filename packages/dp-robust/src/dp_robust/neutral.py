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

from typing import NamedTuple

import numpy as np

from ._checks import check_array, check_float, check_same_length
from ._validation import check_positive

__all__ = ["RiskMoments", "dp_risk_moments", "neutral_closed_form", "neutral_mean_closed_form"]


class RiskMoments(NamedTuple):
    """Mean and variance of ``R_p = E_p h`` under the DP posterior."""

    mean: float
    variance: float


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
    X = check_array(X, "X", ndim=2)
    y = check_array(y, "y", ndim=1)
    check_same_length(X=X, y=y)
    alpha = check_positive(alpha, "alpha")
    prior_scale = check_positive(prior_scale, "prior_scale")
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
    X = check_array(X, "X", ndim=(1, 2))
    if X.ndim == 1:
        X = X[:, None]
    alpha = check_positive(alpha, "alpha")
    mu0 = check_array(prior_mean, "prior_mean", ndim=(0, 1))
    if mu0.size not in (1, X.shape[1]):
        raise ValueError(
            f"prior_mean must be a scalar or have {X.shape[1]} entries (one per column of X), "
            f"got shape {mu0.shape}"
        )
    mu0 = np.broadcast_to(mu0.ravel(), (X.shape[1],))
    return (X.sum(axis=0) + alpha * mu0) / (X.shape[0] + alpha)


def dp_risk_moments(
    h_data, h_prior_mean: float, h_prior_second_moment: float, *, alpha: float
) -> RiskMoments:
    """Mean and variance of ``R_p = E_p h`` under ``p ~ DP(alpha + n, G_n)``.

    ``E[R_p] = E_G h`` and ``Var[R_p] = Var_G(h) / (alpha + n + 1)`` with
    ``G = G_n = (alpha p0 + sum_i delta_i)/(alpha + n)`` (standard DP moments).

    Args:
        h_data: (n,) losses at the data points.
        h_prior_mean, h_prior_second_moment: ``E_p0 h`` and ``E_p0 h^2``.
        alpha: prior concentration.

    Returns:
        ``RiskMoments(mean, variance)``.

    >>> dp_risk_moments(np.array([0.0, 2.0]), 1.0, 1.0, alpha=2.0)
    RiskMoments(mean=1.0, variance=0.1)
    """
    h = check_array(h_data, "h_data", ndim=1)
    m_p = check_float(h_prior_mean, "h_prior_mean")
    s_p = check_float(h_prior_second_moment, "h_prior_second_moment", minimum=0.0)
    if s_p < m_p * m_p * (1 - 1e-12):
        raise ValueError(
            f"h_prior_second_moment must be >= h_prior_mean**2 = {m_p * m_p}, got {s_p}"
        )
    h_prior_mean, h_prior_second_moment = m_p, s_p
    n, a = h.size, check_positive(alpha, "alpha")
    m1 = (a * h_prior_mean + h.sum()) / (a + n)
    m2 = (a * h_prior_second_moment + (h * h).sum()) / (a + n)
    return RiskMoments(float(m1), float((m2 - m1 * m1) / (a + n + 1)))
