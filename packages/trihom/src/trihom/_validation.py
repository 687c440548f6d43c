"""Graph-specific input checks, built on the shared vocabulary in ``_checks``.

A graph is an ``edge_index`` int array of shape [2, E] (one or both directions; duplicates and
self-loops are dropped, the rest symmetrised), a square ``scipy.sparse`` adjacency (every stored
non-zero is an edge), or a torch ``LongTensor`` [2, E] (converted with ``.cpu().numpy()``, so PyG
``data.edge_index`` works without trihom importing torch).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp

from ._checks import check_array, check_float, check_same_length, describe

__all__ = [
    "Graph",
    "check_features",
    "check_fraction",
    "check_graph",
    "check_int_array",
    "check_labels",
]


def check_fraction(value: Any, name: str) -> float:
    """A number strictly between 0 and 1 (a split fraction)."""
    return check_float(
        value, name, minimum=0.0, maximum=1.0, min_inclusive=False, max_inclusive=False
    )


def check_int_array(value: Any, name: str, **kwargs: Any) -> np.ndarray:
    """An integer array: NaN/inf or a wrong shape is a ValueError (checked first, on the
    numbers), a non-integral or non-numeric value a TypeError; returned as int64."""
    arr = check_array(value, name, dtype="numeric", **kwargs)
    return check_array(arr, name, dtype="int", allow_empty=True).astype(np.int64, copy=False)


@dataclass(frozen=True)
class Graph:
    """A simple undirected graph: ``adj`` symmetric CSR 0/1 (float64), ``src``/``dst`` both
    directions of every edge (sorted by ``src``), ``num_nodes``, ``degree``."""

    adj: sp.csr_matrix
    src: np.ndarray
    dst: np.ndarray
    num_nodes: int

    @property
    def degree(self) -> np.ndarray:
        return np.diff(self.adj.indptr).astype(np.float64)

    @property
    def num_edges(self) -> int:
        """Number of undirected edges."""
        return int(self.src.size // 2)


def _torch_to_numpy(value: Any) -> Any:
    if type(value).__module__.startswith("torch") and hasattr(value, "detach"):
        if value.is_floating_point() or value.is_complex():
            raise TypeError(f"edge_index must hold integers, got {describe(value)}")
        return value.detach().cpu().numpy()
    return value


def check_graph(
    edge_index: Any, num_nodes: int, name: str = "edge_index", *, require_edges: bool = True
) -> Graph:
    """Validate ``edge_index`` for a graph on ``num_nodes`` nodes and return its simple form."""
    if sp.issparse(edge_index):
        shape = edge_index.shape
        if len(shape) != 2 or shape[0] != shape[1]:
            raise ValueError(f"{name} as a sparse adjacency must be square, got shape {shape}")
        if shape[0] != num_nodes:
            raise ValueError(
                f"{name} is a {shape[0]}x{shape[1]} adjacency but there are {num_nodes} nodes"
                " (len(y) or X's rows)"
            )
        coo = sp.coo_matrix(edge_index)
        data = check_array(coo.data, name, ndim=1, allow_empty=True)
        keep = data != 0
        row, col = coo.row[keep].astype(np.int64), coo.col[keep].astype(np.int64)
    else:
        arr = check_int_array(
            _torch_to_numpy(edge_index), name, ndim=2, allow_empty=not require_edges
        )
        if arr.shape[0] != 2:
            raise ValueError(f"{name} must have shape (2, E), got shape {arr.shape}")
        arr = arr.astype(np.int64, copy=False)
        if arr.size:
            lo, hi = int(arr.min()), int(arr.max())
            if lo < 0 or hi >= num_nodes:
                raise ValueError(
                    f"{name} must hold node indices in [0, {num_nodes - 1}], got values in"
                    f" [{lo}, {hi}] ({num_nodes} nodes)"
                )
        row, col = arr[0], arr[1]
    off = row != col
    row, col = row[off], col[off]
    ones = np.ones(2 * row.size)
    adj = sp.csr_matrix(
        (ones, (np.concatenate([row, col]), np.concatenate([col, row]))),
        shape=(num_nodes, num_nodes),
    )
    adj.sum_duplicates()
    adj.data[:] = 1.0
    adj.sort_indices()
    if require_edges and adj.nnz == 0:
        raise ValueError(f"{name} must contain at least one edge that is not a self-loop")
    src = np.repeat(np.arange(num_nodes), np.diff(adj.indptr))
    return Graph(adj=adj, src=src, dst=adj.indices.astype(np.int64), num_nodes=num_nodes)


def check_labels(y: Any, name: str = "y") -> np.ndarray:
    """Class labels: a non-empty 1-d int array with values >= 0 (C = max(y) + 1)."""
    y = check_int_array(y, name, ndim=1)
    if int(y.min()) < 0:
        raise ValueError(f"{name} must hold class labels >= 0, got min {int(y.min())}")
    return y


def check_features(x: Any, num_nodes: int, name: str = "X", *, labels_name: str = "y"):
    """Node features: a finite 2-d float array with one row per node."""
    x = check_array(x, name, ndim=2)
    if x.shape[0] != num_nodes:
        check_same_length(**{labels_name: np.empty(num_nodes), name: x})
    return x
