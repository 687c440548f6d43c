"""Euclidean TSP utilities (numpy): instances, tour lengths, classical heuristics, exact DP.

Conventions: ``coords`` is ``[B, n, 2]`` (a single ``[n, 2]`` instance is accepted too, and then
the results are unbatched), a tour is a permutation of ``0..n-1`` and is closed (the last node
returns to the first).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._checks import check_array, check_int, check_rng
from ._validation import check_coords, check_index_array, check_tours, is_permutation_rows

__all__ = [
    "HELD_KARP_MAX_NODES",
    "gap",
    "held_karp",
    "is_valid_tour",
    "nearest_neighbour",
    "random_instances",
    "tour_length",
    "two_opt",
]

HELD_KARP_MAX_NODES = 13


def random_instances(B: int, n: int, *, rng: Any = None) -> np.ndarray:
    """``B`` instances of ``n`` nodes uniform in the unit square: float64 ``[B, n, 2]``."""
    B = check_int(B, "B", minimum=1)
    n = check_int(n, "n", minimum=1)
    gen = check_rng(rng, "rng")
    return gen.random((B, n, 2))


def _unbatched(coords: Any) -> bool:
    return np.ndim(coords) == 2


def distance_matrix(coords: np.ndarray) -> np.ndarray:
    """Euclidean distances ``[B, n, n]`` of checked coordinates ``[B, n, 2]``."""
    diff = coords[:, :, None, :] - coords[:, None, :, :]
    return np.sqrt((diff**2).sum(-1))


def _closed_length(coords: np.ndarray, tours: np.ndarray) -> np.ndarray:
    pts = np.take_along_axis(coords, tours[..., None], axis=1)
    nxt = np.roll(pts, -1, axis=1)
    return np.sqrt(((pts - nxt) ** 2).sum(-1)).sum(-1)


def tour_length(coords: Any, tours: Any) -> np.ndarray:
    """Length of each closed tour: ``[B]`` float64 (a float for a single instance).

    ``tours`` must hold a permutation of ``0..n-1`` per row (``ValueError`` otherwise)."""
    single = _unbatched(coords) and np.ndim(tours) == 1
    c = check_coords(coords, "coords")
    t = check_tours(tours, c, "tours")
    out = _closed_length(c, t)
    return float(out[0]) if single else out


def is_valid_tour(tours: Any, n: Any) -> np.ndarray:
    """Boolean ``[B]``: whether each row of ``tours`` is a permutation of ``0..n-1`` (a bool
    for a single 1-d tour). Out-of-range or repeated nodes and a wrong length give ``False``."""
    n = check_int(n, "n", minimum=1)
    single = np.ndim(tours) == 1
    t = check_index_array(tours, "tours", ndim=(1, 2))
    if t.ndim == 1:
        t = t[None]
    ok = is_permutation_rows(t, n)
    return bool(ok[0]) if single else ok


def gap(length: Any, reference: Any) -> np.ndarray:
    """Optimality gap ``length / reference - 1`` (a fraction, not a percentage)."""
    lengths = check_array(length, "length", ndim=(0, 1))
    ref = check_array(reference, "reference", ndim=(0, 1))
    if np.any(ref <= 0):
        raise ValueError("reference must be > 0")
    if lengths.shape != ref.shape:
        raise ValueError(
            f"reference has shape {ref.shape} but length has {lengths.shape}; they must match"
        )
    return lengths / ref - 1.0


def nearest_neighbour(coords: Any, *, start: Any = 0) -> np.ndarray:
    """Nearest-neighbour tours from node ``start``: int64 ``[B, n]`` (``[n]`` if unbatched)."""
    single = _unbatched(coords)
    c = check_coords(coords, "coords")
    b, n, _ = c.shape
    start = check_int(start, "start", minimum=0, maximum=n - 1)
    tours = np.empty((b, n), dtype=np.int64)
    tours[:, 0] = start
    visited = np.zeros((b, n), dtype=bool)
    visited[:, 0 if n == 0 else start] = True
    rows = np.arange(b)
    cur = np.full(b, start)
    for step in range(1, n):
        d = ((c - c[rows, cur][:, None, :]) ** 2).sum(-1)
        d[visited] = np.inf
        cur = d.argmin(1)
        visited[rows, cur] = True
        tours[:, step] = cur
    return tours[0] if single else tours


def two_opt(coords: Any, tours: Any, *, max_iters: Any = None) -> np.ndarray:
    """Best-improvement 2-opt from ``tours`` until no move shortens any tour (a 2-opt local
    optimum), or ``max_iters`` moves per instance. Returns int64 tours of the input's shape."""
    single = _unbatched(coords) and np.ndim(tours) == 1
    c = check_coords(coords, "coords")
    t = check_tours(tours, c, "tours").copy()
    if max_iters is not None:
        max_iters = check_int(max_iters, "max_iters", minimum=0)
    b, n, _ = c.shape
    if n >= 4:
        dist = distance_matrix(c)
        tol = 1e-12 * max(1.0, float(np.abs(c).max()))
        active = np.arange(b)
        upper = np.triu(np.ones((n, n), dtype=bool), k=2)
        it = 0
        while active.size and (max_iters is None or it < max_iters):
            p = t[active]
            a = np.take_along_axis(
                np.take_along_axis(dist[active], p[:, :, None], axis=1), p[:, None, :], axis=2
            )
            a1 = np.roll(a, (-1, -1), axis=(1, 2))  # a1[i, j] = d(t[i+1], t[j+1])
            e = np.diagonal(np.roll(a, -1, axis=2), axis1=1, axis2=2)  # e[i] = d(t[i], t[i+1])
            delta = a + a1 - e[:, :, None] - e[:, None, :]
            delta[:, ~upper] = 0.0
            flat = delta.reshape(len(active), -1)
            best = flat.argmin(1)
            improving = flat[np.arange(len(active)), best] < -tol
            for k in np.flatnonzero(improving):
                i, j = divmod(int(best[k]), n)
                row = active[k]
                t[row, i + 1 : j + 1] = t[row, i + 1 : j + 1][::-1].copy()
            active = active[improving]
            it += 1
    return t[0] if single else t


def _held_karp_one(d: np.ndarray) -> tuple[np.ndarray, float]:
    n = d.shape[0]
    if n <= 3:
        tour = np.arange(n, dtype=np.int64)
        length = float(sum(d[tour[i], tour[(i + 1) % n]] for i in range(n))) if n > 1 else 0.0
        return tour, length
    m = n - 1  # nodes 1..n-1 as bits 0..m-1; the tour starts at node 0
    full = (1 << m) - 1
    dp = np.full((1 << m, m), np.inf)
    parent = np.full((1 << m, m), -1, dtype=np.int64)
    inner = d[1:, 1:]
    for j in range(m):
        dp[1 << j, j] = d[0, j + 1]
    masks = np.arange(1 << m)
    popcount = np.array([bin(x).count("1") for x in range(1 << m)])
    for size in range(2, m + 1):
        layer = masks[popcount == size]
        for j in range(m):
            sel = layer[(layer >> j) & 1 == 1]
            prev = sel ^ (1 << j)
            cand = dp[prev] + inner[:, j][None, :]
            k = cand.argmin(1)
            dp[sel, j] = cand[np.arange(len(sel)), k]
            parent[sel, j] = k
    closing = dp[full] + d[1:, 0]
    last = int(closing.argmin())
    length = float(closing[last])
    order = []
    mask = full
    while last >= 0:
        order.append(last + 1)
        prev_last = int(parent[mask, last])
        mask ^= 1 << last
        last = prev_last
    tour = np.array([0, *reversed(order)], dtype=np.int64)
    return tour, length


def held_karp(coords: Any) -> tuple[np.ndarray, np.ndarray]:
    """Exact TSP by Held-Karp dynamic programming (n <= 13): ``(tours [B, n], lengths [B])``,
    every tour starting at node 0 (unbatched ``(tour [n], length float)`` for ``[n, 2]``)."""
    single = _unbatched(coords)
    c = check_coords(coords, "coords")
    n = c.shape[1]
    if n > HELD_KARP_MAX_NODES:
        raise ValueError(
            f"coords must have at most {HELD_KARP_MAX_NODES} nodes for held_karp, got {n}"
        )
    dist = distance_matrix(c)
    tours = np.empty((c.shape[0], n), dtype=np.int64)
    for b in range(c.shape[0]):
        tours[b], _ = _held_karp_one(dist[b])
    lengths = _closed_length(c, tours)
    if single:
        return tours[0], float(lengths[0])
    return tours, lengths
