"""Gradient similarity within clusters (the theory claim of S2L)."""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from ._checks import check_array
from ._validation import check_labels

__all__ = ["GradientSimilarity", "gradient_similarity"]


class GradientSimilarity(NamedTuple):
    """Mean cosine similarity over same-label pairs (``intra``) and over all pairs
    (``overall``), pairs i < j."""

    intra: float
    overall: float


def gradient_similarity(G: Any, labels: Any) -> GradientSimilarity:
    """Mean pairwise cosine of per-example gradients ``G`` ``[n, p]``: over the pairs i < j with
    the same label, and over all pairs i < j. A zero gradient row (no direction) raises
    ``ValueError``, as do labels without any same-label pair."""
    g = check_array(G, "G", ndim=2)
    y = check_labels(labels)
    n = g.shape[0]
    if y.shape[0] != n:
        raise ValueError(f"labels has {y.shape[0]} entries but G has {n} rows; they must match")
    if n < 2:
        raise ValueError(f"G must have at least 2 rows, got {n}")
    norms = np.linalg.norm(g, axis=1)
    if np.any(norms == 0):
        raise ValueError(f"G has {int(np.sum(norms == 0))} zero row(s): cosine undefined")
    u = g / norms[:, None]
    total = u.sum(axis=0)
    overall = (float(total @ total) - n) / (n * (n - 1))
    _, inverse, counts = np.unique(y, return_inverse=True, return_counts=True)
    pairs = int(np.sum(counts * (counts - 1) // 2))
    if pairs == 0:
        raise ValueError("labels must put at least two rows in one cluster, got all distinct")
    sums = np.zeros((counts.shape[0], u.shape[1]))
    np.add.at(sums, inverse, u)
    intra = (float(np.einsum("ij,ij->", sums, sums)) - n) / (2 * pairs)
    return GradientSimilarity(intra=intra, overall=overall)
