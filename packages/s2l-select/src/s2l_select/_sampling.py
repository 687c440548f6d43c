"""Balanced (water-filling) sampling across clusters and the S2L selector."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ._checks import check_int, check_rng
from ._cluster import cluster_trajectories
from ._validation import check_budget, check_labels, check_strata, check_trajectories

__all__ = ["Allocation", "S2LSelector", "SelectionReport", "balanced_sample", "water_fill"]


def water_fill(sizes: Any, budget: int) -> np.ndarray:
    """Split ``budget`` over groups of the given ``sizes``, smallest group first (ties: the
    given order): with n left and m groups left, a group gets q = floor(n / m), or all of it if
    it has <= q members. Returns the count per group (in the given order). The counts sum to
    ``min(budget, sum(sizes))``."""
    sizes = check_labels(sizes, "sizes")
    if np.any(sizes < 0):
        raise ValueError("sizes must be >= 0")
    budget = check_int(budget, "budget", minimum=0)
    counts = np.zeros(sizes.shape[0], dtype=np.int64)
    left = budget
    order = np.argsort(sizes, kind="stable")
    m = len(order)
    for i, g in enumerate(order):
        q = left // (m - i)
        take = int(sizes[g]) if sizes[g] <= q else q
        counts[g] = take
        left -= take
    return counts


@dataclass(frozen=True)
class Allocation:
    """How one call of :func:`balanced_sample` spent its budget, cluster by cluster.

    ``clusters`` are ``(stratum, label)`` keys (stratum ``None`` without strata) in the order
    they were visited; ``sizes``, ``quotas`` (q = floor(n_left / m_left) when visited; -1 for
    the small clusters) and ``taken`` are aligned with it; ``fill`` is what was drawn from the
    small clusters (size < ``min_cluster_size``) after the water-filling, per stratum.
    """

    clusters: tuple
    sizes: np.ndarray
    quotas: np.ndarray
    taken: np.ndarray
    fill: dict
    strata_budget: dict


def _sample_within(
    labels: np.ndarray,
    members: np.ndarray,
    budget: int,
    min_cluster_size: int,
    gen: np.random.Generator,
    stratum: Any,
    log: dict,
) -> list[np.ndarray]:
    """Water-fill ``budget`` over the clusters of ``labels[members]`` (``members`` sorted)."""
    lab = labels[members]
    uniq, counts = np.unique(lab, return_counts=True)  # uniq ascending: ties by label
    big = counts >= min_cluster_size
    order = np.argsort(counts[big], kind="stable")
    big_labels, big_counts = uniq[big][order], counts[big][order]
    out: list[np.ndarray] = []
    left = budget
    m = len(big_labels)
    for i, (c, size) in enumerate(zip(big_labels, big_counts, strict=True)):
        q = left // (m - i)
        idx = members[lab == c]
        if size <= q:
            chosen = idx
        else:
            chosen = np.sort(gen.choice(idx, q, replace=False))
        out.append(chosen)
        left -= len(chosen)
        log["clusters"].append((stratum, c.item()))
        log["sizes"].append(int(size))
        log["quotas"].append(int(q))
        log["taken"].append(len(chosen))
    small_labels, small_counts = uniq[~big], counts[~big]
    small = members[np.isin(lab, small_labels)]
    fill = np.sort(gen.choice(small, left, replace=False)) if left > 0 else small[:0]
    for c, size in zip(small_labels, small_counts, strict=True):
        log["clusters"].append((stratum, c.item()))
        log["sizes"].append(int(size))
        log["quotas"].append(-1)
        log["taken"].append(int(np.isin(fill, members[lab == c]).sum()))
    log["fill"][stratum] = int(left)
    out.append(fill)
    return out


def _balanced(
    labels: np.ndarray,
    budget: int,
    min_cluster_size: int,
    strata: np.ndarray | None,
    gen: np.random.Generator,
) -> tuple[np.ndarray, Allocation]:
    n = labels.shape[0]
    log: dict = {"clusters": [], "sizes": [], "quotas": [], "taken": [], "fill": {}}
    strata_budget: dict = {}
    parts: list[np.ndarray] = []
    if strata is None:
        parts += _sample_within(labels, np.arange(n), budget, min_cluster_size, gen, None, log)
        strata_budget[None] = budget
    else:
        keys, inverse, sizes = np.unique(strata, return_inverse=True, return_counts=True)
        per = water_fill(sizes, budget)
        for s in np.argsort(sizes, kind="stable"):
            members = np.flatnonzero(inverse == s)
            key = keys[s].item()
            strata_budget[key] = int(per[s])
            parts += _sample_within(labels, members, int(per[s]), min_cluster_size, gen, key, log)
    idx = np.sort(np.concatenate(parts)).astype(np.int64) if parts else np.zeros(0, np.int64)
    alloc = Allocation(
        clusters=tuple(log["clusters"]),
        sizes=np.asarray(log["sizes"], dtype=np.int64),
        quotas=np.asarray(log["quotas"], dtype=np.int64),
        taken=np.asarray(log["taken"], dtype=np.int64),
        fill=log["fill"],
        strata_budget=strata_budget,
    )
    return idx, alloc


def balanced_sample(
    labels: Any,
    budget: int,
    *,
    min_cluster_size: int = 3,
    strata: Any = None,
    rng: Any = None,
) -> np.ndarray:
    """S2L's balanced sampling: ``budget`` distinct indices spread evenly over the clusters.

    The clusters with at least ``min_cluster_size`` members are visited in ascending order of
    size (ties: ascending label). With n of the budget left and m clusters left, the visited
    cluster gets q = floor(n / m): it is taken whole if it has <= q members, otherwise q of its
    members are drawn uniformly without replacement. Whatever is left after the last cluster is
    drawn uniformly from the members of the small clusters (size < ``min_cluster_size``).

    With ``strata`` (one key per example: integers or strings such as a data source) the budget
    is first split over the strata by the same water-filling on the stratum sizes (no minimum
    size), then spent within each stratum as above; a cluster is a (stratum, label) pair.

    Returns the selected indices, sorted ascending (int64, length ``budget``).
    """
    labels = check_labels(labels)
    n = labels.shape[0]
    budget = check_budget(budget, n)
    min_cluster_size = check_int(min_cluster_size, "min_cluster_size", minimum=1)
    strata = check_strata(strata, n)
    gen = check_rng(rng)
    idx, _ = _balanced(labels, budget, min_cluster_size, strata, gen)
    return idx


@dataclass(frozen=True)
class SelectionReport:
    """What :meth:`S2LSelector.select` did: the labels it clustered with, its allocation."""

    labels: np.ndarray
    allocation: Allocation
    n_clusters: dict

    @property
    def cluster_sizes(self) -> np.ndarray:
        return self.allocation.sizes


class S2LSelector:
    """SmallToLarge data selection from a loss-trajectory matrix.

    ``select(trajectories [n, T], budget, *, strata=None)`` clusters the trajectories with
    K-means (:func:`cluster_trajectories`: ``n_clusters``, 20 iterations, scikit-learn; call
    it and :func:`balanced_sample` yourself for faiss) and draws ``budget`` examples with
    :func:`balanced_sample`. With ``strata`` the budget is first water-filled over the strata
    and K-means runs within each stratum (as the original code does per data source); a
    stratum with fewer examples than ``n_clusters`` is clustered into as many clusters as it
    has examples, and a stratum taken whole is not clustered. After ``select``, ``labels_``
    holds the cluster labels (per stratum: labels are local to the stratum) and
    ``report_`` a :class:`SelectionReport`. An int ``rng`` gives the same selection on every
    call; a ``Generator`` advances.
    """

    def __init__(
        self,
        *,
        n_clusters: int = 100,
        min_cluster_size: int = 3,
        rng: Any = None,
    ) -> None:
        self.n_clusters = check_int(n_clusters, "n_clusters", minimum=1)
        self.min_cluster_size = check_int(min_cluster_size, "min_cluster_size", minimum=1)
        check_rng(rng)  # validate now; a seed gives the same selection on every call
        self.rng = rng

    def __repr__(self) -> str:
        return (
            f"S2LSelector(n_clusters={self.n_clusters}, min_cluster_size={self.min_cluster_size}"
            f", rng={self.rng!r})"
        )

    def select(self, trajectories: Any, budget: int, *, strata: Any = None) -> np.ndarray:
        """Indices (sorted, unique, length ``budget``) of the selected examples."""
        x = check_trajectories(trajectories)
        n = x.shape[0]
        budget = check_budget(budget, n)
        strata = check_strata(strata, n)
        gen = check_rng(self.rng)
        labels = np.zeros(n, dtype=np.int64)
        k_used: dict = {}
        if strata is None:
            if self.n_clusters > n:
                raise ValueError(
                    f"n_clusters must be <= the number of trajectories ({n}), got {self.n_clusters}"
                )
            labels = self._cluster(x, self.n_clusters, gen)
            k_used[None] = self.n_clusters
        else:
            keys, inverse, sizes = np.unique(strata, return_inverse=True, return_counts=True)
            per = water_fill(sizes, budget)
            for s in np.argsort(sizes, kind="stable"):
                members = np.flatnonzero(inverse == s)
                if per[s] < len(members):  # a stratum taken whole needs no clustering
                    k = min(self.n_clusters, len(members))
                    labels[members] = self._cluster(x[members], k, gen)
                    k_used[keys[s].item()] = k
                else:
                    k_used[keys[s].item()] = 0
        idx, alloc = _balanced(labels, budget, self.min_cluster_size, strata, gen)
        self.labels_ = labels
        self.report_ = SelectionReport(labels=labels, allocation=alloc, n_clusters=k_used)
        return idx

    def _cluster(self, x: np.ndarray, k: int, gen: np.random.Generator) -> np.ndarray:
        return cluster_trajectories(x, n_clusters=k, rng=gen)
