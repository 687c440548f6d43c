"""Graph-specific input checks, built on the shared vocabulary in ``_checks``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ._checks import check_array, check_int, describe


@dataclass(frozen=True)
class Graph:
    """A simple undirected graph in CSR form: ``nbrs[indptr[v]:indptr[v+1]]`` are v's neighbours
    (sorted, each once; a self-loop makes v its own neighbour)."""

    num_nodes: int
    indptr: np.ndarray
    nbrs: np.ndarray

    @property
    def degree(self) -> np.ndarray:
        return np.diff(self.indptr)

    @property
    def row(self) -> np.ndarray:
        return np.repeat(np.arange(self.num_nodes, dtype=np.int64), self.degree)


def _to_numpy(value: Any) -> Any:
    """torch tensors (a PyG ``edge_index``) become numpy arrays; everything else is unchanged."""
    if type(value).__module__.startswith("torch") and hasattr(value, "detach"):
        return value.detach().cpu().numpy()
    return value


def _is_sparse(value: Any) -> bool:
    return type(value).__module__.startswith("scipy.sparse") and hasattr(value, "tocoo")


def check_int_array(
    value: Any, name: str, *, ndim: int = 1, allow_empty: bool = False
) -> np.ndarray:
    """An integer array (integral floats accepted): NaN/inf are ValueErrors (checked first),
    non-integral values TypeErrors."""
    arr = check_array(_to_numpy(value), name, ndim=ndim, dtype="numeric", allow_empty=allow_empty)
    if arr.dtype.kind == "f" and not np.all(arr == np.round(arr)):
        raise TypeError(f"{name} must hold integers, got non-integral {describe(arr)}")
    return arr.astype(np.int64)


def check_edge_index(
    edge_index: Any, num_nodes: Any, name: str = "edge_index", num_name: str = "num_nodes"
) -> tuple[np.ndarray, int]:
    """``(edge_index [2, E] int64, num_nodes)`` from an int array [2, E] (numpy, sequence or torch)
    or a square scipy.sparse adjacency (whose nonzeros are the edges; ``num_nodes`` may then be
    None). Indices must lie in ``[0, num_nodes)``."""
    if _is_sparse(edge_index):
        coo = edge_index.tocoo()
        if coo.shape[0] != coo.shape[1]:
            raise ValueError(f"{name} must be a square adjacency matrix, got shape {coo.shape}")
        if num_nodes is None:
            num_nodes = int(coo.shape[0])
        n = check_int(num_nodes, num_name, minimum=1)
        if coo.shape[0] != n:
            raise ValueError(
                f"{num_name} is {n} but the adjacency matrix {name} has shape {coo.shape}"
            )
        keep = coo.data != 0
        ei = np.stack([coo.row[keep], coo.col[keep]]).astype(np.int64)
        return ei, n
    n = check_int(num_nodes, num_name, minimum=1)
    ei = check_int_array(edge_index, name, ndim=2, allow_empty=True)
    if ei.shape[0] != 2:
        raise ValueError(f"{name} must have shape (2, E), got shape {ei.shape}")
    if ei.size and (ei.min() < 0 or ei.max() >= n):
        raise ValueError(
            f"{name} must hold node indices in [0, {num_name}={n}), got values in "
            f"[{int(ei.min())}, {int(ei.max())}]"
        )
    return ei, n


def sorted_unique(a: np.ndarray) -> np.ndarray:
    """``np.unique`` for int arrays by sorting (numpy 2's hash-based unique is slower here)."""
    a = np.sort(a)
    if len(a) < 2:
        return a
    keep = np.empty(len(a), dtype=bool)
    keep[0] = True
    np.not_equal(a[1:], a[:-1], out=keep[1:])
    return a[keep]


def to_graph(edge_index: np.ndarray, n: int) -> Graph:
    """Symmetrise, merge duplicates, and build the CSR neighbour lists."""
    src = np.concatenate([edge_index[0], edge_index[1]])
    dst = np.concatenate([edge_index[1], edge_index[0]])
    key = sorted_unique(src * n + dst)
    src, dst = key // n, key % n
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(src, minlength=n), out=indptr[1:])
    return Graph(n, indptr, dst.astype(np.int64))


def check_graph(edge_index: Any, num_nodes: Any) -> Graph:
    ei, n = check_edge_index(edge_index, num_nodes)
    return to_graph(ei, n)


def check_labels(labels: Any, n: int, name: str = "labels") -> np.ndarray:
    """Initial colours: ``None`` (all equal) or a 1-d [n] / 2-d [n, F] array of numbers, compressed
    to ids 0..k-1 in sorted order of the values (rows lexicographically), so the ids do not depend
    on the node numbering."""
    if labels is None:
        return np.zeros(n, dtype=np.int64)
    arr = check_array(_to_numpy(labels), name, ndim=(1, 2), dtype="any")
    if arr.shape[0] != n:
        raise ValueError(f"{name} has {arr.shape[0]} rows but num_nodes is {n}")
    if arr.ndim == 1:
        return np.unique(arr, return_inverse=True)[1].astype(np.int64).reshape(n)
    return np.unique(arr, axis=0, return_inverse=True)[1].astype(np.int64).reshape(n)
