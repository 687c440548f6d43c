"""Comparing estimated and true structures."""

from __future__ import annotations

import numpy as np
from scipy.optimize import linear_sum_assignment

from ._checks import check_array, describe

__all__ = ["match_hidden", "shd"]


def _sets(value, name: str) -> list[frozenset]:
    if value is None or isinstance(value, str | bytes | np.ndarray):
        raise TypeError(f"{name} must be a list of sets, got {describe(value)}")
    try:
        return [frozenset(int(a) for a in s) for s in value]
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a list of sets of integers") from None


def match_hidden(estimated, true) -> np.ndarray:
    """Match estimated children sets to true ones (maximal total Jaccard similarity).

    Returns ``perm`` (len(estimated),) int: estimated set i is matched to true set
    ``perm[i]``, or -1 when unmatched (more estimated than true sets).
    """
    est = _sets(estimated, "estimated")
    tru = _sets(true, "true")
    perm = -np.ones(len(est), dtype=int)
    if not est or not tru:
        return perm
    sim = np.array([[len(a & b) / max(len(a | b), 1) for b in tru] for a in est])
    rows, cols = linear_sum_assignment(-sim)
    perm[rows] = cols
    return perm


def shd(estimated, true) -> int:
    """Structural Hamming distance between two (k, k) mixed graphs (A[i,j] = 1 ≠ A[j,i]:
    i -> j; both 1: undirected): the number of node pairs whose mark differs (missing, extra,
    reversed, or undirected where the other is directed)."""
    a = check_array(estimated, "estimated", ndim=2, dtype="any").astype(bool)
    b = check_array(true, "true", ndim=2, dtype="any").astype(bool)
    if a.shape != b.shape or a.shape[0] != a.shape[1]:
        raise ValueError(
            f"true must be square with the shape of estimated {a.shape}, got {b.shape}"
        )
    iu = np.triu_indices(a.shape[0], 1)
    return int(np.sum((a[iu] != b[iu]) | (a.T[iu] != b.T[iu])))
