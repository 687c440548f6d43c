"""The training scheme's sub-problems: random contiguous subpaths of labelled tours."""

from __future__ import annotations

from typing import Any

import numpy as np

from ._checks import check_rng
from ._validation import check_index_array, require_permutations

__all__ = ["MIN_SUBPATH", "sample_subpaths", "subpath_nodes"]

MIN_SUBPATH = 4


def subpath_nodes(tours: np.ndarray, length: int, offsets: np.ndarray, reverse: np.ndarray):
    """The ``length`` consecutive nodes of each (cyclic) tour from ``offsets``, each row reversed
    where ``reverse`` is True: int64 ``[B, length]``. Inputs are assumed checked."""
    n = tours.shape[1]
    idx = (offsets[:, None] + np.arange(length)[None, :]) % n
    nodes = np.take_along_axis(tours, idx, axis=1)
    nodes[reverse] = nodes[reverse, ::-1]
    return nodes


def sample_subpaths(tours: Any, *, rng: Any = None) -> np.ndarray:
    """Random sub-problems of labelled tours, as in LEHD's training scheme.

    One length ``l ~ U{4..n}`` per call (shared by the batch); per tour a uniform offset and a
    reversal with probability 1/2. Returns the node indices ``[B, l]``: the sub-problem is "start
    at ``nodes[:, 0]``, visit all of them, end at ``nodes[:, -1]``", and the labelled order is
    optimal for it whenever the tour is optimal."""
    t = check_index_array(tours, "tours", ndim=2)
    n = t.shape[1]
    if n < MIN_SUBPATH:
        raise ValueError(f"tours must have at least {MIN_SUBPATH} nodes per row, got {n}")
    require_permutations(t, n, "tours")
    gen = check_rng(rng, "rng")
    length = int(gen.integers(MIN_SUBPATH, n + 1))
    offsets = gen.integers(0, n, size=t.shape[0])
    reverse = gen.random(t.shape[0]) < 0.5
    return subpath_nodes(t, length, offsets, reverse)
