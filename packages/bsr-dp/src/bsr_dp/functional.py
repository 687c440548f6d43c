"""Banded square-root (BSR) factorization: workloads, coefficients, sensitivity and errors.

Kalinin & Lampert, "Banded Square Root Matrix Factorization for Differentially Private Model
Training", NeurIPS 2024 - https://arxiv.org/abs/2405.13763

Implements Sec. 2 (matrix-factorization mechanism, b-min-separation, MaxSE/MeanSE), Sec. 3
(BSR: the banded part of the principal square root of the workload; the closed form for SGD with
momentum and weight decay, Theorem 1) and the Toeplitz sensitivity formula (Theorem 2).

Every matrix here is lower-triangular Toeplitz and is represented by its first column
(``coefs[i] = M[i, 0]``); a shorter vector means the remaining coefficients are zero (a banded
matrix). Nothing builds an n x n matrix except `toeplitz_matrix`, which is for checks.
"""

from __future__ import annotations

import itertools
import warnings

import numpy as np
from scipy import signal

from ._validation import (
    check_coefs,
    check_momentum,
    check_optional_int,
    check_positive_int,
    check_square,
)

__all__ = [
    "workload_momentum",
    "toeplitz_matrix",
    "sqrt_toeplitz_coefs",
    "inverse_toeplitz_coefs",
    "bsr_coefs",
    "minsep_sensitivity",
    "brute_force_sensitivity",
    "per_step_error",
    "max_se",
    "mean_se",
]


# ----------------------------------------------------------------------------------- workloads
def workload_momentum(n, *, momentum=0.0, weight_decay=1.0) -> np.ndarray:
    """First column of the workload of SGD with momentum and weight decay (paper Sec. 3.2).

    With ``m_t = beta m_{t-1} + g_t`` and ``theta_t = alpha theta_{t-1} - lr m_t`` the iterates are
    ``theta_0 alpha^t - lr (A g)_t`` with A lower-triangular Toeplitz,
    ``a_k = sum_{j<=k} alpha^(k-j) beta^j = (alpha^(k+1) - beta^(k+1)) / (alpha - beta)``.
    ``momentum=0, weight_decay=1`` is the prefix-sum matrix (all ones).

    Args:
        n: number of training steps (matrix size), >= 1.
        momentum: beta in [0, 1).
        weight_decay: alpha in (0, 1]; multiplicative decay, 1 means none (paper's convention).

    Returns:
        (n,) float64 array ``a``.

    >>> workload_momentum(4, momentum=0.5)
    array([1.   , 1.5  , 1.75 , 1.875])
    """
    n = check_positive_int(n, "n")
    beta, alpha = check_momentum(momentum, weight_decay)
    k = np.arange(n)
    # a_k = alpha a_{k-1} + beta^k: a first-order recursion, run by lfilter in C
    return signal.lfilter([1.0], [1.0, -alpha], beta**k)


def toeplitz_matrix(coefs, n=None) -> np.ndarray:
    """Dense (n, n) lower-triangular Toeplitz matrix with first column ``coefs`` (zero-padded)."""
    c = check_coefs(coefs, "coefs", first_positive=False)
    n = c.size if n is None else check_positive_int(n, "n")
    col = np.zeros(n)
    m = min(n, c.size)
    col[:m] = c[:m]
    i, j = np.indices((n, n))
    return np.where(i >= j, col[np.clip(i - j, 0, n - 1)], 0.0)  # (n, n)


# ------------------------------------------------------------------------- square root, inverse
def sqrt_toeplitz_coefs(a) -> np.ndarray:
    """Coefficients of the principal square root of a lower-triangular Toeplitz matrix (recursion).

    ``c_0 = sqrt(a_0)``, ``c_k = (a_k - sum_{j=1}^{k-1} c_j c_{k-j}) / (2 c_0)``: O(n^2). Works for any
    workload with ``a_0 > 0``; for the momentum workload prefer the closed form `bsr_coefs`.

    >>> sqrt_toeplitz_coefs([1.0, 1.0, 1.0, 1.0])
    array([1.    , 0.5   , 0.375 , 0.3125])
    """
    a = check_coefs(a, "a")
    n = a.size
    c = np.zeros(n)
    c[0] = np.sqrt(a[0])
    for k in range(1, n):
        c[k] = (a[k] - np.dot(c[1:k], c[k - 1 : 0 : -1])) / (2.0 * c[0])
    return c


def inverse_toeplitz_coefs(coefs, n=None) -> np.ndarray:
    """First column of the inverse of a lower-triangular Toeplitz matrix (O(n * len(coefs)))."""
    c = check_coefs(coefs, "coefs")
    n = c.size if n is None else check_positive_int(n, "n")
    impulse = np.zeros(n)
    impulse[0] = 1.0
    return signal.lfilter([1.0], c[:n], impulse)


def _r(m: int) -> np.ndarray:
    """r_j = binom(2j, j) / 4^j = |binom(-1/2, j)|, j < m: the square root of the prefix-sum matrix."""
    j = np.arange(1, m)
    return np.concatenate([[1.0], np.cumprod((2.0 * j - 1.0) / (2.0 * j))])


def bsr_coefs(n, bandwidth, *, momentum=0.0, weight_decay=1.0) -> np.ndarray:
    """Banded square root of the momentum/weight-decay workload, closed form (Theorem 1).

    ``A = (I - alpha S)^{-1} (I - beta S)^{-1}`` with S the down-shift, so
    ``A^{1/2} = (I - alpha S)^{-1/2} (I - beta S)^{-1/2}`` and
    ``c_k = sum_{j=0}^{k} r_j alpha^j r_{k-j} beta^{k-j}``, ``r_j = binom(2j, j) / 4^j``.
    BSR keeps ``c_0..c_{p-1}`` (p = bandwidth) and sets the rest to zero. The convolution is
    O(p^2) for small p and O(p log p) via FFT for large p; ``bandwidth=n`` is the full square root.

    Args:
        n: number of training steps (matrix size).
        bandwidth: p, number of non-zero diagonals kept; clipped to n. p = b (the min-separation)
            is the paper's choice for multi-epoch training.
        momentum: beta in [0, 1).
        weight_decay: alpha in (0, 1] (1 = no decay).

    Returns:
        (min(bandwidth, n),) float64 coefficients; the strategy C is `toeplitz_matrix(c, n)`.

    >>> bsr_coefs(10, 3)
    array([1.   , 0.5  , 0.375])
    """
    n = check_positive_int(n, "n")
    p = min(check_positive_int(bandwidth, "bandwidth"), n)
    beta, alpha = check_momentum(momentum, weight_decay)
    r = _r(p)
    j = np.arange(p)
    with np.errstate(under="ignore"):
        x = r * alpha**j  # (p,) coefficients of (I - alpha S)^{-1/2}
        if beta == 0.0:
            return x
        y = r * beta**j  # (p,) coefficients of (I - beta S)^{-1/2}
    if p <= 2048:
        return np.convolve(x, y)[:p]
    return signal.fftconvolve(x, y)[:p]


# ---------------------------------------------------------------------------------- sensitivity
def _participations(n: int, min_sep: int, max_participations: int | None) -> int:
    k_max = -(-n // min_sep)  # ceil(n / b): most participations that fit
    return k_max if max_participations is None else min(max_participations, k_max)


def _shifted_sum(c: np.ndarray, n: int, min_sep: int, k: int) -> np.ndarray:
    """(n,) sum of the columns 0, b, ..., (k-1) b of the Toeplitz matrix with first column c."""
    s = np.zeros(n)
    p = min(c.size, n)
    for i in range(k):
        start = i * min_sep
        m = min(p, n - start)
        s[start : start + m] += c[:m]
    return s


def minsep_sensitivity(c, n, min_sep, *, max_participations=None) -> float:
    """L2 sensitivity of a lower-triangular Toeplitz strategy under b-min-separated participation.

    Each example participates at most k times (default and cap ``ceil(n / b)``), any two
    participations at least ``min_sep`` steps apart. For non-negative, non-increasing coefficients
    the worst case is participating at steps 0, b, 2b, ... (Theorem 2):
    ``sens(C) = || sum_{j<k} C[:, j b] ||_2``. The same value is exact for ANY signs when the band
    ``len(c) <= min_sep`` (columns then never overlap). Otherwise the value returned is an upper
    bound, from the non-increasing envelope of ``|c|`` (a `UserWarning` says so).

    Args:
        c: (p,) strategy coefficients (first column of C, zero beyond p), p <= n after clipping.
        n: number of steps.
        min_sep: b >= 1.
        max_participations: k, or None for ``ceil(n / b)``.

    Returns:
        float sensitivity (per unit clipping norm).

    >>> round(minsep_sensitivity([1.0], 10, 5), 6)   # DP-SGD, 2 participations: sqrt(2)
    1.414214
    """
    c = check_coefs(c, "c", first_positive=False)
    n = check_positive_int(n, "n")
    min_sep = check_positive_int(min_sep, "min_sep")
    max_participations = check_optional_int(max_participations, "max_participations")
    c = c[:n]
    k = _participations(n, min_sep, max_participations)
    exact = c.size <= min_sep or (np.all(c >= 0) and np.all(np.diff(c) <= 1e-12 * np.abs(c[0])))
    if not exact:
        warnings.warn(
            "coefficients are not non-negative and non-increasing and the band exceeds min_sep: "
            "returning an upper bound on the sensitivity (Theorem 2 applied to the envelope of |c|)",
            UserWarning,
            stacklevel=2,
        )
        c = np.maximum.accumulate(np.abs(c)[::-1])[::-1]
    return float(np.linalg.norm(_shifted_sum(c, n, min_sep, k)))


def brute_force_sensitivity(C, min_sep, *, max_participations=None) -> float:
    """Sensitivity of a dense strategy matrix by enumerating every b-min-separated participation set.

    ``sens^2 = max_S max_{s in {+-1}^S} s^T (C^T C)_S s`` over sets S of at most k columns with
    pairwise gaps >= b (k defaults to ``ceil(n / b)``): the scalar-gradient sensitivity, which
    equals the vector one whenever ``C^T C`` is entry-wise non-negative (all signs +1 then win).
    Exponential cost: for tests and small n (<= 24).
    """
    C = check_square(C, "C")
    n = C.shape[1]
    if n > 24:
        raise ValueError(f"C has {n} columns; brute force is limited to 24")
    min_sep = check_positive_int(min_sep, "min_sep")
    max_participations = check_optional_int(max_participations, "max_participations")
    k = _participations(n, min_sep, max_participations)
    gram = C.T @ C  # (n, n)
    nonneg = bool(np.all(gram >= -1e-15))
    best = 0.0

    def extend(chosen: list[int]) -> None:
        nonlocal best
        if chosen:
            sub = gram[np.ix_(chosen, chosen)]
            if nonneg:
                best = max(best, float(sub.sum()))
            else:
                for signs in itertools.product((1.0, -1.0), repeat=len(chosen) - 1):
                    s = np.array((1.0, *signs))
                    best = max(best, float(s @ sub @ s))
        if len(chosen) == k:
            return
        start = chosen[-1] + min_sep if chosen else 0
        for nxt in range(start, n):
            extend([*chosen, nxt])

    extend([])
    return float(np.sqrt(best))


# ---------------------------------------------------------------------------------------- errors
def per_step_error(strategy_coefs, workload_coefs) -> np.ndarray:
    """Expected squared error of each step per unit noise: ``e_i = ||B[i, :]||^2``, ``B = A C^{-1}``.

    B is lower-triangular Toeplitz with first column ``C^{-1} a`` (one banded triangular solve,
    O(n p)), so ``e_i = sum_{j<=i} b_j^2`` is non-decreasing in i.

    Args:
        strategy_coefs: (p,) first column of C (zero-padded to n), ``c_0 > 0``.
        workload_coefs: (n,) first column of A; n is taken from here.

    Returns:
        (n,) float64 array ``e``.
    """
    c = check_coefs(strategy_coefs, "strategy_coefs")
    a = check_coefs(workload_coefs, "workload_coefs", first_positive=False)
    b = signal.lfilter([1.0], c[: a.size], a)  # (n,) first column of B = A C^{-1}
    return np.cumsum(b * b)


def _se(strategy_coefs, workload_coefs, min_sep, max_participations, reduce) -> float:
    e = per_step_error(strategy_coefs, workload_coefs)
    sens = minsep_sensitivity(
        strategy_coefs, e.size, min_sep, max_participations=max_participations
    )
    return float(sens * np.sqrt(reduce(e)))


def max_se(strategy_coefs, workload_coefs, min_sep, *, max_participations=None) -> float:
    """MaxSE = sens(C) * max_i ||B[i, :]||  (= sens(C) ||B||_{2->inf}), per unit noise multiplier.

    >>> round(max_se([1.0], [1.0] * 4, 4), 6)   # DP-SGD on prefix sums: last row of A has norm 2
    2.0
    """
    return _se(strategy_coefs, workload_coefs, min_sep, max_participations, np.max)


def mean_se(strategy_coefs, workload_coefs, min_sep, *, max_participations=None) -> float:
    """MeanSE = sens(C) * sqrt(mean_i ||B[i, :]||^2)  (= sens(C) ||B||_F / sqrt(n)), per unit noise."""
    return _se(strategy_coefs, workload_coefs, min_sep, max_participations, np.mean)
