"""Sample-complexity diagnostics: how many distinct inputs a scheme produces, covering numbers."""

from __future__ import annotations

from collections.abc import Sequence
from numbers import Integral
from typing import Any

import numpy as np

from ._checks import check_array, check_float, check_int, check_option, check_rng
from ._validation import check_edge_index, check_int_array, to_graph
from .schemes import (
    MAX_BITS,
    _tinhofer_batch,
    binary_code,
    relational_pooling,
    rni,
    tinhofer,
    tinhofer_w,
)
from .wl import _refine

__all__ = ["count_distinct_inputs", "covering_number", "individualize"]

SCHEMES = ("tinhofer", "tinhofer_w", "relational_pooling", "rni", "none")
# the package's own scheme functions, passed as ``scheme``, mean their named scheme
_NAMED = {
    tinhofer: "tinhofer",
    tinhofer_w: "tinhofer_w",
    relational_pooling: "relational_pooling",
    rni: "rni",
}


def _check_graphs(graphs: Any) -> list[tuple[np.ndarray, int]]:
    if isinstance(graphs, str | bytes) or not isinstance(graphs, Sequence):
        raise TypeError(
            f"graphs must be a sequence of (edge_index, num_nodes) pairs, got {type(graphs).__name__}"
        )
    if len(graphs) == 0:
        raise ValueError("graphs must not be empty")
    out = []
    for i, item in enumerate(graphs):
        if isinstance(item, tuple | list) and len(item) == 2 and isinstance(item[1], Integral):
            out.append(check_edge_index(item[0], item[1], f"graphs[{i}] edge_index"))
        elif isinstance(item, np.ndarray) or type(item).__module__.startswith("torch"):
            # a bare edge_index: nodes 0..max index (isolated trailing nodes cannot be told)
            ei = check_int_array(item, f"graphs[{i}] edge_index", ndim=2, allow_empty=False)
            out.append(check_edge_index(ei, int(ei.max()) + 1, f"graphs[{i}] edge_index"))
        else:
            raise TypeError(
                f"graphs[{i}] must be an (edge_index, num_nodes) pair or an edge_index array, "
                f"got {type(item).__name__}"
            )
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
    scheme = _NAMED.get(scheme, scheme) if callable(scheme) else scheme
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


def _input_keys(gs: list[tuple[np.ndarray, int]], ids: list[np.ndarray]) -> list[tuple]:
    """An isomorphism invariant of each identified graph: 1-WL is run on the disjoint union of
    all graphs with the identifier rows as initial colours (so colours are comparable across
    graphs), and the key is the graph's edge list in colour terms. A complete invariant (equal
    keys iff isomorphic as labelled graphs) when the identifier rows are distinct in each graph."""
    sizes = [n for _, n in gs]
    offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
    total = int(sum(sizes))
    rows = np.concatenate(
        [np.asarray(x, dtype=np.float64).reshape(n, -1) for (_, n), x in zip(gs, ids)]
    )
    width = {x.shape[1] for x in ids}
    if len(width) > 1:
        raise ValueError(f"scheme output must have the same number of columns, got {sorted(width)}")
    labels = np.zeros(total, dtype=np.int64)
    if rows.shape[1]:
        labels = np.unique(rows, axis=0, return_inverse=True)[1].reshape(total).astype(np.int64)
    union = to_graph(np.concatenate([e + o for (e, _), o in zip(gs, offsets)], axis=1), total)
    colors = _refine(labels, union)
    keys = []
    for (e, n), o in zip(gs, offsets):
        c = colors[o : o + n]
        g = to_graph(e, n)
        row = g.row
        keep = row <= g.nbrs
        a, b = c[row[keep]], c[g.nbrs[keep]]
        pairs = np.sort(np.minimum(a, b) * total + np.maximum(a, b))
        keys.append((n, np.sort(c).tobytes(), pairs.tobytes()))
    return keys


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
    otherwise a lower bound: graphs are told apart by 1-WL on the identified graphs (so
    ``scheme="none"`` counts 1-WL classes, a lower bound on isomorphism classes).

    >>> import numpy as np
    >>> from gnn_individualize.data import permuted_copy
    >>> cycle = np.array([[0, 1, 2, 3, 4], [1, 2, 3, 4, 0]])
    >>> copies = [(permuted_copy(cycle, 5, rng=s)[0], 5) for s in range(20)]
    >>> count_distinct_inputs(copies, "tinhofer")
    1
    """
    gs = _check_graphs(graphs)
    ids = individualize(gs, scheme, bits=bits, k_weak=k_weak, rng=rng)
    return len(set(_input_keys(gs, ids)))


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
