"""Shared test helpers: small random graphs given in messy form (one or both directions,
duplicates, self-loops) and their clean neighbour sets, built by plain Python loops."""

import numpy as np
import pytest


def random_messy_graph(seed, n=12, p=0.3, num_classes=3, feat_dim=4):
    """(edge_index with duplicates/self-loops/one direction, y, X, neighbour sets)."""
    gen = np.random.default_rng(seed)
    nbrs = [set() for _ in range(n)]
    pairs = []
    for i in range(n):
        for j in range(i + 1, n):
            if gen.random() < p:
                nbrs[i].add(j)
                nbrs[j].add(i)
                # one direction, both, or a duplicate
                choice = gen.integers(3)
                pairs.append((i, j) if choice == 0 else (j, i))
                if choice >= 1:
                    pairs.append((i, j))
                if choice == 2:
                    pairs.append((j, i))
    for i in gen.choice(n, size=2, replace=False):
        pairs.append((int(i), int(i)))  # self-loops are ignored
    order = gen.permutation(len(pairs))
    edge_index = np.array([pairs[k] for k in order]).T
    y = gen.integers(0, num_classes, size=n)
    y[:num_classes] = np.arange(num_classes)  # every class present
    x = gen.normal(size=(n, feat_dim))
    return edge_index, y, x, nbrs


def dense_adjacency(nbrs):
    n = len(nbrs)
    a = np.zeros((n, n))
    for i, s in enumerate(nbrs):
        for j in s:
            a[i, j] = 1.0
    return a


@pytest.fixture(params=range(6))
def messy(request):
    return random_messy_graph(request.param, n=10 + 3 * request.param)
