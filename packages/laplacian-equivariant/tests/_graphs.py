"""Small templates and brute-force references shared by the tests (independent of the package)."""

import itertools

import numpy as np


def adjacency(m, edges):
    a = np.zeros((m, m))
    for u, v in edges:
        a[u, v] = a[v, u] = 1.0
    return a


def cycle(m):
    return adjacency(m, [(i, (i + 1) % m) for i in range(m)])


def path(m):
    return adjacency(m, [(i, i + 1) for i in range(m - 1)])


def star(leaves):
    return adjacency(leaves + 1, [(0, i) for i in range(1, leaves + 1)])


def clique(m):
    return adjacency(m, list(itertools.combinations(range(m), 2)))


def automorphisms(a):
    """Every permutation p with a[p][:, p] == a: brute-force backtracking over partial maps
    (a partial map is extended only while it preserves adjacency with the nodes mapped so far)."""
    m = len(a)
    out = []

    def extend(p):
        i = len(p)
        if i == m:
            out.append(np.array(p))
            return
        for v in range(m):
            if v not in p and all(a[i, j] == a[v, p[j]] for j in range(i)) and a[i, i] == a[v, v]:
                extend(p + [v])

    extend([])
    assert all(np.array_equal(a[np.ix_(p, p)], a) for p in out)
    return out


def perm_matrix(p):
    m = len(p)
    q = np.zeros((m, m))
    q[np.arange(m), p] = 1.0  # (Q x)[i] = x[p[i]]
    return q


def orbits_on_pairs(a):
    """Number of orbits of Aut(a) on ordered pairs (i, j): the dimension of its commutant."""
    m = len(a)
    seen, count = set(), 0
    auts = automorphisms(a)
    for i in range(m):
        for j in range(m):
            if (i, j) in seen:
                continue
            count += 1
            for p in auts:
                seen.add((int(p[i]), int(p[j])))
    return count


PAPER_COUNTS = {
    "C6": (cycle(6), 4),
    "C5": (cycle(5), 3),
    "C4": (cycle(4), 3),
    "C3": (cycle(3), 2),
    "star4": (star(4), 3),
    "star3": (star(3), 3),
    "P3": (path(3), 3),
    "K4": (clique(4), 2),
    "K5": (clique(5), 2),
}
