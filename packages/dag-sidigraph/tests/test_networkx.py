"""Closure and reduction agree with networkx (the `test-networkx` group, run by tests_extras)."""

from __future__ import annotations

import numpy as np
import pytest
from _reference import random_dag
from dag_sidigraph import ncrp, price_dag, transitive_closure, transitive_reduction

nx = pytest.importorskip("networkx")


def _dense(g, n):
    out = np.zeros((n, n), dtype=bool)
    for u, v in g.edges():
        out[u, v] = True
    return out


@pytest.mark.parametrize("seed", range(10))
def test_closure_and_reduction_match_networkx(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 80))
    a = random_dag(n, rng.uniform(0.01, 0.3), rng)
    g = nx.DiGraph()
    g.add_nodes_from(range(n))
    g.add_edges_from(zip(*np.nonzero(a)))
    np.testing.assert_array_equal(transitive_closure(a), _dense(nx.transitive_closure_dag(g), n))
    np.testing.assert_array_equal(transitive_reduction(a), _dense(nx.transitive_reduction(g), n))


def test_closure_of_cyclic_graph_matches_networkx():
    rng = np.random.default_rng(11)
    a = rng.random((30, 30)) < 0.06
    g = nx.DiGraph()
    g.add_nodes_from(range(30))
    g.add_edges_from(zip(*np.nonzero(a)))
    # networkx's reflexive=False puts (u, u) exactly where u lies on a cycle, as ours does
    want = _dense(nx.transitive_closure(g, reflexive=False), 30)
    np.testing.assert_array_equal(transitive_closure(a), want)


def test_generators_reduce_like_networkx():
    for closed in (ncrp(300, 10.0, rng=0), price_dag(300, 4, rng=0)):
        g = nx.from_numpy_array(closed.astype(int), create_using=nx.DiGraph)
        np.testing.assert_array_equal(
            transitive_reduction(closed), _dense(nx.transitive_reduction(g), 300)
        )
