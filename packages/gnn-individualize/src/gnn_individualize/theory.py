"""Sample-complexity diagnostics: how many distinct inputs a scheme produces, covering numbers."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ._checks import check_array, check_float, check_int, check_option, check_rng
from ._validation import check_edge_index, to_graph
from .schemes import MAX_BITS, _tinhofer_batch, binary_code

__all__ = ["count_distinct_inputs", "covering_number", "individualize"]

SCHEMES = ("tinhofer", "tinhofer_w", "relational_pooling", "rni", "none")


def _check_graphs(graphs: Any) -> list[tuple[np.ndarray, int]]:
    if isinstance(graphs, str | bytes) or not isinstance(graphs, Sequence):
        raise TypeError(
            f"graphs must be a sequence of (edge_index, num_nodes) pairs, got {type(graphs).__name__}"
        )
    if len(graphs) == 0:
        raise ValueError("graphs must not be empty")
    out = []
    for i, item in enumerate(graphs):
        if not isinstance(item, tuple | list) or len(item) != 2:
            raise TypeError(
                f"graphs[{i}] must be an (edge_index, num_nodes) pair, got {type(item).__name__}"
            )
        out.append(check_edge_index(item[0], item[1], f"graphs[{i}] edge_index"))
    return out


def individualize(
    graphs: Any,
    scheme: Any,
    *,
    bits: Any = 6,
    k_weak: Any = 0,
    rng: Any = None,
) -> list[np.ndarray]:
    """Identifiers [n_i, bits] for each of ``graphs`` (``[(edge_index, num_nodes), ...]``).

    ``scheme``: "tinhofer", "tinhofer_w", "relational_pooling", "rni", "none" (zero columns)
    or a callable ``(edge_index, num_nodes) -> array [n, d]``. The Tinhofer schemes run on the
    disjoint union at once (the same ranks as graph by graph, much faster).

    >>> import numpy as np
    >>> path = (np.array([[0, 1, 2], [1, 2, 3]]), 4)
    >>> individualize([path], "tinhofer", bits=2)[0].tolist()
    [[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]]
    """
    gs = _check_graphs(graphs)
    if callable(scheme):
        return [
            check_array(scheme(ei, n), "scheme output", ndim=2, allow_empty=True) for ei, n in gs
        ]
    scheme = check_option(scheme, "scheme", SCHEMES)
    bits = check_int(bits, "bits", minimum=1, maximum=MAX_BITS)
    k_weak = check_int(k_weak, "k_weak", minimum=0)
    gen = check_rng(rng)
    sizes = np.array([n for _, n in gs], dtype=np.int64)
    splits = np.cumsum(sizes)[:-1]
    if scheme in ("tinhofer", "tinhofer_w"):
        offsets = np.concatenate([[0], splits])
        ei = np.concatenate([e + o for (e, _), o in zip(gs, offsets)], axis=1)
        total = int(sizes.sum())
        comp = np.repeat(np.arange(len(gs), dtype=np.int64), sizes)
        ranks = _tinhofer_batch(
            to_graph(ei, total),
            np.zeros(total, dtype=np.int64),
            comp,
            k_weak if scheme == "tinhofer_w" else None,
        )
        return np.split(binary_code(ranks, bits), splits)
    if scheme == "relational_pooling":
        return [binary_code(gen.permutation(n), bits) for n in sizes]
    if scheme == "rni":
        return [gen.random((int(n), bits)) for n in sizes]
    return [np.zeros((int(n), 0)) for n in sizes]


def _input_key(ei: np.ndarray, n: int, ids: np.ndarray) -> tuple:
    """An isomorphism invariant of the identified graph; a complete one (equal keys iff
    isomorphic as labelled graphs) when the identifier rows are distinct."""
    rows = [r.tobytes() for r in np.ascontiguousarray(ids, dtype=np.float64)]
    uniq = sorted(set(rows))
    index = {r: i for i, r in enumerate(uniq)}
    cls = np.array([index[r] for r in rows], dtype=np.int64)
    e = to_graph(ei, n)
    row = e.row
    keep = row <= e.nbrs
    a, b = cls[row[keep]], cls[e.nbrs[keep]]
    pairs = sorted(zip(np.minimum(a, b).tolist(), np.maximum(a, b).tolist()))
    counts = np.bincount(cls, minlength=len(uniq)).tolist()
    return (n, tuple(uniq), tuple(counts), tuple(pairs))


def count_distinct_inputs(
    graphs: Any,
    scheme: Any,
    *,
    bits: Any = 6,
    k_weak: Any = 0,
    rng: Any = None,
) -> int:
    """How many distinct identified graphs ``scheme`` turns ``graphs`` into.

    Two inputs count as the same when some renumbering of the nodes maps one onto the other with
    the identifiers (what a permutation-invariant GNN cannot tell apart). Exact when every
    graph's identifier rows are distinct (e.g. Tinhofer or RP with n <= 2**bits, RNI);
    otherwise a lower bound (graphs with equal invariants are counted once).

    >>> import numpy as np
    >>> from gnn_individualize.data import permuted_copy
    >>> cycle = np.array([[0, 1, 2, 3, 4], [1, 2, 3, 4, 0]])
    >>> copies = [(permuted_copy(cycle, 5, rng=s)[0], 5) for s in range(20)]
    >>> count_distinct_inputs(copies, "tinhofer")
    1
    """
    gs = _check_graphs(graphs)
    ids = individualize(gs, scheme, bits=bits, k_weak=k_weak, rng=rng)
    return len({_input_key(ei, n, x) for (ei, n), x in zip(gs, ids)})


def covering_number(embeddings: Any, eps: Any, *, norm: Any = "l2") -> int:
    """Greedy estimate of the eps-covering number of a point set [m, d]: scan the points in
    order, opening a new ball (centre = the point) whenever a point lies farther than ``eps``
    from every centre. ``norm``: "l2", "l1" or "linf".

    >>> covering_number([[0.0], [0.5], [2.0]], 1.0)
    2
    """
    x = check_array(embeddings, "embeddings", ndim=2)
    eps = check_float(eps, "eps", minimum=0.0)
    norm = check_option(norm, "norm", ("l2", "l1", "linf"))
    centres: list[np.ndarray] = []
    for p in x:
        if centres:
            diff = np.asarray(centres) - p
            if norm == "l2":
                dist = np.sqrt((diff**2).sum(axis=1))
            elif norm == "l1":
                dist = np.abs(diff).sum(axis=1)
            else:
                dist = np.abs(diff).max(axis=1)
            if dist.min() <= eps:
                continue
        centres.append(p)
    return len(centres)
