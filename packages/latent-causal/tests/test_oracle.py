"""Oracles against an independent reference: d-separation in the full DAG over H and X."""

import itertools

import latent_causal as lc
import networkx as nx
import numpy as np
import pytest


def _full_dag(model, target):
    m, n = model.n_latent, model.n_observed
    g = nx.DiGraph()
    g.add_nodes_from([f"H{i}" for i in range(m)] + [f"X{a}" for a in range(n)])
    for i, j in zip(*np.nonzero(model.latent_adj), strict=True):
        if j != target:
            g.add_edge(f"H{i}", f"H{j}")
    for a, i in zip(*np.nonzero(model.bipartite), strict=True):
        g.add_edge(f"H{i}", f"X{a}")
    return g


def _dsep_udg(model, target):
    g = _full_dag(model, target)
    n = model.n_observed
    out = np.zeros((n, n), dtype=bool)
    for a, b in itertools.combinations(range(n), 2):
        out[a, b] = out[b, a] = not nx.is_d_separator(g, {f"X{a}"}, {f"X{b}"}, set())
    return out


@pytest.mark.parametrize("seed", range(40))
def test_oracle_udg_is_marginal_d_connection(seed):
    rng = np.random.default_rng(seed)
    m = int(rng.integers(1, 5))
    model = lc.random_measurement_model(m, m + int(rng.integers(0, 4)), rng=rng)
    for target in [None, *range(m)]:
        np.testing.assert_array_equal(lc.oracle_udg(model, target), _dsep_udg(model, target))


@pytest.mark.parametrize("seed", range(20))
def test_oracle_shift_set_is_descendant_reachability(seed):
    rng = np.random.default_rng(seed)
    m = int(rng.integers(1, 5))
    model = lc.random_measurement_model(m, m + 2, rng=rng)
    g = _full_dag(model, None)
    for t in range(m):
        expected = {int(v[1:]) for v in nx.descendants(g, f"H{t}") if v.startswith("X")}
        assert lc.oracle_shift_set(model, t) == frozenset(expected)


def test_cyclic_latent_graph_is_a_value_error_naming_latent_adj():
    lat = np.array([[0, 1, 0], [0, 0, 1], [1, 0, 0]])
    with pytest.raises(ValueError, match="latent_adj"):
        lc.MeasurementModel(lat, np.eye(3))
    with pytest.raises(ValueError, match="latent_adj"):
        lc.MeasurementModel(np.eye(2), np.eye(2))  # self-loops


def test_intervention_cuts_only_edges_into_target():
    model = lc.MeasurementModel([[0, 1], [0, 0]], np.eye(2))
    assert lc.oracle_udg(model)[0, 1]
    assert not lc.oracle_udg(model, 1)[0, 1]
    assert lc.oracle_udg(model, 0)[0, 1]  # do(H0) keeps H0 -> H1
    assert lc.oracle_shift_set(model, 0) == {0, 1}
    assert lc.oracle_shift_set(model, 1) == {1}


def test_sampled_dependences_follow_the_oracle():
    # a linear SEM at 4000 samples: strongly dependent pairs are found, independent ones not
    model = lc.MeasurementModel([[0, 1, 0], [0, 0, 0], [0, 0, 0]], np.eye(3))
    envs = lc.sample_environments(model, 4000, rng=1)
    for e, target in enumerate([None, 0, 1, 2]):
        np.testing.assert_array_equal(lc.estimate_udg(envs[e]), lc.oracle_udg(model, target))
