"""Stratification and label-budget allocation for StratPPI.

Fisch et al., "Stratified Prediction-Powered Inference for Effective Hybrid Evaluation of
Language Models", NeurIPS 2024, https://arxiv.org/abs/2406.04291, Sec. 4.3 (allocation).

With N_k >> n_k the StratPPI variance is about (1/n) sum_k w_k^2 sigma_k^2 / rho_k, with
n_k = rho_k n and sigma_k^2 = Var_k(Y - lam_k f); it is minimised by the Neyman-type rule
rho_k proportional to w_k sigma_k ("optimal"). "proportional" sets rho_k = w_k. "heuristic"
(lam_k = 1, calibrated confidence scores f in [0, 1]) uses E[(Y - f)^2 | f] = f (1 - f), so
sigma_k^2 ~ mean over the stratum of f (1 - f): it needs no labels.
"""

from __future__ import annotations

import numbers

import numpy as np

from ._validation import as_float_array

__all__ = ["allocate", "make_strata", "heuristic_sigma", "neyman_variance"]

METHODS = ("proportional", "optimal", "heuristic")


def _check_int(name: str, v, lo: int) -> int:
    if isinstance(v, bool) or not isinstance(v, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {v!r}")
    if v < lo:
        raise ValueError(f"{name} must be >= {lo}, got {v}")
    return int(v)


def heuristic_sigma(scores) -> np.ndarray:
    """sigma_k = sqrt(mean_k f (1 - f)) from K arrays of confidence scores in [0, 1].

    Each entry is the scores of one stratum's unlabelled pool (a scalar counts as one score).

    >>> heuristic_sigma([[0.5, 0.5], [1.0, 0.0]]).tolist()
    [0.5, 0.0]
    """
    if isinstance(scores, (str, bytes)) or not hasattr(scores, "__len__"):
        raise TypeError("scores must be a sequence of K arrays (the scores of each stratum)")
    out = []
    for k, s in enumerate(scores):
        s = np.atleast_1d(as_float_array(f"scores[{k}]", np.atleast_1d(s), ndim=(1,)))
        if np.any((s < 0) | (s > 1)):
            raise ValueError(f"scores[{k}] must lie in [0, 1] (calibrated confidences)")
        out.append(np.sqrt(np.mean(s * (1 - s))))
    return np.asarray(out)


def neyman_variance(n_k, weights, sigma) -> float:
    """Large-pool StratPPI variance sum_k w_k^2 sigma_k^2 / n_k of an allocation."""
    n_k = np.asarray(n_k, dtype=np.float64)
    w = np.asarray(weights, dtype=np.float64)
    w = w / w.sum()
    s = np.asarray(sigma, dtype=np.float64)
    return float(np.sum(w**2 * s**2 / n_k))


def _box_fractions(budget: int, rho, lo, hi):
    """Continuous allocation x (sum = budget) proportional to rho inside the box [lo, hi]."""
    K = rho.shape[0]
    x = np.zeros(K)
    fixed = np.zeros(K, dtype=bool)
    for _ in range(2 * K + 1):
        free = ~fixed
        rest = budget - x[fixed].sum()
        r = rho[free]
        r = r / r.sum() if r.sum() > 0 else np.full(r.shape, 1.0 / r.shape[0])
        x[free] = rest * r
        low = free & (x < lo - 1e-12)
        high = free & (x > hi + 1e-12)
        if low.any():
            x[low], fixed[low] = lo[low], True
        elif high.any():
            x[high], fixed[high] = hi[high], True
        else:
            break
        if fixed.all():
            break
    return x


def allocate(
    budget,
    weights,
    *,
    sigma=None,
    scores=None,
    method="proportional",
    n_min=2,
    caps=None,
):
    """Split a label budget over strata: n_k = rho_k * budget, rounded to integers.

    Args:
        budget: total number of labels n (int).
        weights: (K,) stratum weights w_k (normalised to sum to 1).
        sigma: (K,) per-stratum sigma_k = sd(Y - lam_k f), needed by "optimal" (oracle values, or
            estimates from a pilot sample).
        scores: sequence of K arrays of autorater confidences in [0, 1] (the unlabelled pool of
            each stratum), needed by "heuristic".
        method: "proportional" (rho_k = w_k), "optimal" (rho_k ~ w_k sigma_k) or "heuristic"
            (rho_k ~ w_k sqrt(mean_k f(1 - f))), Sec. 4.3.
        n_min: minimum labels per stratum (2 is the least that gives a variance; >= 20 is
            safer for the normal approximation).
        caps: optional (K,) maximum per stratum (e.g. the stratum sizes N_k).

    Returns:
        (K,) int64 array, each in [n_min, caps], summing exactly to `budget` (largest-remainder
        rounding of the box-constrained continuous allocation). If every rho_k is 0 the budget
        is split proportionally.

    >>> allocate(100, [0.5, 0.3, 0.2]).tolist()
    [50, 30, 20]
    >>> allocate(100, [0.5, 0.5], sigma=[0.1, 0.3], method="optimal").tolist()
    [25, 75]
    """
    budget = _check_int("budget", budget, 1)
    n_min = _check_int("n_min", n_min, 0)
    w = as_float_array("weights", weights, ndim=(1,))
    if np.any(w < 0) or w.sum() <= 0:
        raise ValueError("weights must be non-negative and not all zero")
    w = w / w.sum()
    K = w.shape[0]
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}")
    if method == "proportional":
        rho = w.copy()
    elif method == "optimal":
        if sigma is None:
            raise ValueError("method='optimal' needs sigma (per-stratum sd of Y - lam f)")
        s = as_float_array("sigma", sigma, ndim=(1,))
        if s.shape[0] != K:
            raise ValueError(f"sigma has length {s.shape[0]} but weights has {K}")
        if np.any(s < 0):
            raise ValueError("sigma must be non-negative")
        rho = w * s
    else:
        if scores is None:
            raise ValueError("method='heuristic' needs scores (K arrays of confidences in [0, 1])")
        s = heuristic_sigma(scores)
        if s.shape[0] != K:
            raise ValueError(f"scores has {s.shape[0]} strata but weights has {K}")
        rho = w * s
    if rho.sum() <= 0:
        rho = w.copy()
    lo = np.full(K, float(n_min))
    if caps is None:
        hi = np.full(K, np.inf)
    else:
        c = np.asarray(caps)
        if c.shape != (K,) or c.dtype.kind not in "iu" or np.any(c < n_min):
            raise ValueError(f"caps must be ({K},) integers, each >= n_min={n_min}")
        hi = c.astype(np.float64)
        if c.sum() < budget:
            raise ValueError(f"budget={budget} exceeds sum(caps)={int(c.sum())}")
    if K * n_min > budget:
        raise ValueError(f"budget={budget} is below K * n_min = {K} * {n_min}")
    x = _box_fractions(budget, rho, lo, hi)
    n_k = np.floor(x + 1e-9).astype(np.int64)
    rem = budget - int(n_k.sum())
    if rem > 0:
        frac = np.where(n_k < hi, x - n_k, -np.inf)
        order = np.argsort(-frac, kind="stable")
        n_k[order[:rem]] += 1
    elif rem < 0:  # only from the 1e-9 guard; take back from the smallest remainders above lo
        frac = np.where(n_k > lo, x - n_k, np.inf)
        n_k[np.argsort(frac, kind="stable")[:-rem]] -= 1
    return n_k


def make_strata(scores, K=5, method="quantile", *, edges=None):
    """Bin autorater scores into strata (default: K equal-mass bins).

    Args:
        scores: (n,) real scores, e.g. the autorater's confidence f(X).
        K: number of bins requested. Ties can merge quantile bins, so fewer may be returned.
        method: "quantile" (equal mass; edges are observed scores) or "uniform" (equal width).
        edges: reuse the edges returned by an earlier call (to put new data, e.g. the labelled
            examples, into the strata of the pool); K and method are then ignored.

    Returns:
        (labels, edges): (n,) int64 labels in 0..K'-1 and (K'+1,) increasing edges. Bin k is
        [edges[k], edges[k+1]); scores outside [edges[0], edges[-1]] go to the end bins.

    >>> labels, edges = make_strata([0.1, 0.2, 0.3, 0.4], K=2)
    >>> labels.tolist(), edges.tolist()
    ([0, 0, 1, 1], [0.1, 0.3, 0.4])
    """
    s = as_float_array("scores", scores, ndim=(1,))
    if edges is not None:
        e = as_float_array("edges", edges, ndim=(1,))
        if e.shape[0] < 2 or np.any(np.diff(e) <= 0):
            raise ValueError("edges must be strictly increasing with at least 2 entries")
    else:
        K = _check_int("K", K, 1)
        lo, hi = s.min(), s.max()
        if method == "quantile":  # cut points are observed scores, so no bin is empty
            cuts = np.quantile(s, np.linspace(0, 1, K + 1)[1:-1], method="higher")
        elif method == "uniform":
            cuts = np.linspace(lo, hi, K + 1)[1:-1]
        else:
            raise ValueError(f"method must be 'quantile' or 'uniform', got {method!r}")
        cuts = np.unique(cuts[cuts > lo])
        top = hi if (cuts.size == 0 or hi > cuts[-1]) else np.nextafter(hi, np.inf)
        if top == lo:  # constant scores: a single stratum
            top = np.nextafter(lo, np.inf)
        e = np.r_[lo, cuts, top]
    labels = np.searchsorted(e[1:-1], s, side="right").astype(np.int64)
    return labels, e
