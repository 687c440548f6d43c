"""Generators, ego-nets and the sample-complexity diagnostics against brute force."""

import itertools

import gnn_individualize as gi
import numpy as np
import pytest
from _reference import neighbours, random_graph, random_tree


def test_csl_graph():
    ei = gi.data.csl_graph(41, 5)
    nb = neighbours(ei, 41)
    assert all(len(s) == 4 for s in nb)
    assert nb[0] == {1, 40, 5, 36}
    assert gi.data.undirected_edges(ei, 41).shape == (2, 82)


def test_random_regular_is_simple_and_regular():
    for seed in range(5):
        ei = gi.data.random_regular(30, 3, rng=seed)
        nb = neighbours(ei, 30)
        assert all(len(s) == 3 and v not in s for v, s in enumerate(nb))
        assert ei.shape == (2, 90)
    assert not np.array_equal(
        gi.data.random_regular(30, 3, rng=0), gi.data.random_regular(30, 3, rng=1)
    )
    with pytest.raises(ValueError, match="even"):
        gi.data.random_regular(5, 3)


def test_permuted_copy_moves_edges_with_the_nodes():
    ei = np.array([[0, 1, 2], [1, 2, 3]])
    new, perm = gi.data.permuted_copy(ei, 4, rng=3)
    assert {frozenset(e) for e in new.T.tolist()} == {
        frozenset((int(perm[u]), int(perm[v]))) for u, v in ei.T
    }


def _brute_has_cycle(ei, n, k):
    nb = neighbours(ei, n)
    for nodes in itertools.permutations(range(n), k):
        if nodes[0] == min(nodes) and all(nodes[(i + 1) % k] in nb[nodes[i]] for i in range(k)):
            return True
    return False


def test_has_cycle_against_brute_force():
    rng = np.random.default_rng(0)
    for _ in range(30):
        n = int(rng.integers(4, 8))
        ei = random_graph(rng, n, 0.35)
        for k in (3, 4, 5):
            assert gi.data.has_cycle(ei, n, k) == _brute_has_cycle(ei, n, k)
    assert not gi.data.has_cycle(random_tree(rng, 12), 12, 3)


def test_disjoint_union():
    ei, n, batch = gi.data.disjoint_union([(np.array([[0], [1]]), 2), (np.array([[1], [2]]), 3)])
    assert ei.tolist() == [[0, 3], [1, 4]] and n == 5 and batch.tolist() == [0, 0, 1, 1, 1]


def _naive_ego(nb, v, r):
    dist = {v: 0}
    frontier = [v]
    for d in range(1, r + 1):
        frontier = sorted({w for u in frontier for w in nb[u] if w not in dist})
        for w in frontier:
            dist[w] = d
    nodes = sorted(dist, key=lambda w: (dist[w], w))
    return nodes


@pytest.mark.parametrize("radius", [0, 1, 2, 3])
def test_ego_nets_against_breadth_first_search(radius):
    rng = np.random.default_rng(radius)
    ei = random_graph(rng, 25, 0.12)
    nb = neighbours(ei, 25)
    for v, (nodes, local) in enumerate(gi.ego_nets(ei, 25, radius)):
        want = _naive_ego(nb, v, radius)
        assert nodes.tolist() == want
        induced = {frozenset((a, b)) for a in want for b in nb[a] if b in want}
        got = {frozenset((int(nodes[a]), int(nodes[b]))) for a, b in local.T}
        assert got == induced
        assert local.shape[1] == 2 * len([e for e in induced if len(e) == 2])


def test_ego_batch_individualizes_each_ego_net_on_its_own():
    rng = np.random.default_rng(1)
    ei = random_graph(rng, 20, 0.15)
    eb = gi.ego_batch(ei, 20, radius=2, scheme="tinhofer", bits=5)
    for v, (nodes, local) in enumerate(gi.ego_nets(ei, 20, 2)):
        rows = np.flatnonzero(eb.ego == v)
        assert eb.node[rows].tolist() == nodes.tolist()
        assert np.array_equal(eb.ids[rows], gi.tinhofer(local, len(nodes), bits=5))
    rp = gi.ego_batch(ei, 20, radius=1, scheme="relational_pooling", bits=6, rng=0)
    for v in range(20):
        rows = np.flatnonzero(rp.ego == v)
        ranks = rp.ids[rows] @ (2 ** np.arange(5, -1, -1))
        assert sorted(ranks.tolist()) == list(range(len(rows)))
    none = gi.ego_batch(ei, 20, radius=2, scheme="none")
    assert none.ids.shape == (len(eb.node), 0) and np.array_equal(none.node, eb.node)


def test_count_distinct_inputs():
    rng = np.random.default_rng(2)
    trees = [(random_tree(rng, 15), 15) for _ in range(4)]
    copies = [
        (gi.data.permuted_copy(e, n, rng=int(rng.integers(1 << 30)))[0], n)
        for e, n in trees
        for _ in range(10)
    ]
    assert gi.count_distinct_inputs(copies, "tinhofer") == gi.count_distinct_inputs(
        trees, "tinhofer"
    )
    assert gi.count_distinct_inputs(trees, "tinhofer") <= 4
    assert gi.count_distinct_inputs(copies, "rni", rng=0) == 40
    rp = gi.count_distinct_inputs(copies, "relational_pooling", rng=0)
    assert 36 <= rp <= 40  # 15! labellings of each tree: repeats are very unlikely
    assert gi.count_distinct_inputs(copies, "none") == gi.count_distinct_inputs(trees, "none")
    custom = gi.count_distinct_inputs(copies, lambda e, n: np.zeros((n, 1)))
    assert custom == gi.count_distinct_inputs(copies, "none")
    # the same two graphs with swapped identifiers on an automorphism-free graph differ
    ids = gi.individualize(trees[:1], "tinhofer")[0]
    assert ids.shape == (15, 6)


def _min_cover(pts, eps):
    d = np.sqrt(((pts[:, None] - pts[None]) ** 2).sum(-1)) <= eps
    for k in range(1, len(pts) + 1):
        for centres in itertools.combinations(range(len(pts)), k):
            if d[list(centres)].any(axis=0).all():
                return k
    raise AssertionError


def test_covering_number_against_brute_force_bounds():
    rng = np.random.default_rng(3)
    for _ in range(5):
        small = rng.random((9, 2))
        greedy = gi.covering_number(small, 0.35)
        # the greedy centres form an eps-net that is also an eps-packing, so
        # N(eps) <= greedy <= M(eps) <= N(eps / 2)
        assert _min_cover(small, 0.35) <= greedy <= _min_cover(small, 0.35 / 2)
    pts = rng.random((40, 2))
    assert gi.covering_number(pts, 0.0) == len(np.unique(pts, axis=0))
    assert gi.covering_number(pts, 10.0) == 1
    assert gi.covering_number([[0, 0], [1, 1]], 1.0, norm="linf") == 1
    assert gi.covering_number([[0, 0], [1, 1]], 1.0, norm="l1") == 2
    assert gi.covering_number([[0, 0], [1, 1]], 1.5, norm="l2") == 1


def test_count_distinct_inputs_without_identifiers_counts_wl_classes():
    rng = np.random.default_rng(8)
    trees = [(random_tree(rng, 12), 12) for _ in range(15)]
    # 1-WL identifies trees up to isomorphism: the number of isomorphism classes, by brute force
    from gnn_individualize import wl_equivalent

    classes = []
    for e, n in trees:
        if not any(wl_equivalent(e, n, c, n) for c in classes):
            classes.append(e)
    assert gi.count_distinct_inputs(trees, "none") == len(classes) > 1
    hexagon = np.array([[0, 1, 2, 3, 4, 5], [1, 2, 3, 4, 5, 0]])
    triangles = np.array([[0, 1, 2, 3, 4, 5], [1, 2, 0, 4, 5, 3]])
    assert gi.count_distinct_inputs([(hexagon, 6), (triangles, 6)], "none") == 1  # 1-WL-equivalent
    assert gi.count_distinct_inputs([(hexagon, 6), (triangles, 6)], "tinhofer") == 2


def test_count_distinct_inputs_accepts_scheme_functions_and_bare_edge_arrays():
    from gnn_individualize import relational_pooling, rni, tinhofer_w

    cycle = np.array([[0, 1, 2, 3, 4], [1, 2, 3, 4, 0]])
    copies = [gi.data.permuted_copy(cycle, 5, rng=s)[0] for s in range(10)]
    pairs = [(c, 5) for c in copies]
    assert (
        gi.count_distinct_inputs(copies, gi.tinhofer)
        == gi.count_distinct_inputs(pairs, "tinhofer")
        == 1
    )
    assert gi.count_distinct_inputs(pairs, tinhofer_w) == 1
    assert gi.count_distinct_inputs(pairs, rni, rng=0) == 10
    assert gi.count_distinct_inputs(pairs, relational_pooling, rng=0) > 1
