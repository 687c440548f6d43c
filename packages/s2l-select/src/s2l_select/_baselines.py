"""The selection baselines of the paper: random, loss (perplexity), EL2N, Data Maps, facility
location."""

from __future__ import annotations

from typing import Any

import numpy as np

from ._checks import check_array, check_int, check_option, check_rng
from ._validation import check_budget, check_labels, check_trajectories

__all__ = [
    "datamap_select",
    "el2n_scores",
    "el2n_select",
    "facility_location_select",
    "loss_select",
    "random_select",
]

_KINDS = ("high", "low", "middle")


def _rank_select(scores: np.ndarray, budget: int, kind: str) -> np.ndarray:
    """Indices by rank of ``scores`` (ties by index): ``low`` = ascending ranks
    [0, budget), ``high`` = the ``budget`` largest (largest first), ``middle`` = ranks
    [(n - budget) // 2, (n - budget) // 2 + budget)."""
    if kind == "high":
        return np.argsort(-scores, kind="stable")[:budget].astype(np.int64)
    order = np.argsort(scores, kind="stable")
    n = scores.shape[0]
    if kind == "low":
        return order[:budget].astype(np.int64)
    start = (n - budget) // 2
    return order[start : start + budget].astype(np.int64)


def random_select(n: int, budget: int, *, rng: Any = None) -> np.ndarray:
    """``budget`` distinct indices of ``range(n)`` uniformly at random (sorted)."""
    n = check_int(n, "n", minimum=1)
    budget = check_budget(budget, n)
    gen = check_rng(rng)
    return np.sort(gen.choice(n, budget, replace=False)).astype(np.int64)


def loss_select(losses: Any, budget: int, *, kind: str) -> np.ndarray:
    """Select by the loss (or perplexity) of each example at one checkpoint.

    ``kind="high"``: the ``budget`` highest losses (highest first); ``"low"``: the lowest
    (lowest first); ``"middle"``: ranks ``(n - budget) // 2`` to ``(n - budget) // 2 + budget - 1``
    of the ascending order. Ties are broken by index (stable sort).
    """
    losses = check_array(losses, "losses", ndim=1)
    budget = check_budget(budget, losses.shape[0])
    kind = check_option(kind, "kind", _KINDS)
    return _rank_select(losses, budget, kind)


def el2n_scores(probs: Any, labels: Any) -> np.ndarray:
    """EL2N = ||p(x) - onehot(y)||_2 per example; ``probs`` ``[n, C]`` or ``[R, n, C]`` (R runs
    or early checkpoints, averaged as in Paul et al., 2021)."""
    p = check_array(probs, "probs", ndim=(2, 3))
    if np.any(p < 0) or np.any(p > 1):
        raise ValueError("probs must hold probabilities in [0, 1]")
    y = check_labels(labels)
    if p.ndim == 2:
        p = p[None]
    n, c = p.shape[1], p.shape[2]
    if y.shape[0] != n:
        raise ValueError(f"labels has {y.shape[0]} entries but probs has {n} examples")
    if np.any(y < 0) or np.any(y >= c):
        raise ValueError(f"labels must be in [0, {c}), got values in [{y.min()}, {y.max()}]")
    onehot = np.zeros((n, c))
    onehot[np.arange(n), y] = 1.0
    return np.linalg.norm(p - onehot[None], axis=2).mean(axis=0)


def el2n_select(probs: Any, labels: Any, budget: int, *, kind: str = "high") -> np.ndarray:
    """Select by EL2N score (:func:`el2n_scores`); ``kind`` as in :func:`loss_select`."""
    scores = el2n_scores(probs, labels)
    budget = check_budget(budget, scores.shape[0])
    kind = check_option(kind, "kind", _KINDS)
    return _rank_select(scores, budget, kind)


def datamap_select(
    trajectories: Any, budget: int, *, measure: str = "variability", kind: str = "high"
) -> np.ndarray:
    """Data Maps (Swayamdipta et al., 2020) from a loss-trajectory matrix ``[n, T]``.

    With the gold-label probability p_t = exp(-loss_t) at each checkpoint, ``confidence`` is the
    mean of p_t over t and ``variability`` its standard deviation (ddof 0). ``kind`` as in
    :func:`loss_select`: ``measure="variability", kind="high"`` = ambiguous examples,
    ``measure="confidence", kind="low"`` = hard-to-learn, ``kind="high"`` = easy-to-learn.
    """
    x = check_trajectories(trajectories)
    budget = check_budget(budget, x.shape[0])
    measure = check_option(measure, "measure", ("variability", "confidence"))
    kind = check_option(kind, "kind", _KINDS)
    if np.any(x < 0):
        raise ValueError("trajectories must hold losses >= 0 (p = exp(-loss))")
    p = np.exp(-x)
    scores = p.std(axis=1) if measure == "variability" else p.mean(axis=1)
    return _rank_select(scores, budget, kind)


def _pairwise_distances(e: np.ndarray) -> np.ndarray:
    from scipy.spatial.distance import pdist, squareform

    return squareform(pdist(e, "euclidean"))  # exact and symmetric, 0 on the diagonal


def facility_location_select(embeddings: Any, budget: int) -> np.ndarray:
    """Greedy maximisation of the facility-location objective
    F(S) = sum_i max_{j in S} s_ij with s_ij = d_max - ||e_i - e_j||_2 (d_max the largest
    pairwise distance), as in CRAIG. Each step adds the example of largest marginal gain (ties,
    up to 1e-9 relative: lowest index). Returns the indices in the order they were added. O(n^2) memory.
    """
    e = check_array(embeddings, "embeddings", ndim=2)
    n = e.shape[0]
    budget = check_budget(budget, n)
    dist = _pairwise_distances(e)
    sim = dist.max() - dist
    best = np.zeros(n)  # max over the empty set: 0 (s >= 0)
    chosen = np.zeros(n, dtype=bool)
    out = np.empty(budget, dtype=np.int64)
    for t in range(budget):
        gains = np.maximum(sim - best[:, None], 0.0).sum(axis=0)
        gains[chosen] = -np.inf
        top = gains.max()
        # ties (up to rounding: 1e-9 relative) go to the lowest index
        j = int(np.flatnonzero(gains >= top - 1e-9 * max(1.0, abs(top)))[0])
        out[t] = j
        chosen[j] = True
        np.maximum(best, sim[:, j], out=best)
    return out
