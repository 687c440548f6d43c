"""Independent, deliberately naive references (pure Python, dict/tuple based) for the tests."""

from __future__ import annotations

import numpy as np


def neighbours(edge_index, n):
    nb = [set() for _ in range(n)]
    for u, v in np.asarray(edge_index).T.tolist():
        nb[u].add(v)
        nb[v].add(u)
    return nb


def naive_round(colors, nb):
    """One 1-WL round with signature (colour, degree, sorted neighbour colours), ids by sorted
    signature (the order the package documents)."""
    sig = [(colors[v], len(nb[v]), tuple(sorted(colors[u] for u in nb[v]))) for v in range(len(nb))]
    ids = {s: i for i, s in enumerate(sorted(set(sig)))}
    return [ids[s] for s in sig]


def naive_refinement(edge_index, n, labels=None, max_iter=None):
    nb = neighbours(edge_index, n)
    if labels is None:
        colors = [0] * n
    else:
        ids = {x: i for i, x in enumerate(sorted(set(labels)))}
        colors = [ids[x] for x in labels]
    rounds = 0
    while max_iter is None or rounds < max_iter:
        if len(set(colors)) == n:
            break
        new = naive_round(colors, nb)
        rounds += 1
        stable = len(set(new)) == len(set(colors))
        colors = new
        if stable:
            break
    return colors


def naive_tinhofer(edge_index, n):
    """Tinhofer's procedure as documented: refine; individualize the smallest-index node of the
    smallest non-singleton class (placing it first in its class); repeat."""
    nb = neighbours(edge_index, n)

    def refine(colors):
        while True:
            new = naive_round(colors, nb)
            if len(set(new)) == len(set(colors)):
                return new
            colors = new

    colors = refine([0] * n)
    while len(set(colors)) < n:
        counts = {}
        for c in colors:
            counts[c] = counts.get(c, 0) + 1
        c = min(k for k, m in counts.items() if m > 1)
        v = min(i for i in range(n) if colors[i] == c)
        colors = [2 * x + 1 for x in colors]
        colors[v] -= 1
        ids = {x: i for i, x in enumerate(sorted(set(colors)))}
        colors = refine([ids[x] for x in colors])
    return colors


def same_partition(a, b) -> bool:
    a, b = list(a), list(b)
    return len(set(zip(a, b))) == len(set(a)) == len(set(b))


def random_graph(rng, n, p):
    iu = np.triu_indices(n, 1)
    keep = rng.random(len(iu[0])) < p
    return np.stack([iu[0][keep], iu[1][keep]]).astype(np.int64)


def random_tree(rng, n):
    parents = [int(rng.integers(0, i)) for i in range(1, n)]
    return np.array([parents, list(range(1, n))], dtype=np.int64).reshape(2, n - 1)


def permute(edge_index, perm):
    return np.asarray(perm)[np.asarray(edge_index)]
