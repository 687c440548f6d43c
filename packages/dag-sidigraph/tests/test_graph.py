"""Closure, reduction, TC-DAG test and the minimal sidigraph against naive references."""

from __future__ import annotations

import dag_sidigraph as ds
import numpy as np
import pytest
from _reference import (
    consistent,
    floyd_warshall_closure,
    naive_is_tc_dag,
    naive_minimal_negatives,
    naive_reduction,
    random_dag,
)


@pytest.mark.parametrize("seed", range(12))
def test_closure_matches_floyd_warshall_on_any_digraph(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 30))
    a = rng.random((n, n)) < rng.uniform(0.02, 0.2)  # cycles and self-loops allowed
    np.testing.assert_array_equal(ds.transitive_closure(a), floyd_warshall_closure(a))


@pytest.mark.parametrize("seed", range(12))
def test_closure_and_reduction_of_random_dags(seed):
    rng = np.random.default_rng(100 + seed)
    n = int(rng.integers(1, 40))
    a = random_dag(n, rng.uniform(0.05, 0.4), rng)
    c = ds.transitive_closure(a)
    np.testing.assert_array_equal(c, floyd_warshall_closure(a))
    t = ds.transitive_reduction(a)
    np.testing.assert_array_equal(t, naive_reduction(c))
    np.testing.assert_array_equal(ds.transitive_reduction(c), t)  # closed or not: same reduction
    np.testing.assert_array_equal(ds.transitive_closure(t), c)
    assert ds.is_tc_dag(c) and naive_is_tc_dag(c)


def test_input_forms_agree():
    rng = np.random.default_rng(5)
    a = random_dag(15, 0.2, rng)
    from scipy import sparse

    want = ds.transitive_closure(a)
    for form in (a.astype(int), a.astype(float), a.tolist(), sparse.csr_matrix(a)):
        np.testing.assert_array_equal(ds.transitive_closure(form), want)
    assert ds.transitive_closure(a).dtype == bool


def test_reduction_of_a_cyclic_graph_is_refused():
    a = np.zeros((3, 3), dtype=bool)
    a[0, 1] = a[1, 2] = a[2, 0] = True
    with pytest.raises(ValueError, match="adj"):
        ds.transitive_reduction(a)
    with pytest.raises(ValueError, match="adj"):
        ds.topological_levels(a)
    c = ds.transitive_closure(a)
    assert c.all()  # every node on the cycle reaches every node, itself included


def test_topological_levels_order_every_edge():
    rng = np.random.default_rng(3)
    a = random_dag(30, 0.15, rng)
    depth = np.empty(30, dtype=int)
    for i, level in enumerate(ds.topological_levels(a)):
        depth[level] = i
    u, v = np.nonzero(a)
    assert np.all(depth[u] < depth[v])


@pytest.mark.parametrize("seed", range(20))
def test_is_tc_dag_matches_naive(seed):
    rng = np.random.default_rng(200 + seed)
    n = int(rng.integers(1, 9))
    a = rng.random((n, n)) < 0.3
    if seed % 2:
        a = ds.transitive_closure(np.triu(a, 1))
    assert ds.is_tc_dag(a) == naive_is_tc_dag(a)


@pytest.mark.parametrize("seed", range(50))
def test_minimal_sidigraph_matches_set_definition(seed):
    # the paper brief's check 2: 50 random TC-DAGs with n = 40
    rng = np.random.default_rng(1000 + seed)
    e = ds.transitive_closure(random_dag(40, rng.uniform(0.02, 0.2), rng))
    pos, neg = ds.minimal_sidigraph(e)
    assert pos.dtype == np.int64 and neg.dtype == np.int64
    assert pos.shape[0] == 2 and neg.shape[0] == 2
    tr = np.zeros_like(e)
    tr[pos[0], pos[1]] = True
    np.testing.assert_array_equal(ds.transitive_closure(tr), e)  # closure(E^tr) = E
    assert set(zip(*neg.tolist())) == naive_minimal_negatives(e)
    assert not e[neg[1], neg[0]].any()  # no negative whose reverse is an edge
    assert not e[neg[0], neg[1]].any()
    np.testing.assert_array_equal(ds.minimal_negatives(e), _mask(neg, 40))
    assert ds.is_distinguishing(e, pos, neg)


def _mask(edges, n):
    m = np.zeros((n, n), dtype=bool)
    m[edges[0], edges[1]] = True
    return m


def test_minimal_sidigraph_is_a_named_tuple_in_row_major_order():
    e = ds.balanced_tree(2, 3)
    result = ds.minimal_sidigraph(e)
    assert isinstance(result, ds.Sidigraph) and isinstance(result, tuple) and len(result) == 2
    for edges in result:
        keys = edges[0] * 1000 + edges[1]
        assert np.all(np.diff(keys) > 0)


def test_minimal_sidigraph_refuses_non_tc_dags():
    chain = np.zeros((3, 3), dtype=bool)
    chain[0, 1] = chain[1, 2] = True  # not closed
    with pytest.raises(ValueError, match="adj"):
        ds.minimal_sidigraph(chain)
    loop = np.eye(2, dtype=bool)
    with pytest.raises(ValueError, match="adj"):
        ds.minimal_sidigraph(loop)
    with pytest.raises(ValueError, match="adj"):
        ds.stats(chain)
    with pytest.raises(ValueError, match="adj"):
        ds.is_distinguishing(chain, np.zeros((2, 0), int), np.zeros((2, 0), int))


def _check_minimality(n: int) -> int:
    """For every poset G on n elements: H* admits only G, and H* minus any single entry admits
    another poset (exhaustive search over all posets on n elements). Returns the poset count."""
    posets = ds.enumerate_posets(n)
    for k, g in enumerate(posets):
        pos, neg = ds.minimal_sidigraph(g)
        ok = consistent(posets, pos, neg)
        assert ok.sum() == 1 and ok[k], f"H* of poset {k} admits {ok.sum()} posets"
        for j in range(pos.shape[1]):
            assert consistent(posets, np.delete(pos, j, axis=1), neg).sum() > 1
        for j in range(neg.shape[1]):
            assert consistent(posets, pos, np.delete(neg, j, axis=1)).sum() > 1
    return len(posets)


def test_minimality_exhaustive_on_all_posets_of_4_elements():
    assert _check_minimality(4) == 219


@pytest.mark.slow
def test_minimality_exhaustive_on_all_posets_of_5_elements():
    assert _check_minimality(5) == 4231


def test_is_distinguishing_matches_brute_force_on_random_sidigraphs():
    rng = np.random.default_rng(7)
    posets = ds.enumerate_posets(4)
    n = 4
    pairs = np.array([(u, v) for u in range(n) for v in range(n) if u != v]).T
    checked = {True: 0, False: 0}
    for _ in range(300):
        g_idx = int(rng.integers(len(posets)))
        g = posets[g_idx]
        # random signed entries agreeing with g (with some H* entries mixed in) or not
        keep = rng.random(pairs.shape[1]) < rng.uniform(0.2, 1.0)
        sel = pairs[:, keep]
        sign = g[sel[0], sel[1]]
        if rng.random() < 0.1:
            sign = ~sign  # usually inconsistent with g
        pos, neg = sel[:, sign], sel[:, ~sign]
        ok = consistent(posets, pos, neg)
        want = bool(ok.sum() == 1 and ok[g_idx])
        assert ds.is_distinguishing(g, pos, neg) == want
        checked[want] += 1
    assert checked[True] > 20 and checked[False] > 20


def test_stats_counts():
    e = ds.balanced_tree(3, 5)  # 364 nodes
    s = ds.stats(e)
    pos, neg = ds.minimal_sidigraph(e)
    assert s.num_nodes == 364
    assert s.num_closure_edges == int(e.sum()) == 3 + 2 * 9 + 3 * 27 + 4 * 81 + 5 * 243
    assert s.num_reduction_edges == pos.shape[1] == 363
    assert s.num_non_edges == 364 * 363 - s.num_closure_edges
    # in a tree, E_H* = (u, leaf v) with u a sibling of a proper ancestor-or-self of v... that is
    # leaves x depth x (b - 1) pairs
    assert s.num_minimal_negatives == neg.shape[1] == 243 * 5 * 2
    assert s.example_ratio == pytest.approx((363 + 2430) / (1641 + s.num_non_edges))
    assert s.positive_ratio == pytest.approx(363 / 1641)
    single = ds.stats(np.zeros((1, 1), dtype=bool))
    assert single.num_closure_edges == 0 and single.example_ratio == 1.0


def test_antichain_and_chain():
    anti = np.zeros((4, 4), dtype=bool)
    pos, neg = ds.minimal_sidigraph(anti)
    assert pos.shape == (2, 0) and neg.shape[1] == 12  # every ordered pair must be excluded
    chain = np.triu(np.ones((4, 4), dtype=bool), 1)
    pos, neg = ds.minimal_sidigraph(chain)
    assert pos.shape[1] == 3 and neg.shape == (2, 0)  # a total order needs no negatives
