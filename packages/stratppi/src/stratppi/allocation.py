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

import numpy as np

from ._checks import check_array, check_int, check_option

__all__ = ["allocate", "make_strata", "heuristic_sigma", "neyman_variance"]

METHODS = ("proportional", "optimal", "heuristic")


def heuristic_sigma(scores) -> np.ndarray:
    """sigma_k = sqrt(mean_k f (1 - f)) from K arrays of confidence scores in [0, 1].

    Each entry is the scores of one stratum's unlabelled pool (a scalar counts as one score).

    >>> heuristic_sigma([[0.5, 0.5], [1.0, 0.0]]).tolist()
    [0.5, 0.0]
    """
    if isinstance(scores, str | bytes) or not hasattr(scores, "__len__"):
        raise TypeError(
            "scores must be a sequence of K arrays (the scores of each stratum), "
            f"got {type(scores).__name__}"
        )
    if len(scores) == 0:
        raise ValueError("scores must hold one array per stratum, got an empty sequence")
    out = []
    for k, s in enumerate(scores):
        s = check_array(np.atleast_1d(s) if np.ndim(s) == 0 else s, f"scores[{k}]", ndim=1)
        if np.any((s < 0) | (s > 1)):
            raise ValueError(
                f"scores[{k}] must lie in [0, 1] (calibrated confidences), got values in "
                f"[{s.min():.3g}, {s.max():.3g}]"
            )
        out.append(np.sqrt(np.mean(s * (1 - s))))
    return np.asarray(out)


def neyman_variance(n_k, weights, sigma) -> float:
    """Large-pool StratPPI variance sum_k w_k^2 sigma_k^2 / n_k of an allocation.

    >>> neyman_variance([50, 50], [0.5, 0.5], [1.0, 1.0])
    0.01
    """
    n_k = check_array(n_k, "n_k", ndim=1)
    w = _weights(weights, n_k.shape[0])
    s = check_array(sigma, "sigma", ndim=1)
    if s.shape[0] != n_k.shape[0]:
        raise ValueError(f"sigma has length {s.shape[0]} but n_k has {n_k.shape[0]}")
    if np.any(n_k <= 0):
        raise ValueError(f"n_k must be positive, got {n_k.tolist()}")
    return float(np.sum(w**2 * s**2 / n_k))


def _weights(weights, K: int | None = None) -> np.ndarray:
    w = check_array(weights, "weights", ndim=1)
    if K is not None and w.shape[0] != K:
        raise ValueError(f"weights has length {w.shape[0]} but there are {K} strata")
    if np.any(w < 0) or w.sum() <= 0:
        raise ValueError(f"weights must be non-negative and not all zero, got {w.tolist()}")
    return w / w.sum()


def _water_fill(budget: int, rho, lo, hi):
    """The continuous allocation x_k = clip(t rho_k, lo_k, hi_k) with sum_k x_k = budget.

    f(t) = sum_k clip(t rho_k, lo_k, hi_k) is continuous, piecewise linear and non-decreasing,
    so t is solved exactly on the piece between two breakpoints lo_k / rho_k, hi_k / rho_k.
    Needs sum(lo) <= budget <= sum(hi). Strata with rho_k = 0 stay at lo_k unless every other
    stratum is at its cap; then the rest is spread evenly over them (water-filled with rho = 1).
    """
    pos = rho > 0
    x = lo.copy()
    if budget <= lo.sum():
        return x
    if hi[pos].sum() + lo[~pos].sum() <= budget:
        x[pos] = hi[pos]
        x[~pos] = _water_fill(budget - hi[pos].sum(), np.ones((~pos).sum()), lo[~pos], hi[~pos])
        return x
    r, a, b, base = rho[pos] / rho[pos].max(), lo[pos], hi[pos], lo[~pos].sum()

    def f(t):
        return np.clip(t * r, a, b).sum() + base

    with np.errstate(over="ignore", divide="ignore"):  # a tiny rho_k: its breakpoints are inf
        bps = np.unique(np.r_[a / r, b / r])
    bps = bps[np.isfinite(bps)]
    i = int(np.searchsorted([f(t) for t in bps], budget))  # first breakpoint with f >= budget
    t0 = bps[i - 1] if i > 0 else 0.0
    t1 = bps[i] if i < bps.shape[0] else 2.0 * t0 + 1.0  # the last piece is unbounded
    mid = 0.5 * (t0 + t1) * r  # on (t0, t1) the same strata are strictly inside their box
    free = (mid > a) & (mid < b)
    t = (budget - np.clip(mid, a, b)[~free].sum() - base) / r[free].sum() if free.any() else t1
    x[pos] = np.clip(t * r, a, b)
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
            estimates from a pilot sample, see :func:`stratppi.stratum_sigma`).
        scores: sequence of K arrays of autorater confidences in [0, 1] (the unlabelled pool of
            each stratum), needed by "heuristic".
        method: "proportional" (rho_k = w_k), "optimal" (rho_k ~ w_k sigma_k) or "heuristic"
            (rho_k ~ w_k sqrt(mean_k f(1 - f))), Sec. 4.3.
        n_min: minimum labels per stratum (2 is the least that gives a variance; >= 20 is
            safer for the normal approximation).
        caps: optional (K,) integer maximum per stratum (e.g. the stratum sizes N_k).

    Returns:
        (K,) int64 array, each in [n_min, caps], summing exactly to `budget`: the continuous
        allocation clip(t rho_k, n_min, caps_k) (t set so that it sums to the budget) rounded by
        largest remainders. For "optimal" that is the exact minimiser of the large-pool variance
        sum_k w_k^2 sigma_k^2 / n_k within the bounds (its KKT conditions). If every rho_k is 0
        the budget is split proportionally.

    >>> allocate(100, [0.5, 0.3, 0.2]).tolist()
    [50, 30, 20]
    >>> allocate(100, [0.5, 0.5], sigma=[0.1, 0.3], method="optimal").tolist()
    [25, 75]
    >>> allocate(10, [0.9, 0.1], caps=[5, 10]).tolist()
    [5, 5]
    """
    budget = check_int(budget, "budget", minimum=1)
    n_min = check_int(n_min, "n_min", minimum=0)
    method = check_option(method, "method", METHODS)
    w = _weights(weights)
    K = w.shape[0]
    if method == "proportional":
        rho = w.copy()
    elif method == "optimal":
        if sigma is None:
            raise ValueError("sigma is required by method='optimal' (per-stratum sd of Y - lam f)")
        s = check_array(sigma, "sigma", ndim=1)
        if s.shape[0] != K:
            raise ValueError(f"sigma has length {s.shape[0]} but weights has {K}")
        if np.any(s < 0):
            raise ValueError(f"sigma must be non-negative, got {s.tolist()}")
        rho = w * s
    else:
        if scores is None:
            raise ValueError("scores is required by method='heuristic' (K arrays in [0, 1])")
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
        c = check_array(caps, "caps", dtype="int", shape=(K,))
        if np.any(c < n_min):
            raise ValueError(f"caps must each be >= n_min={n_min}, got {c.tolist()}")
        if c.sum() < budget:
            raise ValueError(f"caps sum to {int(c.sum())}, below budget={budget}")
        hi = c.astype(np.float64)
    if K * n_min > budget:
        raise ValueError(f"budget={budget} is below K * n_min = {K} * {n_min}")
    x = _water_fill(budget, rho, lo, hi)
    n_k = np.floor(x).astype(np.int64)  # lo <= n_k <= hi, since lo and hi are integers
    rem = budget - int(n_k.sum())
    frac = np.where(n_k < hi, x - n_k, -np.inf)
    order = np.argsort(-frac, kind="stable")[:rem]
    if rem < 0 or np.any(~np.isfinite(frac[order])):  # pragma: no cover - guarded above
        raise RuntimeError(f"allocation failed to round {x.tolist()} to budget={budget}")
    n_k[order] += 1
    return n_k


def make_strata(scores, *, K=5, method="quantile", edges=None):
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
    s = check_array(scores, "scores", ndim=1)
    if edges is not None:
        e = check_array(edges, "edges", ndim=1)
        if e.shape[0] < 2 or np.any(np.diff(e) <= 0):
            raise ValueError(
                f"edges must be strictly increasing with at least 2 entries, got {e.tolist()}"
            )
    else:
        K = check_int(K, "K", minimum=1)
        method = check_option(method, "method", ("quantile", "uniform"))
        lo, hi = s.min(), s.max()
        if method == "quantile":  # cut points are observed scores, so no bin is empty
            cuts = np.quantile(s, np.linspace(0, 1, K + 1)[1:-1], method="higher")
        else:
            cuts = np.linspace(lo, hi, K + 1)[1:-1]
        cuts = np.unique(cuts[cuts > lo])
        top = hi if (cuts.size == 0 or hi > cuts[-1]) else np.nextafter(hi, np.inf)
        if top == lo:  # constant scores: a single stratum
            top = np.nextafter(lo, np.inf)
        e = np.r_[lo, cuts, top]
    labels = np.searchsorted(e[1:-1], s, side="right").astype(np.int64)
    return labels, e
