"""Cycle finding and gather/scatter between node features and subgraph occurrences."""

from __future__ import annotations

from typing import Any

import numpy as np

from ._checks import check_int
from ._validation import check_adjacency, check_edge_index, check_sizes

__all__ = ["cycle_adjacency", "cycle_index", "find_cycles", "find_template"]


def _neighbours(edges: np.ndarray, num_nodes: int) -> list[list[int]]:
    nbrs: list[set[int]] = [set() for _ in range(num_nodes)]
    for u, v in edges.T.tolist():
        if u != v:  # a self-loop is on no cycle of length >= 3
            nbrs[u].add(v)
            nbrs[v].add(u)
    return [sorted(s) for s in nbrs]


def find_cycles(edge_index: Any, num_nodes: int, *, sizes: Any = (5, 6)) -> list[tuple[int, ...]]:
    """All simple cycles whose length is in ``sizes``, each exactly once, in cyclic order.

    The graph is undirected (one or both directions of each edge; duplicates and self-loops do
    not change the result). Each cycle is a tuple of node ids ``(v0, v1, ..., v_{k-1})`` with
    ``v0`` its smallest node and ``v1 < v_{k-1}`` (one of its two directions), consecutive nodes
    and ``(v_{k-1}, v0)`` adjacent. Cycles are sorted by length, then lexicographically. Cycles
    with chords are included (every simple cycle of the given lengths).
    """
    num_nodes = check_int(num_nodes, "num_nodes", minimum=1)
    sizes = check_sizes(sizes, "sizes")
    edges = check_edge_index(edge_index, "edge_index", num_nodes)
    nbrs = _neighbours(edges, num_nodes)
    wanted = set(sizes)
    max_len = sizes[-1]
    found: list[tuple[int, ...]] = []
    for start in range(num_nodes):
        path = [start]
        on_path = {start}
        # iterative DFS over paths start -> ... using only nodes > start
        stack = [iter([v for v in nbrs[start] if v > start])]
        while stack:
            nxt = next(stack[-1], None)
            if nxt is None:
                stack.pop()
                on_path.discard(path.pop())
                continue
            if nxt in on_path:
                continue
            path.append(nxt)
            on_path.add(nxt)
            k = len(path)
            if k in wanted and k >= 3 and path[1] < path[-1] and start in nbrs[nxt]:
                found.append(tuple(path))
            if k < max_len:
                stack.append(iter([v for v in nbrs[nxt] if v > start and v not in on_path]))
            else:
                on_path.discard(path.pop())
    found.sort(key=lambda c: (len(c), c))
    return found


def find_template(edge_index: Any, num_nodes: int, template_adj: Any) -> list[tuple[int, ...]]:
    """Every occurrence of a small template subgraph, each once, in the template's node order.

    An occurrence is a set of graph edges forming a copy of the template (not necessarily
    induced: extra edges among its nodes are allowed, as in :func:`find_cycles`). Each is given
    as a tuple ``(g_0, ..., g_{m-1})`` with ``g_i`` the graph node playing template node i, so
    that ``x[list(occurrence)]`` is in the order of ``SchurLayer(template_adj, ...)``: the
    lexicographically smallest of the equivalent orders (the template's automorphisms permute
    them). Sorted lexicographically. Template edge weights are read as present/absent.
    """
    num_nodes = check_int(num_nodes, "num_nodes", minimum=1)
    edges = check_edge_index(edge_index, "edge_index", num_nodes)
    t = check_adjacency(template_adj, "template_adj") > 0
    m = len(t)
    if m > num_nodes:
        return []
    nbrs = [set(v) for v in _neighbours(edges, num_nodes)]
    # template nodes in an order where each one (after the first of its component) is adjacent
    # to an earlier one, so candidates come from a neighbour's neighbours
    order: list[int] = []
    for root in sorted(range(m), key=lambda i: -int(t[i].sum())):
        if root in order:
            continue
        order.append(root)
        frontier = [root]
        while frontier:
            nxt = [j for i in frontier for j in np.flatnonzero(t[i]).tolist() if j not in order]
            nxt = list(dict.fromkeys(nxt))
            order += nxt
            frontier = nxt
    earlier = [[j for j in order[:pos] if t[i, j]] for pos, i in enumerate(order)]
    deg = t.sum(axis=1)
    found: dict[frozenset, tuple[int, ...]] = {}
    image = [-1] * m
    used: set[int] = set()

    def extend(pos: int) -> None:
        if pos == m:
            key = frozenset(
                frozenset((image[i], image[j])) for i in range(m) for j in range(i) if t[i, j]
            )
            cand = tuple(image)
            if key not in found or cand < found[key]:
                found[key] = cand
            return
        i = order[pos]
        if earlier[pos]:
            pool = set.intersection(*(nbrs[image[j]] for j in earlier[pos]))
        else:
            pool = set(range(num_nodes))
        for g in sorted(pool - used):
            if len(nbrs[g]) < deg[i]:
                continue
            image[i] = g
            used.add(g)
            extend(pos + 1)
            used.discard(g)
        image[i] = -1

    extend(0)
    return sorted(found.values())


def cycle_index(edge_index: Any, num_nodes: int, *, sizes: Any = (5, 6)) -> dict[int, Any]:
    """``find_cycles`` as ``{size: LongTensor [K, size]}`` (every size present, K may be 0),
    the layout ``SchurGNN.forward(..., cycles=...)`` takes."""
    import torch

    sizes = check_sizes(sizes, "sizes")
    cycles = find_cycles(edge_index, num_nodes, sizes=sizes)
    out = {}
    for k in sizes:
        rows = [c for c in cycles if len(c) == k]
        out[k] = torch.tensor(rows, dtype=torch.long).reshape(len(rows), k)
    return out


def cycle_adjacency(size: int) -> np.ndarray:
    """Adjacency [size, size] of the cycle 0-1-...-(size-1)-0: the template of a found cycle."""
    size = check_int(size, "size", minimum=3)
    a = np.zeros((size, size))
    i = np.arange(size)
    a[i, (i + 1) % size] = 1.0
    a[(i + 1) % size, i] = 1.0
    return a
