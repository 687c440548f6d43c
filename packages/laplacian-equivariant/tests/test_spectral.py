"""Projector algebra against numpy's eigh, and map counts against brute force."""

import itertools

import numpy as np
import pytest
import scipy.sparse as sp
import torch
from _graphs import (
    PAPER_COUNTS,
    adjacency,
    automorphisms,
    cycle,
    orbits_on_pairs,
    path,
    perm_matrix,
    star,
)
from laplacian_equivariant import eigenspace_projectors, laplacian_matrix, num_equivariant_maps


def _random_graph(rng, m, p=0.5):
    a = np.triu((rng.random((m, m)) < p).astype(float), 1)
    return a + a.T


TEMPLATES = [
    cycle(6),
    cycle(5),
    star(4),
    path(4),
    adjacency(5, [(0, 1), (1, 2), (2, 0), (2, 3), (3, 4)]),
]
TEMPLATES += [_random_graph(np.random.default_rng(s), 7) for s in range(4)]


@pytest.mark.parametrize("a", TEMPLATES)
@pytest.mark.parametrize("laplacian", ["combinatorial", "normalized"])
def test_projector_algebra(a, laplacian):
    vals, proj = eigenspace_projectors(a, laplacian=laplacian)
    lap = laplacian_matrix(a, laplacian=laplacian)
    m = len(a)
    assert proj.shape == (len(vals), m, m)
    assert np.all(np.diff(vals) > 1e-6)
    np.testing.assert_allclose(proj.sum(0), np.eye(m), atol=1e-10)
    for j, k in itertools.product(range(len(vals)), repeat=2):
        np.testing.assert_allclose(
            proj[j] @ proj[k], proj[j] if j == k else 0 * proj[j], atol=1e-10
        )
    for j in range(len(vals)):
        np.testing.assert_allclose(proj[j], proj[j].T, atol=1e-12)
        np.testing.assert_allclose(proj[j] @ lap, lap @ proj[j], atol=1e-8)
        np.testing.assert_allclose(lap @ proj[j], vals[j] * proj[j], atol=1e-8)  # eigenspace
    np.testing.assert_allclose((vals[:, None, None] * proj).sum(0), lap, atol=1e-8)


@pytest.mark.parametrize("a", TEMPLATES)
def test_against_numpy_eigh(a):
    deg = a.sum(1)
    lap = np.diag(deg) - a
    w, v = np.linalg.eigh(lap)
    vals, proj = eigenspace_projectors(a)
    # distinct eigenvalues by rounding (an independent grouping) and one projector per value
    distinct = np.unique(np.round(w, 6))
    np.testing.assert_allclose(vals, distinct, atol=1e-6)
    for j, mu in enumerate(distinct):
        cols = v[:, np.abs(w - mu) < 1e-6]
        np.testing.assert_allclose(proj[j], cols @ cols.T, atol=1e-8)
        assert round(np.trace(proj[j])) == cols.shape[1]


def test_normalized_laplacian_matches_closed_form():
    a = star(3)
    d = a.sum(1)
    ref = np.eye(4) - a / np.sqrt(np.outer(d, d))
    np.testing.assert_allclose(laplacian_matrix(a, laplacian="normalized"), ref, atol=1e-12)
    vals, _ = eigenspace_projectors(a, laplacian="normalized")
    np.testing.assert_allclose(vals, [0.0, 1.0, 2.0], atol=1e-9)  # bipartite star: 0, 1, 2


def test_isolated_node_normalized_is_zero_row():
    a = adjacency(3, [(0, 1)])
    lap = laplacian_matrix(a, laplacian="normalized")
    assert np.all(lap[2] == 0) and np.all(lap[:, 2] == 0)


@pytest.mark.parametrize("name", list(PAPER_COUNTS))
def test_counts_of_the_paper(name):
    a, count = PAPER_COUNTS[name]
    assert num_equivariant_maps(a) == count


@pytest.mark.parametrize("a", TEMPLATES + [v[0] for v in PAPER_COUNTS.values()])
def test_count_is_dimension_of_the_polynomial_algebra(a):
    """Brute force: dim span{I, L, L^2, ...} (matrices commuting with L that the P_j span)."""
    lap = np.diag(a.sum(1)) - a
    powers = np.stack([np.linalg.matrix_power(lap, k).ravel() for k in range(len(a) + 1)])
    scale = np.abs(powers).max(axis=1, keepdims=True)
    rank = np.linalg.matrix_rank(powers / scale, tol=1e-8)
    assert num_equivariant_maps(a) == rank


@pytest.mark.parametrize(
    "a, orbits",
    [
        (cycle(6), 4),
        (cycle(5), 3),
        (cycle(4), 3),
        (cycle(3), 2),
        (star(4), 5),
        (star(3), 5),
        (path(3), 5),
    ],
)
def test_commutant_of_the_automorphism_group(a, orbits):
    """Brute-force Aut; the commutant dimension (orbits on pairs) equals the Laplacian count on
    cycles and is larger (5 vs 3) on stars and P3. Every automorphism commutes with every P_j."""
    assert orbits_on_pairs(a) == orbits
    assert num_equivariant_maps(a) <= orbits
    _, proj = eigenspace_projectors(a)
    for p in automorphisms(a):
        q = perm_matrix(p)
        for pj in proj:
            np.testing.assert_allclose(q @ pj, pj @ q, atol=1e-10)


def test_accepts_sparse_torch_bool_and_lists():
    a = cycle(6)
    ref = eigenspace_projectors(a)[1]
    for variant in (sp.csr_matrix(a), torch.tensor(a), a.astype(bool), a.tolist()):
        np.testing.assert_allclose(eigenspace_projectors(variant)[1], ref, atol=1e-12)


def test_tol_merges_close_eigenvalues():
    a = adjacency(3, [(0, 1), (1, 2)]) * 1.0
    a[0, 1] = a[1, 0] = 1.0 + 1e-9  # perturbed P3 still has 3 eigenvalues
    assert len(eigenspace_projectors(a)[0]) == 3
    assert len(eigenspace_projectors(a, tol=10.0)[0]) == 1


@pytest.mark.parametrize(
    "bad, match",
    [
        (np.array([[0, 1], [0, 0]]), "symmetric"),
        (np.array([[1, 0], [0, 0]]), "diagonal"),
        (np.array([[0, -1], [-1, 0]]), "non-negative"),
        (np.zeros((2, 3)), "square"),
    ],
)
def test_bad_adjacency(bad, match):
    with pytest.raises(ValueError, match=match):
        eigenspace_projectors(bad)
    with pytest.raises(ValueError, match="adj"):
        num_equivariant_maps(bad)


@pytest.mark.parametrize("a", TEMPLATES[:5] + [v[0] for v in PAPER_COUNTS.values()])
def test_package_automorphisms_match_backtracking(a):
    from laplacian_equivariant import automorphisms as pkg_automorphisms
    from laplacian_equivariant import commutant_dimension

    ours = {tuple(p) for p in pkg_automorphisms(a)}
    assert ours == {tuple(int(v) for v in p) for p in automorphisms(a)}
    assert commutant_dimension(a) == orbits_on_pairs(a)
    with pytest.raises(ValueError, match="max_nodes"):
        pkg_automorphisms(a, max_nodes=len(a) - 1)
