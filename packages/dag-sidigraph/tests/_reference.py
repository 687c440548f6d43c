"""Independent, deliberately naive references (loops and sets, no shared code with the package)."""

from __future__ import annotations

import itertools

import numpy as np


def floyd_warshall_closure(a: np.ndarray) -> np.ndarray:
    r = np.array(a, dtype=bool)
    n = len(r)
    for w in range(n):
        for u in range(n):
            if r[u, w]:
                for v in range(n):
                    if r[w, v]:
                        r[u, v] = True
    return r


def naive_reduction(closed: np.ndarray) -> np.ndarray:
    n = len(closed)
    t = np.zeros_like(closed)
    for u, v in itertools.product(range(n), repeat=2):
        if closed[u, v] and not any(closed[u, w] and closed[w, v] for w in range(n)):
            t[u, v] = True
    return t


def naive_is_tc_dag(a: np.ndarray) -> bool:
    n = len(a)
    if any(a[u, u] for u in range(n)):
        return False
    for u, w, v in itertools.product(range(n), repeat=3):
        if a[u, w] and a[w, v] and not a[u, v]:
            return False
    return True  # irreflexive + transitive => antisymmetric => acyclic


def naive_minimal_negatives(e: np.ndarray) -> set[tuple[int, int]]:
    """The brief's set definition: incomparable (u, v), every parent of u above v, every child of
    v below u (parents/children in the reduction)."""
    n = len(e)
    edges = {(u, v) for u in range(n) for v in range(n) if e[u, v]}
    red = {
        (u, v) for (u, v) in edges if not any((u, w) in edges and (w, v) in edges for w in range(n))
    }
    parents = {x: {p for (p, c) in red if c == x} for x in range(n)}
    children = {x: {c for (p, c) in red if p == x} for x in range(n)}
    out = set()
    for u, v in itertools.product(range(n), repeat=2):
        if u == v or (u, v) in edges or (v, u) in edges:
            continue
        if all((p, v) in edges for p in parents[u]) and all((u, c) in edges for c in children[v]):
            out.add((u, v))
    return out


def random_dag(n: int, p: float, rng: np.random.Generator) -> np.ndarray:
    """A random DAG with its nodes shuffled (not in topological order)."""
    a = np.triu(rng.random((n, n)) < p, 1)
    perm = rng.permutation(n)
    return a[np.ix_(perm, perm)]


def consistent(posets: np.ndarray, pos, neg) -> np.ndarray:
    """Which of the posets [K, n, n] contain every pos edge and no neg edge."""
    pos = np.asarray(pos).reshape(2, -1)
    neg = np.asarray(neg).reshape(2, -1)
    ok = posets[:, pos[0], pos[1]].all(axis=1)
    ok &= ~posets[:, neg[0], neg[1]].any(axis=1)
    return ok


def dfs_intervals(tree_closure: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Nested intervals [lo, hi] in [0, 1] of a forest (entry and exit times of a DFS along the
    reduction): I_v inside I_u iff u is above v, disjoint otherwise."""
    n = len(tree_closure)
    depth = tree_closure.sum(axis=0)  # in a forest: u is v's parent iff depths differ by 1
    t = tree_closure & (depth[None, :] == depth[:, None] + 1)
    lo, hi = np.zeros(n), np.zeros(n)
    clock = [0]

    def dfs(u):
        lo[u] = clock[0]
        clock[0] += 1
        for c in np.flatnonzero(t[u]):
            dfs(c)
        hi[u] = clock[0]
        clock[0] += 1

    for root in np.flatnonzero(t.sum(axis=0) == 0):
        dfs(root)
    return lo / clock[0], hi / clock[0]
