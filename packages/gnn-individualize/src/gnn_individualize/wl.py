"""Colour refinement (1-WL) with canonical colour ids, in vectorised numpy.

One round gives node v the signature ``(colour(v), degree(v), sorted colours of v's neighbours)``;
the new colour ids are the ranks of the distinct signatures in lexicographic order. The ids
therefore depend only on the colours, never on how the nodes are numbered, and the new order
refines the old one (``c_old(u) < c_old(v)`` implies ``c_new(u) < c_new(v)``). Refinement stops
when a round splits no class; ids of a stable colouring are left unchanged by a further round.
Signatures are compared exactly (no hashing, no collisions).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._checks import check_int
from ._validation import Graph, check_graph, check_labels

__all__ = ["color_refinement", "stable_partition", "wl_equivalent"]


def _compress(*keys: np.ndarray) -> np.ndarray:
    """Dense ranks 0..k-1 of the rows ``(keys[0][i], keys[1][i], ...)``, keys[0] primary."""
    order = np.argsort(keys[0]) if len(keys) == 1 else np.lexsort(keys[::-1])
    change = np.zeros(len(order), dtype=bool)
    if len(order):
        change[0] = False
        for k in keys:
            ks = k[order]
            change[1:] |= ks[1:] != ks[:-1]
    ranks = np.empty(len(order), dtype=np.int64)
    ranks[order] = np.cumsum(change)
    return ranks


def _doubling_ranks(vals: np.ndarray, indptr: np.ndarray, deg: np.ndarray, k: int) -> np.ndarray:
    """Dense lexicographic ranks of the non-empty rows ``vals[indptr[v]:indptr[v+1]]`` (values in
    [0, k)), by prefix multiplying: first every window ``vals[p:p+w]`` (cut at its row's end) is
    ranked through its base-(k+1) number (absent entries 0, so a prefix sorts first); then the
    rank of a window of width m*w is the rank of the m-tuple of ranks of its width-w pieces (-1
    past the row's end). A row of length d costs about log_m(d / w) sorts over the entries."""
    e = len(vals)
    end = np.repeat(indptr[1:], deg)
    pos = np.arange(e, dtype=np.int64)
    width, max_deg = 1, int(deg.max())
    while width < max_deg and (k + 1) ** (width + 1) < 2**62:
        width += 1
    code = np.zeros(e, dtype=np.int64)
    for j in range(width):
        at = pos + j
        code = code * (k + 1) + np.where(at < end, vals[np.minimum(at, e - 1)] + 1, 0)
    r = _compress(code)
    while width < max_deg:
        m = 3 if (e + 1) ** 3 < 2**62 else 2
        key = r.copy()
        for j in range(1, m):
            at = pos + j * width
            key = key * (e + 1) + np.where(at < end, r[np.minimum(at, e - 1)] + 1, 0)
        r = _compress(key)
        width *= m
    return r[indptr[:-1][deg > 0]]


def _sequence_codes(vals: np.ndarray, indptr: np.ndarray, deg: np.ndarray, k: int) -> np.ndarray:
    """A code per row that orders rows *of equal length* lexicographically (values in [0, k)):
    the base-k number of the row where it fits in 62 bits, else its rank among the long rows
    (codes are only ever compared between rows of the same length)."""
    n = len(deg)
    codes = np.zeros(n, dtype=np.int64)
    if k <= 1:  # one colour: rows of equal length are equal
        return codes
    fit = max(int(62 // np.log2(k)), 1)
    while k**fit >= 2**62:
        fit -= 1
    short = deg <= fit
    row_deg = np.repeat(deg, deg)
    j = np.arange(len(vals), dtype=np.int64) - np.repeat(indptr[:-1], deg)
    expo = np.where(row_deg <= fit, row_deg - 1 - j, 0)
    powers = np.array([k**i for i in range(fit + 1)], dtype=np.int64)
    contrib = np.where(row_deg <= fit, vals * powers[expo], 0)
    nonempty = deg > 0
    codes[nonempty] = np.add.reduceat(contrib, indptr[:-1][nonempty])
    long = ~short
    if long.any():
        rows = np.flatnonzero(long)
        sub_deg = deg[rows]
        sub_ptr = np.zeros(len(rows) + 1, dtype=np.int64)
        np.cumsum(sub_deg, out=sub_ptr[1:])
        idx = np.repeat(indptr[rows], sub_deg) + (
            np.arange(int(sub_ptr[-1]), dtype=np.int64) - np.repeat(sub_ptr[:-1], sub_deg)
        )
        codes[rows] = _doubling_ranks(vals[idx], sub_ptr, sub_deg, k)
    return codes


def _refine_once(colors: np.ndarray, g: Graph) -> np.ndarray:
    deg = g.degree
    if len(g.nbrs) == 0:
        return _compress(colors)
    k = int(colors.max()) + 1
    # neighbour colours sorted within each row (rows stay grouped: the row is the primary key)
    nc = np.sort(g.row * k + colors[g.nbrs]) - g.row * k
    return _compress(colors, deg, _sequence_codes(nc, g.indptr, deg, k))


def _refine(colors: np.ndarray, g: Graph, max_iter: int | None = None) -> np.ndarray:
    """Refine ``colors`` (dense ids) until stable or ``max_iter`` rounds."""
    colors = _compress(colors)
    num = int(colors.max()) + 1 if len(colors) else 0
    rounds = 0
    while max_iter is None or rounds < max_iter:
        if num == g.num_nodes:  # discrete: nothing left to split
            break
        new = _refine_once(colors, g)
        rounds += 1
        new_num = int(new.max()) + 1
        colors = new
        if new_num == num:
            break
        num = new_num
    return colors


def color_refinement(
    edge_index: Any, num_nodes: Any, *, labels: Any = None, max_iter: Any = None
) -> np.ndarray:
    """Stable 1-WL colours of an undirected graph, as canonical ids 0..k-1.

    Parameters
    ----------
    edge_index
        int array [2, E] (one or both directions; duplicates are merged, a self-loop makes a node
        its own neighbour), a torch LongTensor, or a square scipy.sparse adjacency.
    num_nodes
        Number of nodes (may be None for a scipy.sparse adjacency).
    labels
        Initial colours: None (all nodes alike), or numbers [n] or feature rows [n, F]; equal
        values/rows start with equal colours, ids follow their sorted order.
    max_iter
        At most this many refinement rounds (0 returns the compressed labels); None refines until
        the colouring is stable.

    Returns
    -------
    numpy.ndarray
        int64 [n]: colour ids 0..k-1. Relabelling the nodes permutes the result the same way
        (``color_refinement(perm_graph)[perm[v]] == color_refinement(graph)[v]``).

    >>> import numpy as np
    >>> path = np.array([[0, 1, 2], [1, 2, 3]])
    >>> color_refinement(path, 4).tolist()
    [0, 1, 1, 0]
    """
    g = check_graph(edge_index, num_nodes)
    colors = check_labels(labels, g.num_nodes)
    if max_iter is not None:
        max_iter = check_int(max_iter, "max_iter", minimum=0)
    return _refine(colors, g, max_iter)


def stable_partition(edge_index: Any, num_nodes: Any, *, labels: Any = None) -> list[np.ndarray]:
    """The stable 1-WL colour classes, as sorted node arrays in colour-id order.

    >>> import numpy as np
    >>> [c.tolist() for c in stable_partition(np.array([[0, 1, 2], [1, 2, 3]]), 4)]
    [[0, 3], [1, 2]]
    """
    colors = color_refinement(edge_index, num_nodes, labels=labels)
    order = np.argsort(colors, kind="stable")
    bounds = np.cumsum(np.bincount(colors))[:-1]
    return list(np.split(order, bounds))


def wl_equivalent(
    edge_index_a: Any,
    num_nodes_a: Any,
    edge_index_b: Any,
    num_nodes_b: Any,
    *,
    labels_a: Any = None,
    labels_b: Any = None,
) -> bool:
    """Whether 1-WL fails to distinguish two graphs (equal stable colour histograms, computed on
    their disjoint union so the colours are comparable).

    >>> import numpy as np
    >>> hexagon = np.array([[0, 1, 2, 3, 4, 5], [1, 2, 3, 4, 5, 0]])
    >>> two_triangles = np.array([[0, 1, 2, 3, 4, 5], [1, 2, 0, 4, 5, 3]])
    >>> wl_equivalent(hexagon, 6, two_triangles, 6)
    True
    """
    from ._validation import check_edge_index, to_graph

    ea, na = check_edge_index(edge_index_a, num_nodes_a, "edge_index_a", "num_nodes_a")
    eb, nb = check_edge_index(edge_index_b, num_nodes_b, "edge_index_b", "num_nodes_b")
    if (labels_a is None) != (labels_b is None):
        raise ValueError("labels_a and labels_b must both be given or both be None")
    if labels_a is None:
        lab = np.zeros(na + nb, dtype=np.int64)
    else:
        from ._checks import check_array

        la = check_array(labels_a, "labels_a", ndim=(1, 2), dtype="any")
        lb = check_array(labels_b, "labels_b", ndim=(1, 2), dtype="any")
        if la.shape[0] != na:
            raise ValueError(f"labels_a has {la.shape[0]} rows but num_nodes_a is {na}")
        if lb.shape[0] != nb:
            raise ValueError(f"labels_b has {lb.shape[0]} rows but num_nodes_b is {nb}")
        if la.shape[1:] != lb.shape[1:]:
            raise ValueError(
                f"labels_a has shape {la.shape} and labels_b {lb.shape}: features must match"
            )
        lab = check_labels(np.concatenate([la, lb]), na + nb)
    union = to_graph(np.concatenate([ea, eb + na], axis=1), na + nb)
    colors = _refine(lab, union)
    return bool(np.array_equal(np.sort(colors[:na]), np.sort(colors[na:]))) and na == nb
