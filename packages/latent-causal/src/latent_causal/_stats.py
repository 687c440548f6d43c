"""Pairwise dependence tests (Pearson, Chatterjee's xi, HSIC) and two-sample shift tests."""

from __future__ import annotations

import numpy as np
from scipy import special, stats

from ._checks import check_array, check_option, check_probability, describe

__all__ = ["chatterjee_xi", "estimate_shift_set", "estimate_udg", "hsic_pvalue"]

TESTS = ("pearson", "xi", "hsic")


def _check_alpha(alpha) -> float:
    return check_probability(alpha, "alpha", allow_zero=False, allow_one=False)


def chatterjee_xi(x, y) -> float:
    """Chatterjee's rank correlation ξ_n(x, y) (measures how much y is a function of x).

    ξ = 1 − n Σ_i |r_{i+1} − r_i| / (2 Σ_i l_i (n − l_i)) with the pairs sorted by x (ties in x
    broken at random with a fixed seed), r_i = #{j : y_j ≤ y_(i)}, l_i = #{j : y_j ≥ y_(i)};
    for data without ties this is 1 − 3 Σ |r_{i+1} − r_i| / (n² − 1).
    """
    x = check_array(x, "x", ndim=1)
    y = check_array(y, "y", ndim=1)
    if x.shape != y.shape:
        raise ValueError(f"y must have the same length as x ({x.shape[0]}), got {y.shape[0]}")
    if x.shape[0] < 2:
        raise ValueError(f"x must have at least 2 values, got {x.shape[0]}")
    return _xi(x, y)


def _xi(x: np.ndarray, y: np.ndarray) -> float:
    n = x.shape[0]
    order = np.argsort(x, kind="stable")
    if np.any(np.diff(x[order]) == 0):  # ties in x: break them at random (fixed seed)
        order = np.lexsort((np.random.default_rng(0).random(n), x))
    ys = y[order]
    sorted_y = np.sort(ys)
    r = np.searchsorted(sorted_y, ys, side="right").astype(np.float64)
    l_ = (n - np.searchsorted(sorted_y, ys, side="left")).astype(np.float64)
    denom = 2.0 * np.sum(l_ * (n - l_))
    if denom == 0:  # y constant
        return 0.0
    return float(1.0 - n * np.sum(np.abs(np.diff(r))) / denom)


def _xi_pvalue(x, y) -> float:
    """One-sided p-value of ξ under independence: √n ξ → N(0, 2/5) (continuous data)."""
    n = x.shape[0]
    xi = _xi(x, y)
    return float(special.ndtr(-np.sqrt(n) * xi / np.sqrt(0.4)))


def _gauss_gram(z: np.ndarray) -> np.ndarray:
    d2 = (z[:, None] - z[None, :]) ** 2
    med = np.median(d2[np.triu_indices(z.shape[0], 1)])
    if not med > 0:
        med = 1.0
    return np.exp(-d2 / med)


def hsic_pvalue(x, y) -> float:
    """HSIC independence test (Gaussian kernels, median heuristic, gamma approximation of the
    null distribution; Gretton et al. 2008). Returns the p-value."""
    x = check_array(x, "x", ndim=1)
    y = check_array(y, "y", ndim=1)
    if x.shape != y.shape:
        raise ValueError(f"y must have the same length as x ({x.shape[0]}), got {y.shape[0]}")
    n = x.shape[0]
    if n < 6:
        raise ValueError(f"x must have at least 6 values for the HSIC test, got {n}")
    k = _gauss_gram(x)
    l_ = _gauss_gram(y)
    kc = k - k.mean(axis=0) - k.mean(axis=1)[:, None] + k.mean()
    lc = l_ - l_.mean(axis=0) - l_.mean(axis=1)[:, None] + l_.mean()
    stat = np.sum(kc * lc) / n
    var = (kc * lc / 6.0) ** 2
    var = (var.sum() - np.trace(var)) / n / (n - 1)
    var = var * 72 * (n - 4) * (n - 5) / n / (n - 1) / (n - 2) / (n - 3)
    np.fill_diagonal(k, 0.0)
    np.fill_diagonal(l_, 0.0)
    mu_x = k.sum() / n / (n - 1)
    mu_y = l_.sum() / n / (n - 1)
    mean = (1 + mu_x * mu_y - mu_x - mu_y) / n
    if not (var > 0 and mean > 0):
        return 1.0
    shape = mean**2 / var
    scale = var * n / mean
    return float(stats.gamma.sf(stat, shape, scale=scale))


def _pearson_pvalue(x, y) -> float:
    n = x.shape[0]
    sx, sy = x.std(), y.std()
    if sx == 0 or sy == 0:
        return 1.0
    r = float(np.clip(np.mean((x - x.mean()) * (y - y.mean())) / (sx * sy), -1.0, 1.0))
    if abs(r) == 1.0:
        return 0.0
    t = r * np.sqrt((n - 2) / (1 - r * r))
    return float(2 * special.stdtr(n - 2, -abs(t)))


def _check_samples(X, name: str, minimum: int) -> np.ndarray:
    X = check_array(X, name, ndim=2)
    if X.shape[0] < minimum:
        raise ValueError(f"{name} must have at least {minimum} rows (samples), got {X.shape[0]}")
    return X


def estimate_udg(X, *, test: str = "pearson", alpha: float = 0.01) -> np.ndarray:
    """Estimate the undirected dependency graph of the columns of ``X`` (n_samples, n).

    One test per pair: ``"pearson"`` (t-test of the correlation), ``"xi"`` (Chatterjee's ξ in
    both directions, asymptotic normal null, the smaller p-value counts double) or ``"hsic"``
    (Gaussian-kernel HSIC, gamma null; O(n_samples²) memory). Bonferroni: a pair is an edge iff
    its p-value is below alpha / (number of tests), so with independent columns the chance of
    any false edge is at most ``alpha``. Returns a symmetric (n, n) bool array, diagonal False.
    """
    if not isinstance(test, str):
        raise TypeError(f"test must be one of {TESTS}, got {describe(test)}")
    test = check_option(test, "test", TESTS)
    alpha = _check_alpha(alpha)
    X = _check_samples(X, "X", 6 if test == "hsic" else 3)
    n = X.shape[1]
    udg = np.zeros((n, n), dtype=bool)
    n_pairs = n * (n - 1) // 2
    if n_pairs == 0:
        return udg
    for a in range(n):
        for b in range(a + 1, n):
            x, y = X[:, a], X[:, b]
            if test == "pearson":
                p, m = _pearson_pvalue(x, y), 1
            elif test == "xi":
                p, m = min(_xi_pvalue(x, y), _xi_pvalue(y, x)), 2
            else:
                p, m = hsic_pvalue(x, y), 1
            udg[a, b] = udg[b, a] = p < alpha / (m * n_pairs)
    return udg


def estimate_shift_set(X_obs, X_env, *, alpha: float = 0.01) -> frozenset:
    """The columns whose marginal distribution differs between ``X_obs`` and ``X_env``.

    Two-sample Kolmogorov–Smirnov test per column, Bonferroni over the n columns: column a is
    in the set iff its p-value is below alpha / n.
    """
    alpha = _check_alpha(alpha)
    X_obs = _check_samples(X_obs, "X_obs", 2)
    X_env = _check_samples(X_env, "X_env", 2)
    if X_env.shape[1] != X_obs.shape[1]:
        raise ValueError(
            f"X_env must have the same number of columns as X_obs ({X_obs.shape[1]}), "
            f"got {X_env.shape[1]}"
        )
    n = X_obs.shape[1]
    p = np.array([stats.ks_2samp(X_obs[:, a], X_env[:, a]).pvalue for a in range(n)])
    return frozenset(np.flatnonzero(p < alpha / n).tolist())
