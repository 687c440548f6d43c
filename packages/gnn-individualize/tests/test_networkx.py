"""1-WL partitions against networkx's Weisfeiler-Lehman hashes (group `test-networkx`)."""

import numpy as np
import pytest
from _reference import random_graph, same_partition
from gnn_individualize import color_refinement, tinhofer_order

nx = pytest.importorskip("networkx")


def _nx_graph(ei, n, labels):
    g = nx.Graph()
    g.add_nodes_from(range(n))
    g.add_edges_from(ei.T.tolist())
    nx.set_node_attributes(g, {v: int(labels[v]) for v in range(n)}, "label")
    return g


@pytest.mark.parametrize("seed", range(8))
def test_partition_after_each_round_matches_networkx_hashes(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(10, 60))
    ei = random_graph(rng, n, float(rng.uniform(0.03, 0.2)))
    labels = rng.integers(0, 3, n)
    g = _nx_graph(ei, n, labels)
    hashes = nx.weisfeiler_lehman_subgraph_hashes(g, node_attr="label", iterations=5)
    for h in range(1, 6):
        ours = color_refinement(ei, n, labels=labels, max_iter=h)
        theirs = [hashes[v][h - 1] for v in range(n)]
        assert same_partition(ours, theirs), h


@pytest.mark.parametrize("seed", range(4))
def test_tinhofer_identified_graphs_of_trees_are_isomorphic_in_networkx(seed):
    rng = np.random.default_rng(seed)
    g = nx.random_labeled_tree(25, seed=seed) if hasattr(nx, "random_labeled_tree") else None
    if g is None:
        g = nx.random_tree(25, seed=seed)
    ei = np.array(list(g.edges())).T
    perm = rng.permutation(25)
    a, b = tinhofer_order(ei, 25), tinhofer_order(perm[ei], 25)
    ga, gb = nx.Graph(), nx.Graph()
    ga.add_edges_from((int(a[u]), int(a[v])) for u, v in ei.T)
    gb.add_edges_from((int(b[perm[u]]), int(b[perm[v]])) for u, v in ei.T)
    assert set(map(frozenset, ga.edges())) == set(map(frozenset, gb.edges()))
