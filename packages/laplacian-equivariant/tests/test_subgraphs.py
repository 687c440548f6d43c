"""find_cycles against brute-force enumeration (and networkx where it is installed)."""

import itertools

import numpy as np
import pytest
import scipy.sparse as sp
import torch
from laplacian_equivariant import (
    cycle_adjacency,
    cycle_index,
    find_cycles,
    find_template,
    synthetic_molecules,
)


def _random_edges(rng, n, p):
    iu = np.triu_indices(n, 1)
    keep = rng.random(len(iu[0])) < p
    return np.stack([iu[0][keep], iu[1][keep]])


def brute_force_cycles(edges, n, sizes):
    """All node subsets x all orderings, kept when every consecutive pair is an edge; one
    canonical rotation/reflection per cycle (set of edges)."""
    adj = np.zeros((n, n), dtype=bool)
    adj[edges[0], edges[1]] = adj[edges[1], edges[0]] = True
    found = set()
    for k in sizes:
        for nodes in itertools.combinations(range(n), k):
            first, rest = nodes[0], nodes[1:]
            for order in itertools.permutations(rest):
                cyc = (first, *order)
                if all(adj[cyc[i], cyc[(i + 1) % k]] for i in range(k)):
                    found.add(frozenset(frozenset((cyc[i], cyc[(i + 1) % k])) for i in range(k)))
    return found


def _edge_set(c):
    k = len(c)
    return frozenset(frozenset((c[i], c[(i + 1) % k])) for i in range(k))


@pytest.mark.parametrize("seed", range(6))
def test_against_brute_force(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 9))
    edges = _random_edges(rng, n, 0.45)
    sizes = (3, 4, 5, 6)
    cycles = find_cycles(edges, n, sizes=sizes)
    ref = brute_force_cycles(edges, n, sizes)
    assert len(cycles) == len(ref)  # each once
    assert {_edge_set(c) for c in cycles} == ref
    adj = set(map(tuple, edges.T)) | set(map(tuple, edges[::-1].T))
    for c in cycles:  # cyclic order, canonical start and direction
        assert len(set(c)) == len(c)
        assert all((c[i], c[(i + 1) % len(c)]) in adj for i in range(len(c)))
        assert c[0] == min(c) and c[1] < c[-1]
    assert cycles == sorted(cycles, key=lambda c: (len(c), c))


def test_against_networkx():
    nx = pytest.importorskip("networkx")
    g = nx.gnp_random_graph(14, 0.3, seed=5)
    edges = np.array(list(g.edges())).T
    ours = {_edge_set(c) for c in find_cycles(edges, 14, sizes=(5, 6))}
    ref = {_edge_set(c) for c in nx.simple_cycles(g, length_bound=6) if len(c) in (5, 6)}
    assert ours == ref


def test_input_forms_directions_and_duplicates():
    ring = np.array([[0, 1, 2, 3, 4, 5], [1, 2, 3, 4, 5, 0]])
    expect = [(0, 1, 2, 3, 4, 5)]
    both = np.concatenate([ring, ring[::-1], ring], axis=1)  # both directions, duplicated
    a = sp.coo_matrix((np.ones(6), (ring[0], ring[1])), shape=(6, 6))
    for ei in (ring, both, torch.as_tensor(ring), ring.tolist(), np.stack([a.row, a.col])):
        assert find_cycles(ei, 6, sizes=(6,)) == expect
    assert find_cycles(ring, 6) == expect
    assert find_cycles(ring, 6, sizes=(5,)) == []
    assert find_cycles(np.zeros((2, 0), dtype=int), 3) == []


def test_chorded_cycles_and_cycle_index():
    # a 6-ring with a chord 0-3 has two 4-cycles and the 6-cycle
    e = np.array([[0, 1, 2, 3, 4, 5, 0], [1, 2, 3, 4, 5, 0, 3]])
    assert find_cycles(e, 6, sizes=(4, 6)) == [(0, 1, 2, 3), (0, 3, 4, 5), (0, 1, 2, 3, 4, 5)]
    idx = cycle_index(e, 6, sizes=(4, 5, 6))
    assert idx[4].shape == (2, 4) and idx[5].shape == (0, 5) and idx[6].dtype == torch.long


def test_molecule_rings_are_found():
    for mol in synthetic_molecules(10, rng=0):
        n = mol.x.shape[0]
        rings = find_cycles(mol.edge_index, n)
        ring_atoms = {v for c in rings for v in c}
        assert ring_atoms == set(torch.nonzero(mol.x[:, 0]).flatten().tolist())


def test_bad_edges():
    with pytest.raises(ValueError, match="edge_index"):
        find_cycles(np.array([[0, 1], [1, 7]]), 3)
    with pytest.raises(ValueError, match="edge_index"):
        find_cycles(np.array([[0, -1], [1, 2]]), 3)
    with pytest.raises(ValueError, match="edge_index"):
        find_cycles(np.zeros((3, 2), dtype=int), 3)
    with pytest.raises(ValueError, match="sizes"):
        find_cycles(np.array([[0], [1]]), 3, sizes=(2,))
    with pytest.raises(ValueError, match="sizes"):
        find_cycles(np.array([[0], [1]]), 3, sizes=())
    with pytest.raises(TypeError, match="sizes"):
        find_cycles(np.array([[0], [1]]), 3, sizes=5)


def _brute_force_template(edges, n, t):
    """Every injective map of the template's nodes into the graph (all permutations of all
    node subsets) that sends template edges to graph edges; occurrences = their edge sets."""
    adj = np.zeros((n, n), dtype=bool)
    adj[edges[0], edges[1]] = adj[edges[1], edges[0]] = True
    m = len(t)
    pairs = [(i, j) for i in range(m) for j in range(i) if t[i, j]]
    out = {}
    for image in itertools.permutations(range(n), m):
        if all(adj[image[i], image[j]] for i, j in pairs):
            key = frozenset(frozenset((image[i], image[j])) for i, j in pairs)
            out[key] = min(out.get(key, image), image)
    return out


TEMPLATES = {
    "path3": [(0, 1), (1, 2)],
    "star3": [(0, 1), (0, 2), (0, 3)],
    "triangle+pendant": [(0, 1), (1, 2), (2, 0), (2, 3)],
    "C4": [(0, 1), (1, 2), (2, 3), (3, 0)],
    "two edges": [(0, 1), (2, 3)],
}


@pytest.mark.parametrize("name", list(TEMPLATES))
@pytest.mark.parametrize("seed", range(3))
def test_find_template_against_brute_force(name, seed):
    edge_list = TEMPLATES[name]
    m = 1 + max(max(e) for e in edge_list)
    t = np.zeros((m, m))
    for u, v in edge_list:
        t[u, v] = t[v, u] = 1.0
    rng = np.random.default_rng(seed)
    n = 7
    edges = _random_edges(rng, n, 0.45)
    got = find_template(edges, n, t)
    ref = _brute_force_template(edges, n, t)
    assert len(got) == len(set(got)) == len(ref)
    assert sorted(got) == sorted(ref.values())  # the smallest order of each occurrence
    for occ in got:  # rows in template order: template edges land on graph edges
        assert all({occ[u], occ[v]} in [set(e) for e in edges.T.tolist()] for u, v in edge_list)


def test_find_template_cycle_equals_find_cycles():
    rng = np.random.default_rng(5)
    edges = _random_edges(rng, 8, 0.5)
    cycles = find_cycles(edges, 8, sizes=(5,))
    occ = find_template(edges, 8, cycle_adjacency(5))
    assert {_edge_set(c) for c in cycles} == {_edge_set(c) for c in occ}
    assert sorted(cycles) == occ  # the same canonical representative
