"""The Laplacian eigenspace basis of a template subgraph (Schur Nets, Eq. 8)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ._checks import check_float, check_int, check_option
from ._validation import check_adjacency

__all__ = [
    "automorphisms",
    "commutant_dimension",
    "eigenspace_projectors",
    "laplacian_matrix",
    "num_equivariant_maps",
]

LAPLACIANS = ("combinatorial", "normalized")


def laplacian_matrix(adj: Any, *, laplacian: str = "combinatorial") -> np.ndarray:
    """The graph Laplacian of ``adj`` [m, m].

    ``"combinatorial"``: L = D - A. ``"normalized"``: L = I - D^{-1/2} A D^{-1/2}, with the
    row and column of an isolated node left zero (Chung's convention).
    """
    a = check_adjacency(adj, "adj")
    laplacian = check_option(laplacian, "laplacian", LAPLACIANS)
    deg = a.sum(axis=1)
    if laplacian == "combinatorial":
        return np.diag(deg) - a
    inv_sqrt = np.zeros_like(deg)
    nz = deg > 0
    inv_sqrt[nz] = 1.0 / np.sqrt(deg[nz])
    return np.diag(nz.astype(np.float64)) - inv_sqrt[:, None] * a * inv_sqrt[None, :]


def _eigenspaces(lap: np.ndarray, tol: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(distinct eigenvalues [J], eigenvectors [m, m] in ascending order, group id per column)."""
    vals, vecs = np.linalg.eigh(lap)
    groups = np.zeros(len(vals), dtype=np.int64)
    for i in range(1, len(vals)):
        groups[i] = groups[i - 1] + int(vals[i] - vals[i - 1] > tol)
    distinct = np.array([vals[groups == j].mean() for j in range(groups[-1] + 1)])
    return distinct, vecs, groups


def eigenspace_projectors(
    adj: Any, *, laplacian: str = "combinatorial", tol: float = 1e-6
) -> tuple[np.ndarray, np.ndarray]:
    """Orthogonal projectors onto the eigenspaces of the template's Laplacian.

    Parameters
    ----------
    adj
        Symmetric non-negative adjacency [m, m] (numpy, nested list, torch or scipy.sparse).
    laplacian
        ``"combinatorial"`` (D - A, the paper's choice) or ``"normalized"``.
    tol
        Eigenvalues of the sorted spectrum closer than ``tol`` to their predecessor share an
        eigenspace.

    Returns
    -------
    (eigenvalues, projectors)
        ``eigenvalues`` [J], distinct and ascending; ``projectors`` [J, m, m] with
        ``projectors[j] = U_j U_j^T`` for the eigenvectors U_j of ``eigenvalues[j]``:
        symmetric, idempotent, mutually orthogonal, summing to the identity, commuting with L
        and with every automorphism of the template.
    """
    tol = check_float(tol, "tol", minimum=0.0, min_inclusive=False)
    lap = laplacian_matrix(adj, laplacian=laplacian)
    distinct, vecs, groups = _eigenspaces(lap, tol)
    proj = np.stack([vecs[:, groups == j] @ vecs[:, groups == j].T for j in range(len(distinct))])
    return distinct, proj


def num_equivariant_maps(adj: Any) -> int:
    """Number of independent Schur-layer maps of the template: its Laplacian's distinct
    eigenvalues (combinatorial Laplacian, tolerance 1e-6).

    This is the dimension of span{P_j} (the polynomials in L). The full space of maps that
    commute with Aut(template) can be larger (stars and the 3-node path: 3 here, 5 by group
    theory); it is equal for cycles and cliques.
    """
    vals, _ = eigenspace_projectors(adj)
    return int(len(vals))


def automorphisms(adj: Any, *, max_nodes: int = 10) -> np.ndarray:
    """All automorphisms of a small graph by exhaustive search, as permutations [|Aut|, m]
    (``p`` with ``adj[p][:, p] == adj``). Nodes are only mapped within their degree class, and
    the search is refused above ``max_nodes`` nodes (it is exponential)."""
    import itertools

    a = check_adjacency(adj, "adj")
    m = len(a)
    max_nodes = check_int(max_nodes, "max_nodes", minimum=1)
    if m > max_nodes:
        raise ValueError(f"adj has {m} nodes, more than max_nodes={max_nodes}")
    deg = a.sum(axis=1)
    classes = [np.flatnonzero(deg == d) for d in np.unique(deg)]
    found = []
    for choice in itertools.product(*(itertools.permutations(c) for c in classes)):
        p = np.empty(m, dtype=np.int64)
        for c, image in zip(classes, choice):
            p[c] = image
        if np.array_equal(a[np.ix_(p, p)], a):
            found.append(p)
    return np.stack(found)


def commutant_dimension(adj: Any, *, max_nodes: int = 10) -> int:
    """Dimension of the space of m x m matrices commuting with every automorphism: the number
    of orbits of Aut(adj) on ordered node pairs (the group-theoretic count of first-order
    equivariant maps, which ``num_equivariant_maps`` can only reach or undercount)."""
    auts = automorphisms(adj, max_nodes=max_nodes)
    m = auts.shape[1]
    pair = auts[:, :, None] * m + auts[:, None, :]  # image of (i, j) under every automorphism
    labels = pair.min(axis=0)  # orbit representative: smallest image
    return int(len(np.unique(labels)))
