"""Transitive closure and reduction, TC-DAG test, and the minimal distinguishing sidigraph.

Conventions: ``adj`` is a square bool matrix [n, n] with ``adj[u, v]`` = "u is above v" (an edge
u -> v of the hierarchy). Dense in, dense out. A *TC-DAG* is a transitively-closed DAG, i.e. a
strict partial order (irreflexive, transitive, hence acyclic).

The algorithms work on bit-packed rows (64 nodes per machine word) and process the nodes one
topological level at a time, so the Python loop runs once per level and every level is a few
vectorised ``reduceat`` calls: the cost is O(n^2 / 8) bytes for the packing plus O(|E| n / 64)
word operations.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from ._validation import check_adj, check_edges

__all__ = [
    "Sidigraph",
    "SidigraphStats",
    "is_distinguishing",
    "is_tc_dag",
    "minimal_negatives",
    "minimal_sidigraph",
    "stats",
    "topological_levels",
    "transitive_closure",
    "transitive_reduction",
]


# --- bit-packed rows ---------------------------------------------------------------------------
def _pack(a: np.ndarray) -> np.ndarray:
    """bool [m, n] -> uint64 [m, ceil(n / 64)] (little-endian bit order within each word)."""
    m, n = a.shape
    words = max(1, -(-n // 64))
    packed = np.packbits(a, axis=1, bitorder="little")
    out = np.zeros((m, words * 8), dtype=np.uint8)
    out[:, : packed.shape[1]] = packed
    return out.view(np.uint64)


def _unpack(p: np.ndarray, n: int) -> np.ndarray:
    """Inverse of :func:`_pack`."""
    return np.unpackbits(p.view(np.uint8), axis=1, count=n, bitorder="little").view(bool)


def _nonzero_packed(p: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.nonzero`` of the unpacked matrix (row-major order), touching only non-zero words."""
    wr, wc = np.nonzero(p)
    bits = np.unpackbits(p[wr, wc].view(np.uint8).reshape(-1, 8), axis=1, bitorder="little")
    k, b = np.nonzero(bits)
    return wr[k].astype(np.int64), wc[k].astype(np.int64) * 64 + b


def _segment_reduce(op, rows: np.ndarray, owners: np.ndarray, m: int, fill: int) -> np.ndarray:
    """For each of ``m`` owners, ``op``-reduce the rows whose owner it is (owners sorted);
    owners with no row get ``fill`` (0 or all ones)."""
    out = np.full((m, rows.shape[1]), fill, dtype=np.uint64)
    if rows.shape[0]:
        starts = np.flatnonzero(np.r_[True, owners[1:] != owners[:-1]])
        out[owners[starts]] = op.reduceat(rows, starts, axis=0)
    return out


# --- sparse structure and topological levels ----------------------------------------------------
class _CSR(NamedTuple):
    n: int
    cols: np.ndarray  # successors, grouped by source node (row-major order)
    indptr: np.ndarray


def _csr(a: np.ndarray, packed: np.ndarray | None = None) -> _CSR:
    n = a.shape[0]
    rows, cols = _nonzero_packed(_pack(a) if packed is None else packed)
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=n), out=indptr[1:])
    return _CSR(n, cols.astype(np.int64), indptr)


def _gather(g: _CSR, nodes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The successors of ``nodes`` (concatenated) and, for each, its owner's position in nodes."""
    starts = g.indptr[nodes]
    lens = g.indptr[nodes + 1] - starts
    total = int(lens.sum())
    owners = np.repeat(np.arange(nodes.size), lens)
    offsets = np.arange(total) - np.repeat(np.cumsum(lens) - lens, lens)
    return g.cols[np.repeat(starts, lens) + offsets], owners


def _levels_csr(g: _CSR) -> list[np.ndarray] | None:
    """Kahn's algorithm by rounds: level i holds the nodes whose longest path from a source has
    i edges (no edge inside a level). ``None`` if the graph has a cycle (self-loops included)."""
    indeg = np.bincount(g.cols, minlength=g.n)
    frontier = np.flatnonzero(indeg == 0)
    levels = []
    done = 0
    while frontier.size:
        levels.append(frontier)
        done += frontier.size
        succ, _ = _gather(g, frontier)
        if succ.size == 0:
            break
        indeg -= np.bincount(succ, minlength=g.n)
        frontier = np.unique(succ[indeg[succ] == 0])
    return levels if done == g.n else None


def _levels(a: np.ndarray) -> list[np.ndarray] | None:
    return _levels_csr(_csr(a))


def topological_levels(adj) -> list[np.ndarray]:
    """The nodes of a DAG by longest-path depth from the sources (a topological layering).

    Returns a list of int arrays; every edge goes from a lower level to a higher one.
    Raises ``ValueError`` if ``adj`` has a cycle.
    """
    a = check_adj(adj)
    levels = _levels(a)
    if levels is None:
        raise ValueError("adj must be acyclic (a DAG), got a graph with a cycle or a self-loop")
    return levels


def _closure_and_reduction_dag(a: np.ndarray, levels=None, g: _CSR | None = None):
    """Bit-packed closure R and reduction T of the DAG ``a``, deepest level first:
    below2[u] = OR of R[c] over the successors c of u (everything >= 2 steps below u),
    R[u] = a[u] | below2[u], T[u] = a[u] & ~below2[u]. ``None`` if ``a`` has a cycle."""
    n = a.shape[0]
    ap = _pack(a)
    g = _csr(a, ap) if g is None else g
    levels = _levels_csr(g) if levels is None else levels
    if levels is None:
        return None
    r = ap.copy()
    t = ap.copy()
    for level in reversed(levels):
        succ, owners = _gather(g, level)
        if succ.size == 0:
            continue
        below2 = _segment_reduce(np.bitwise_or, r[succ], owners, level.size, 0)
        r[level] |= below2
        t[level] &= ~below2
    return r, t, n


def _closure_general(a: np.ndarray) -> np.ndarray:
    """Closure of any digraph: condense the strongly connected components, close the DAG of
    components, expand (a node on a cycle reaches itself)."""
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import connected_components

    k, comp = connected_components(csr_matrix(a), directed=True, connection="strong")
    c = np.zeros((k, k), dtype=bool)
    rows, cols = np.nonzero(a)
    c[comp[rows], comp[cols]] = True
    self_reach = np.diag(c).copy()  # a component with an internal edge (size > 1 or a self-loop)
    np.fill_diagonal(c, False)
    r, _, _ = _closure_and_reduction_dag(c)
    rc = _unpack(r, k)
    rc[np.arange(k), np.arange(k)] = self_reach
    return rc[np.ix_(comp, comp)]


def transitive_closure(adj) -> np.ndarray:
    """The transitive closure: ``out[u, v]`` iff there is a path of >= 1 edge from u to v.

    Works on any digraph (strongly connected components are condensed first; a node on a cycle
    then reaches itself, so ``out[u, u]`` is True exactly for nodes on a cycle). For a DAG the
    result is a TC-DAG. ``adj``: bool (or 0/1) [n, n]; returns bool [n, n].
    """
    a = check_adj(adj)
    parts = _closure_and_reduction_dag(a)
    if parts is None:
        return _closure_general(a)
    return _unpack(parts[0], a.shape[0])


def transitive_reduction(adj) -> np.ndarray:
    """The transitive reduction (Hasse diagram) of a DAG: the edges (u, v) of its closure with
    no w such that u -> w -> v. The unique smallest graph with the same closure.

    ``adj`` need not be closed but must be acyclic (``ValueError`` otherwise: the reduction of a
    cyclic graph is not unique). Returns bool [n, n].
    """
    a = check_adj(adj)
    parts = _closure_and_reduction_dag(a)
    if parts is None:
        raise ValueError("adj must be acyclic (a DAG), got a graph with a cycle or a self-loop")
    return _unpack(parts[1], a.shape[0])


def is_tc_dag(adj) -> bool:
    """Whether ``adj`` is a transitively-closed DAG (a strict partial order): no cycle, no
    self-loop, and ``adj[u, w] and adj[w, v]`` implies ``adj[u, v]``."""
    a = check_adj(adj)
    return _tc_dag_parts(a) is not None


def _tc_dag_parts(a: np.ndarray):
    if np.any(np.diagonal(a)):
        return None
    parts = _closure_and_reduction_dag(a)
    if parts is None:
        return None
    r, t, n = parts
    if not np.array_equal(r, _pack(a)):
        return None
    return r, t, n


def _require_tc_dag(a: np.ndarray, name: str = "adj"):
    parts = _tc_dag_parts(a)
    if parts is None:
        raise ValueError(
            f"{name} must be a transitively-closed DAG (a strict partial order), got a graph that"
            " is cyclic or not transitively closed; close a DAG with transitive_closure(adj)"
        )
    return parts


def _transpose_packed(p: np.ndarray, n: int) -> np.ndarray:
    return _pack(np.ascontiguousarray(_unpack(p, n).T))


def _minimal_negative_pairs(r: np.ndarray, t: np.ndarray, n: int):
    """E_{H*} = {(u, v): u, v incomparable, every parent p of u is above v, every child c of v
    is below u} (parents/children in the reduction), as (u, v) index arrays in row-major order.

    Row u of m1 = AND over the parents p of u of R[p] (all ones for a source); row v of m2t =
    AND over the children c of v of the ancestors of c. A node v in m1[u] \\ R[u] cannot be
    above u (it would sit between a parent and u; a source has no ancestor), so
    E_{H*} = m1 & m2 & ~R minus the diagonal."""
    ones = np.uint64(0xFFFFFFFFFFFFFFFF)
    parent_p, owner_u = _nonzero_packed(t)
    order = np.argsort(owner_u, kind="stable")  # (u, p) pairs, sorted by u
    cand = _segment_reduce(np.bitwise_and, r[parent_p[order]], owner_u[order], n, ones)
    cand &= ~r
    cand &= _pack(np.ones((1, n), dtype=bool))  # clear the padding bits past column n
    if not cand.any():
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    ancestors = _transpose_packed(r, n)
    child_v, child_c = parent_p, owner_u  # (v, c) pairs, sorted by v
    m2t = _segment_reduce(np.bitwise_and, ancestors[child_c], child_v, n, ones)
    cand &= _transpose_packed(m2t, n)
    us, vs = _nonzero_packed(cand)
    off = us != vs
    return us[off], vs[off]


def _minimal_negatives_packed(r: np.ndarray, t: np.ndarray, n: int) -> np.ndarray:
    """E_{H*} as a bool [n, n] mask."""
    us, vs = _minimal_negative_pairs(r, t, n)
    out = np.zeros((n, n), dtype=bool)
    out[us, vs] = True
    return out


class Sidigraph(NamedTuple):
    """A signed digraph on the nodes of a hierarchy: ``pos`` int64 [2, P] (known edges, u above
    v) and ``neg`` int64 [2, M] (known non-edges), each sorted row-major (by u, then v)."""

    pos: np.ndarray
    neg: np.ndarray


def minimal_negatives(adj) -> np.ndarray:
    """The negatives E_{H*} of the minimal distinguishing sidigraph, as a bool [n, n] mask:
    the non-edges (u, v) whose addition to ``adj`` leaves a TC-DAG. ``ValueError`` unless
    ``adj`` is a TC-DAG."""
    a = check_adj(adj)
    r, t, n = _require_tc_dag(a)
    return _minimal_negatives_packed(r, t, n)


def minimal_sidigraph(adj) -> Sidigraph:
    """The minimal sidigraph that distinguishes the TC-DAG ``adj`` among all TC-DAGs.

    Returns ``(pos [2, P], neg [2, M])`` (a :class:`Sidigraph` named tuple, int64, row-major
    order): ``pos`` = the transitive reduction E^tr, ``neg`` = E_{H*}, the incomparable pairs
    (u, v) such that every parent of u is above v and every child of v is below u. No TC-DAG
    other than ``adj`` contains ``pos`` and avoids ``neg``, and dropping any single entry of
    either breaks that; the sidigraph is unique.

    Raises ``ValueError`` unless ``adj`` is a transitively-closed DAG.
    """
    a = check_adj(adj)
    r, t, n = _require_tc_dag(a)
    pos = np.stack(_nonzero_packed(t)).reshape(2, -1)
    neg = np.stack(_minimal_negative_pairs(r, t, n)).reshape(2, -1)
    return Sidigraph(pos, neg)


def is_distinguishing(adj, pos, neg) -> bool:
    """Whether the sidigraph (``pos``, ``neg``) distinguishes the TC-DAG ``adj``: ``adj`` is the
    only TC-DAG G with every ``pos`` edge in G and no ``neg`` edge in G.

    Exact and polynomial: (i) ``adj`` itself must be consistent; (ii) the closure of ``pos``
    must be ``adj`` (otherwise that closure is a smaller consistent TC-DAG); (iii) every pair of
    E_{H*}(adj) must be in ``neg`` (otherwise ``adj`` plus that pair is a larger consistent
    TC-DAG; conversely any larger consistent TC-DAG contains such a pair). ``pos``, ``neg``:
    int [2, K] (K may be 0). ``ValueError`` unless ``adj`` is a TC-DAG.
    """
    a = check_adj(adj)
    n = a.shape[0]
    p = check_edges(pos, "pos", n)
    q = check_edges(neg, "neg", n)
    r, t, _ = _require_tc_dag(a)
    if not a[p[0], p[1]].all() or a[q[0], q[1]].any():
        return False
    pm = np.zeros((n, n), dtype=bool)
    pm[p[0], p[1]] = True
    rp, _, _ = _closure_and_reduction_dag(pm)  # a subgraph of a DAG is a DAG
    if not np.array_equal(rp, r):
        return False
    needed = _minimal_negatives_packed(r, t, n)
    qm = np.zeros((n, n), dtype=bool)
    qm[q[0], q[1]] = True
    return bool(not np.any(needed & ~qm))


@dataclass(frozen=True)
class SidigraphStats:
    """Sizes of the full and the reduced training sets of a TC-DAG.

    ``num_closure_edges`` |E^tc|, ``num_reduction_edges`` |E^tr|, ``num_non_edges`` |Ē| (ordered
    pairs u != v with no edge u -> v), ``num_minimal_negatives`` |E_{H*}|; ratios reduced/full:
    ``positive_ratio`` = |E^tr|/|E^tc|, ``negative_ratio`` = |E_{H*}|/|Ē|, ``example_ratio`` =
    (|E^tr| + |E_{H*}|)/(|E^tc| + |Ē|) (a ratio 0/0 is reported as 1.0: nothing to reduce).
    """

    num_nodes: int
    num_closure_edges: int
    num_reduction_edges: int
    num_non_edges: int
    num_minimal_negatives: int
    positive_ratio: float
    negative_ratio: float
    example_ratio: float


def _ratio(a: int, b: int) -> float:
    return 1.0 if b == 0 else a / b


def stats(adj) -> SidigraphStats:
    """Counts of E^tc, E^tr, Ē, E_{H*} and the reduced/full ratios of the TC-DAG ``adj``
    (``ValueError`` unless a TC-DAG)."""
    a = check_adj(adj)
    r, t, n = _require_tc_dag(a)
    tc = int(np.count_nonzero(a))
    tr = int(_nonzero_packed(t)[0].size)
    non = n * (n - 1) - tc
    neg = int(_minimal_negative_pairs(r, t, n)[0].size)
    return SidigraphStats(
        num_nodes=n,
        num_closure_edges=tc,
        num_reduction_edges=tr,
        num_non_edges=non,
        num_minimal_negatives=neg,
        positive_ratio=_ratio(tr, tc),
        negative_ratio=_ratio(neg, non),
        example_ratio=_ratio(tr + neg, tc + non),
    )
