"""Batch baselines for heavy-tailed mean estimation: sample mean, median-of-means, geometric MoM.

Near-Optimal Streaming Heavy-Tailed Statistical Estimation with Clipped SGD
(Das et al., NeurIPS 2024) - https://arxiv.org/abs/2410.20135.  The paper compares Clipped-SGD's
streaming rate with the batch sub-Gaussian estimators (median-of-means, Lugosi & Mendelson 2019;
geometric median-of-means, Minsker 2015), which need all T samples in memory.  These are the
accuracy references; the sample mean (= unclipped SGD with eta_t = 1/t) is the non-robust one.

All functions take ``X`` of shape (..., n, d) and return (..., d), so independent trials can be
stacked on leading axes.
"""

from __future__ import annotations

import math

import numpy as np

from ._checks import check_array, check_float, check_int

__all__ = ["sample_mean", "median_of_means", "geometric_median", "geometric_median_of_means"]


def _check_X(X, name="X"):
    """A finite float array of shape (..., n, d) with n, d >= 1."""
    X = check_array(X, name)
    if X.ndim < 2:
        raise ValueError(f"{name} must have shape (..., n, d), got shape {X.shape}")
    return X


def _n_blocks(n, n_blocks, delta):
    delta = check_float(
        delta, "delta", minimum=0.0, maximum=1.0, min_inclusive=False, max_inclusive=False
    )
    if n_blocks is None:
        # Lugosi & Mendelson (2019): k = 8 ln(1/delta), capped at the number of samples
        return min(math.ceil(8 * math.log(1 / delta)), n)
    return check_int(n_blocks, "n_blocks", minimum=1, maximum=n)


def _block_means(X, k):
    """(..., n, d) -> (..., k, d) means of k contiguous blocks (the first n - k*(n//k) rows dropped)."""
    n = X.shape[-2]
    b = n // k
    Xb = X[..., n - k * b :, :]  # (..., k*b, d)
    return Xb.reshape(*X.shape[:-2], k, b, X.shape[-1]).mean(axis=-2)  # (..., k, d)


def sample_mean(X):
    """Empirical mean over the sample axis: (..., n, d) -> (..., d).

    >>> sample_mean(np.array([[0.0, 1.0], [2.0, 3.0]]))
    array([1., 2.])
    """
    return _check_X(X).mean(axis=-2)


def median_of_means(X, *, n_blocks=None, delta=1e-3):
    """Coordinate-wise median of block means: (..., n, d) -> (..., d).

    Args:
        X: (..., n, d) finite samples, split into ``n_blocks`` contiguous blocks of ``n // k``
            rows each; the first ``n mod k`` rows are left out so that the blocks are equal.
        n_blocks: number of blocks k in [1, n]; default ``ceil(8 ln(1/delta))`` capped at n.
        delta: failure probability in (0, 1) used for the default k.

    >>> median_of_means(np.array([[0.0], [1.0], [2.0], [100.0]]), n_blocks=4)
    array([1.5])
    """
    X = _check_X(X)
    k = _n_blocks(X.shape[-2], n_blocks, delta)
    return np.median(_block_means(X, k), axis=-2)


def geometric_median(Z, *, max_iter=200, tol=1e-10):
    """Geometric median of the rows of Z by Weiszfeld's iteration (vectorised over leading axes).

    Args:
        Z: (..., k, d) finite points.
        max_iter: Weiszfeld iterations (>= 1).
        tol: stop when every chain moves less than ``tol * (1 + ||z||)`` (finite, >= 0).

    Returns:
        (..., d) the minimiser of ``sum_i ||z - Z_i||``.

    >>> geometric_median(np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [10.0, 10.0]])).round(3)
    array([0.5, 0.5])
    """
    Z = _check_X(Z, "Z")
    max_iter = check_int(max_iter, "max_iter", minimum=1)
    tol = check_float(tol, "tol", minimum=0.0)
    z = np.median(Z, axis=-2)  # (..., d) start at the coordinate-wise median
    for _ in range(max_iter):
        dist = np.linalg.norm(Z - z[..., None, :], axis=-1)  # (..., k)
        w = 1.0 / np.maximum(dist, 1e-12)  # a point coinciding with z gets a huge (finite) weight
        z_new = np.einsum("...k,...kd->...d", w, Z) / w.sum(axis=-1, keepdims=True)
        moved = np.linalg.norm(z_new - z, axis=-1)
        z = z_new
        if np.all(moved <= tol * (1 + np.linalg.norm(z, axis=-1))):
            break
    return z


def geometric_median_of_means(X, *, n_blocks=None, delta=1e-3, max_iter=200):
    """Geometric median of block means (Minsker 2015): (..., n, d) -> (..., d).

    Blocks and their defaults as in :func:`median_of_means`; ``max_iter`` as in
    :func:`geometric_median`.

    >>> X = np.zeros((8, 2)); X[-1] = 1e6
    >>> geometric_median_of_means(X, n_blocks=4).round(6)
    array([0., 0.])
    """
    X = _check_X(X)
    k = _n_blocks(X.shape[-2], n_blocks, delta)
    max_iter = check_int(max_iter, "max_iter", minimum=1)
    return geometric_median(_block_means(X, k), max_iter=max_iter)
