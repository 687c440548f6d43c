"""Graph generators and helpers for the paper's synthetic experiments (numpy only).

Graphs are ``(edge_index, num_nodes)`` with ``edge_index`` an int64 array [2, E] holding both
directions of every undirected edge (as torch-geometric expects).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ._checks import check_int, check_rng
from ._validation import Graph, check_edge_index, check_graph, sorted_unique

__all__ = [
    "csl_graph",
    "disjoint_union",
    "has_cycle",
    "permuted_copy",
    "random_regular",
    "undirected_edges",
]


def _both_directions(u: np.ndarray, v: np.ndarray, n: int) -> np.ndarray:
    src = np.concatenate([u, v])
    dst = np.concatenate([v, u])
    key = sorted_unique(src.astype(np.int64) * n + dst)
    return np.stack([key // n, key % n]).astype(np.int64)


def undirected_edges(edge_index: Any, num_nodes: Any) -> np.ndarray:
    """The graph's undirected edges, each once as ``(u, v)`` with ``u <= v``, sorted: [2, E'].

    >>> undirected_edges([[0, 1, 1], [1, 0, 2]], 3).tolist()
    [[0, 1], [1, 2]]
    """
    g = check_graph(edge_index, num_nodes)
    return _graph_edges(g)


def _graph_edges(g: Graph) -> np.ndarray:
    row = g.row
    keep = row <= g.nbrs
    return np.stack([row[keep], g.nbrs[keep]])


def csl_graph(n: Any, skip: Any) -> np.ndarray:
    """Circular skip link graph: the n-cycle plus the chords ``i -- i + skip (mod n)``.

    All CSL graphs with the same n are 4-regular (2n edges, for 2 <= skip < n/2) and
    indistinguishable by 1-WL. Returns edge_index [2, 4n] (both directions).

    >>> csl_graph(6, 2).shape
    (2, 24)
    """
    n = check_int(n, "n", minimum=5)
    skip = check_int(skip, "skip", minimum=2, maximum=n - 2)
    i = np.arange(n, dtype=np.int64)
    u = np.concatenate([i, i])
    v = np.concatenate([(i + 1) % n, (i + skip) % n])
    return _both_directions(u, v, n)


def random_regular(n: Any, d: Any, *, rng: Any = None, max_tries: int = 1000) -> np.ndarray:
    """A uniformly random simple d-regular graph on n nodes (pairing model with rejection).

    Returns edge_index [2, n*d] (both directions).

    >>> random_regular(10, 3, rng=0).shape
    (2, 30)
    """
    n = check_int(n, "n", minimum=1)
    d = check_int(d, "d", minimum=0, maximum=n - 1)
    gen = check_rng(rng)
    max_tries = check_int(max_tries, "max_tries", minimum=1)
    if (n * d) % 2:
        raise ValueError(f"n * d must be even for a d-regular graph, got n={n}, d={d}")
    stubs = np.repeat(np.arange(n, dtype=np.int64), d)
    for _ in range(max_tries):
        p = gen.permutation(stubs).reshape(-1, 2)
        u, v = p[:, 0], p[:, 1]
        if np.any(u == v):
            continue
        a, b = np.minimum(u, v), np.maximum(u, v)
        if len(sorted_unique(a * n + b)) < len(a):
            continue
        return _both_directions(u, v, n)
    raise ValueError(f"no simple {d}-regular graph on {n} nodes found in max_tries={max_tries}")


def permuted_copy(
    edge_index: Any, num_nodes: Any, *, rng: Any = None
) -> tuple[np.ndarray, np.ndarray]:
    """The graph with its nodes renumbered by a uniformly random permutation.

    Returns ``(edge_index', perm)``: node v of the input is node ``perm[v]`` of the copy, so
    node features move as ``x_new[perm] = x``.

    >>> ei, perm = permuted_copy([[0, 1], [1, 2]], 3, rng=0)
    >>> sorted(perm.tolist())
    [0, 1, 2]
    """
    ei, n = check_edge_index(edge_index, num_nodes)
    gen = check_rng(rng)
    perm = gen.permutation(n).astype(np.int64)
    return perm[ei], perm


def disjoint_union(graphs: Sequence[tuple[Any, Any]]) -> tuple[np.ndarray, int, np.ndarray]:
    """``(edge_index, num_nodes, batch)`` of the disjoint union of ``[(edge_index, n), ...]``;
    ``batch[v]`` is the index of the graph that node v comes from.

    >>> ei, n, batch = disjoint_union([([[0], [1]], 2), ([[0], [1]], 3)])
    >>> ei.tolist(), n, batch.tolist()
    ([[0, 2], [1, 3]], 5, [0, 0, 1, 1, 1])
    """
    if isinstance(graphs, str | bytes) or not isinstance(graphs, Sequence):
        raise TypeError(
            f"graphs must be a sequence of (edge_index, num_nodes) pairs, got {type(graphs).__name__}"
        )
    if len(graphs) == 0:
        raise ValueError("graphs must not be empty")
    parts, batches, offset = [], [], 0
    for i, item in enumerate(graphs):
        if not isinstance(item, tuple | list) or len(item) != 2:
            raise TypeError(
                f"graphs[{i}] must be an (edge_index, num_nodes) pair, got {type(item).__name__}"
            )
        ei, n = check_edge_index(item[0], item[1], f"graphs[{i}] edge_index")
        parts.append(ei + offset)
        batches.append(np.full(n, i, dtype=np.int64))
        offset += n
    return np.concatenate(parts, axis=1), offset, np.concatenate(batches)


def has_cycle(edge_index: Any, num_nodes: Any, k: Any) -> bool:
    """Whether the graph contains a simple cycle of length exactly k (k >= 3), by depth-first
    search from each node over larger-numbered nodes (exponential in k; meant for small k).

    >>> has_cycle([[0, 1, 2], [1, 2, 0]], 3, 3), has_cycle([[0, 1, 2], [1, 2, 0]], 3, 4)
    (True, False)
    """
    g = check_graph(edge_index, num_nodes)
    k = check_int(k, "k", minimum=3)
    if k > g.num_nodes:
        return False
    adj = [set(g.nbrs[g.indptr[v] : g.indptr[v + 1]].tolist()) - {v} for v in range(g.num_nodes)]
    for start in range(g.num_nodes):
        # cycles whose smallest node is `start`
        stack = [(start, (start,))]
        while stack:
            v, path = stack.pop()
            if len(path) == k:
                if start in adj[v]:
                    return True
                continue
            for w in adj[v]:
                if w > start and w not in path:
                    stack.append((w, path + (w,)))
    return False
