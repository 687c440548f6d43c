"""Generators: sizes, closedness, tree shape, determinism, and posets against brute force."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from _reference import naive_is_tc_dag
from dag_sidigraph import (
    balanced_tree,
    enumerate_posets,
    is_tc_dag,
    ncrp,
    num_posets,
    price_dag,
    transitive_reduction,
)


@pytest.mark.parametrize(("b", "d", "n"), [(2, 10, 2047), (3, 5, 364), (1, 4, 5), (5, 0, 1)])
def test_balanced_tree_shape(b, d, n):
    a = balanced_tree(b, d)
    assert a.shape == (n, n) and a.dtype == bool
    assert is_tc_dag(a)
    t = transitive_reduction(a)
    indeg = t.sum(axis=0)
    assert indeg[0] == 0 and np.all(indeg[1:] == 1)  # a tree rooted at 0
    out = t.sum(axis=1)
    inner = out > 0
    if n > 1:
        assert np.all(out[inner] == b)
    # depth of every node = number of ancestors; leaves all at depth d
    depth = a.sum(axis=0)
    assert depth.max() == d and np.all(depth[~inner] == d)


def test_ncrp_is_a_tree_with_exactly_n_nodes_and_reproducible():
    for alpha in (1.0, 10.0, 500.0):
        a = ncrp(300, alpha, rng=0)
        assert a.shape == (300, 300) and is_tc_dag(a)
        indeg = transitive_reduction(a).sum(axis=0)
        assert indeg[0] == 0 and np.all(indeg[1:] == 1)
    np.testing.assert_array_equal(ncrp(100, 10.0, rng=3), ncrp(100, alpha=10.0, rng=3))
    assert not np.array_equal(ncrp(100, 10.0, rng=3), ncrp(100, 10.0, rng=4))


def test_ncrp_alpha_controls_depth():
    # a CRP with large alpha opens a new table almost always: shallow, bushy trees
    deep = np.mean([ncrp(400, 1.0, rng=s).sum(axis=0).max() for s in range(3)])
    shallow = np.mean([ncrp(400, 500.0, rng=s).sum(axis=0).max() for s in range(3)])
    assert deep > 2 * shallow


def test_ncrp_root_fanout_matches_crp_expectation():
    # the root seats n - 1 customers: E[#tables] = sum_i alpha / (alpha + i), i = 0..n-2
    n, alpha = 200, 10.0
    fan = [transitive_reduction(ncrp(n, alpha, rng=s))[0].sum() for s in range(40)]
    expected = sum(alpha / (alpha + i) for i in range(n - 1))
    # the variance of the table count is <= its mean: 4 standard errors
    assert abs(np.mean(fan) - expected) < 4 * np.sqrt(expected / 40)


def test_price_dag():
    a = price_dag(300, 3, 0.1, 1.0, rng=0)
    assert a.shape == (300, 300) and is_tc_dag(a)
    tree = transitive_reduction(price_dag(200, m=1, rng=1))
    indeg = tree.sum(axis=0)
    assert indeg[0] == 0 and np.all(indeg[1:] == 1)  # m = 1: a tree
    assert np.all(np.nonzero(a)[0] < np.nonzero(a)[1])  # older nodes are above newer ones
    np.testing.assert_array_equal(price_dag(50, 2, rng=5), price_dag(50, 2, rng=5))


def test_price_dag_is_preferential():
    # with gamma = 1 and small c, the early nodes collect most children
    t = [transitive_reduction(price_dag(400, 1, 0.1, 1.0, rng=s)).sum(axis=1) for s in range(3)]
    first = np.mean([x[:10].sum() for x in t])
    # uniform attachment (c -> inf) gives the first 10 nodes sum_t min(10, t)/t ~ 10 (1 + ln 40)
    # ~ 47 of the 399 children; preferential attachment far more
    assert first > 100
    uniform = [
        transitive_reduction(price_dag(400, 1, 1e6, 1.0, rng=s)).sum(axis=1) for s in range(3)
    ]
    assert np.mean([x[:10].sum() for x in uniform]) < 80


def _brute_posets(n: int) -> set[bytes]:
    pairs = [(u, v) for u in range(n) for v in range(n) if u != v]
    out = set()
    for bits in itertools.product([False, True], repeat=len(pairs)):
        a = np.zeros((n, n), dtype=bool)
        for (u, v), b in zip(pairs, bits):
            a[u, v] = b
        if naive_is_tc_dag(a):
            out.add(a.tobytes())
    return out


@pytest.mark.parametrize("n", [0, 1, 2, 3, 4])
def test_enumerate_posets_matches_brute_force(n):
    posets = enumerate_posets(n)
    assert posets.shape == (num_posets(n), n, n) and posets.dtype == bool
    got = [p.tobytes() for p in posets]
    assert len(set(got)) == len(got)  # each once
    if n <= 3:
        assert set(got) == _brute_posets(n)
    else:
        assert all(naive_is_tc_dag(p) for p in posets)


def test_enumerate_posets_counts_a001035():
    assert [len(enumerate_posets(n)) for n in range(6)] == [1, 1, 3, 19, 219, 4231]
