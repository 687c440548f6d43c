"""Benchmark simulators with reference posterior samplers (numpy, float64).

Each simulator ``task(n, *, rng=None) -> (theta [n, D], x [n, ...])`` draws from the joint;
each ``task_reference(x_obs, n_samples, *, rng=None)`` draws from p(theta | x_obs).
"""

from __future__ import annotations

import numpy as np
from scipy.special import logsumexp

from ._checks import check_array, check_float, check_int, check_rng

__all__ = [
    "gaussian_conjugate",
    "gaussian_conjugate_posterior",
    "gaussian_conjugate_reference",
    "gmm_bimodal",
    "gmm_bimodal_reference",
    "inverse_kinematics",
    "inverse_kinematics_reference",
    "two_moons",
    "two_moons_reference",
]

# ---------------------------------------------------------------- conjugate Gaussian


def gaussian_conjugate(n, *, dim=2, prior_std=1.0, noise_std=0.5, rng=None):
    """theta ~ N(0, prior_std^2 I), x ~ N(theta, noise_std^2 I); returns (theta, x), each [n, dim]."""
    n = check_int(n, "n", minimum=1)
    dim = check_int(dim, "dim", minimum=1)
    prior_std = check_float(prior_std, "prior_std", minimum=0.0, min_inclusive=False)
    noise_std = check_float(noise_std, "noise_std", minimum=0.0, min_inclusive=False)
    rng = check_rng(rng)
    theta = prior_std * rng.standard_normal((n, dim))
    return theta, theta + noise_std * rng.standard_normal((n, dim))


def gaussian_conjugate_posterior(x_obs, *, prior_std=1.0, noise_std=0.5):
    """Closed-form posterior of :func:`gaussian_conjugate`: (mean [B, dim], variance float)."""
    x_obs = check_array(x_obs, "x_obs", ndim=2)
    prior_std = check_float(prior_std, "prior_std", minimum=0.0, min_inclusive=False)
    noise_std = check_float(noise_std, "noise_std", minimum=0.0, min_inclusive=False)
    var = 1.0 / (1.0 / prior_std**2 + 1.0 / noise_std**2)
    return var * x_obs / noise_std**2, var


def gaussian_conjugate_reference(x_obs, n_samples, *, prior_std=1.0, noise_std=0.5, rng=None):
    """Exact posterior draws for each row of ``x_obs`` [B, dim]: [B, n_samples, dim]."""
    mean, var = gaussian_conjugate_posterior(x_obs, prior_std=prior_std, noise_std=noise_std)
    n_samples = check_int(n_samples, "n_samples", minimum=1)
    rng = check_rng(rng)
    z = rng.standard_normal((mean.shape[0], n_samples, mean.shape[1]))
    return mean[:, None, :] + np.sqrt(var) * z


# ---------------------------------------------------------------- two moons (Greenberg et al. 2019)

_R_MEAN, _R_STD, _SHIFT = 0.1, 0.01, 0.25


def _moon_noise(n, rng):
    alpha = rng.uniform(-np.pi / 2, np.pi / 2, n)
    r = rng.normal(_R_MEAN, _R_STD, n)
    return np.stack([r * np.cos(alpha) + _SHIFT, r * np.sin(alpha)], axis=1)


def two_moons(n, *, rng=None):
    """theta ~ U(-1, 1)^2, alpha ~ U(-pi/2, pi/2), r ~ N(0.1, 0.01^2),
    x = (r cos alpha + 0.25 - |theta1 + theta2|/sqrt 2, r sin alpha + (theta2 - theta1)/sqrt 2)."""
    n = check_int(n, "n", minimum=1)
    rng = check_rng(rng)
    theta = rng.uniform(-1.0, 1.0, (n, 2))
    p = _moon_noise(n, rng)
    x = np.stack(
        [
            p[:, 0] - np.abs(theta[:, 0] + theta[:, 1]) / np.sqrt(2),
            p[:, 1] + (theta[:, 1] - theta[:, 0]) / np.sqrt(2),
        ],
        axis=1,
    )
    return theta, x


def two_moons_reference(x_obs, n_samples, *, rng=None):
    """Exact posterior draws [n_samples, 2] for one observation ``x_obs`` [2]: draw the noise
    (alpha, r) from its prior, invert the (unit-Jacobian) map to theta with a random sign for
    the folded coordinate, keep draws inside the prior box."""
    x_obs = check_array(x_obs, "x_obs", shape=(2,))
    n_samples = check_int(n_samples, "n_samples", minimum=1)
    rng = check_rng(rng)
    out, have = [], 0
    for _ in range(1000):
        m = max(2 * (n_samples - have), 256)
        p = _moon_noise(m, rng)
        u = x_obs[None, :] - p  # u = (-|t1 + t2| / sqrt2, (t2 - t1) / sqrt2)
        s = -np.sqrt(2) * u[:, 0]  # |t1 + t2| >= 0
        ok = s >= 0
        s = s * rng.choice([-1.0, 1.0], m)
        d = np.sqrt(2) * u[:, 1]
        theta = np.stack([(s - d) / 2, (s + d) / 2], axis=1)
        ok &= np.all(np.abs(theta) <= 1.0, axis=1)
        out.append(theta[ok])
        have += int(ok.sum())
        if have >= n_samples:
            return np.concatenate(out)[:n_samples]
    raise ValueError(
        f"x_obs={x_obs.tolist()} has (numerically) zero posterior mass under the prior"
    )


# ---------------------------------------------------------------- bimodal Gaussian mixture

_GMM_STD = 0.5


def gmm_bimodal(n, *, n_obs=10, rng=None):
    """theta ~ N(0, I_2); n_obs i.i.d. x_j ~ 1/2 N(theta, 0.5^2 I) + 1/2 N(-theta, 0.5^2 I)
    (0.5 is the standard deviation). Returns (theta [n, 2], x [n, n_obs, 2])."""
    n = check_int(n, "n", minimum=1)
    n_obs = check_int(n_obs, "n_obs", minimum=1)
    rng = check_rng(rng)
    theta = rng.standard_normal((n, 2))
    sign = rng.choice([-1.0, 1.0], (n, n_obs, 1))
    return theta, sign * theta[:, None, :] + _GMM_STD * rng.standard_normal((n, n_obs, 2))


def gmm_bimodal_reference(x_obs, n_samples, *, rng=None):
    """Exact posterior draws [n_samples, 2] for one data set ``x_obs`` [n_obs, 2] (n_obs <= 16):
    the likelihood expands over the 2^n_obs sign patterns s into Gaussians in theta, so the
    posterior is a Gaussian mixture with precision 1 + n/sigma^2, means (sum_j s_j x_j / sigma^2)
    / (1 + n/sigma^2) and log-weights |sum_j s_j x_j|^2 / (2 sigma^4 (1 + n/sigma^2))."""
    x_obs = check_array(x_obs, "x_obs", ndim=2, shape=(None, 2))
    n_obs = x_obs.shape[0]
    if n_obs > 16:
        raise ValueError(f"x_obs may have at most 16 observations (2^n mixture terms), got {n_obs}")
    n_samples = check_int(n_samples, "n_samples", minimum=1)
    rng = check_rng(rng)
    s2 = _GMM_STD**2
    signs = 1.0 - 2.0 * ((np.arange(2**n_obs)[:, None] >> np.arange(n_obs)[None, :]) & 1)
    sums = signs @ x_obs  # [2^n, 2]
    prec = 1.0 + n_obs / s2
    logw = (sums**2).sum(axis=1) / (2.0 * s2**2 * prec)
    w = np.exp(logw - logsumexp(logw))
    k = rng.choice(w.shape[0], n_samples, p=w / w.sum())
    return sums[k] / (s2 * prec) + rng.standard_normal((n_samples, 2)) / np.sqrt(prec)


# ---------------------------------------------------------------- inverse kinematics (Kruse et al. 2021)

_IK_STD = np.array([0.25, 0.5, 0.5, 0.5])
_IK_LEN = np.array([0.5, 0.5, 1.0])


def _arm(theta):
    phi = np.cumsum(theta[:, 1:], axis=1)
    return np.stack(
        [theta[:, 0] + (_IK_LEN * np.sin(phi)).sum(axis=1), (_IK_LEN * np.cos(phi)).sum(axis=1)],
        axis=1,
    )


def inverse_kinematics(n, *, rng=None):
    """theta ~ N(0, diag(0.25^2, 0.5^2, 0.5^2, 0.5^2)); arm lengths (0.5, 0.5, 1.0);
    x = (theta1 + sum_i l_i sin phi_i, sum_i l_i cos phi_i), phi = cumsum(theta2..4).
    Deterministic given theta. Returns (theta [n, 4], x [n, 2])."""
    n = check_int(n, "n", minimum=1)
    rng = check_rng(rng)
    theta = _IK_STD * rng.standard_normal((n, 4))
    return theta, _arm(theta)


def inverse_kinematics_reference(x_obs, n_samples, *, epsilon=0.002, max_draws=10**9, rng=None):
    """Rejection-ABC posterior draws [n_samples, 4] (the paper's reference): prior draws whose
    end point lies within Euclidean distance ``epsilon`` of ``x_obs`` [2]. Raises ValueError
    if ``max_draws`` prior draws do not yield ``n_samples`` acceptances."""
    x_obs = check_array(x_obs, "x_obs", shape=(2,))
    n_samples = check_int(n_samples, "n_samples", minimum=1)
    epsilon = check_float(epsilon, "epsilon", minimum=0.0, min_inclusive=False)
    max_draws = check_int(max_draws, "max_draws", minimum=1)
    rng = check_rng(rng)
    out, have, drawn = [], 0, 0
    while have < n_samples:
        if drawn >= max_draws:
            raise ValueError(
                f"only {have} of n_samples={n_samples} accepted in max_draws={max_draws} draws"
            )
        m = min(10**6, max_draws - drawn)
        theta = _IK_STD * rng.standard_normal((m, 4))
        ok = np.linalg.norm(_arm(theta) - x_obs, axis=1) <= epsilon
        out.append(theta[ok])
        have += int(ok.sum())
        drawn += m
    return np.concatenate(out)[:n_samples]
