"""Package-specific checks, built on the shared vocabulary in ``_checks``."""

from __future__ import annotations

from typing import Any

import numpy as np

from ._checks import check_array


def check_adj(value: Any, name: str = "adj") -> np.ndarray:
    """A square adjacency matrix -> bool array [n, n].

    Accepts a bool array or a numeric array holding only 0 and 1 (what ``networkx.to_numpy_array``
    returns), or a ``scipy.sparse`` matrix/array (made dense). Anything else is refused: a wrong
    type (strings, objects, None) is a ``TypeError``; a wrong shape, NaN/inf or an entry other
    than 0/1 a ``ValueError``.
    """
    if hasattr(value, "toarray") and hasattr(value, "nnz"):  # scipy.sparse, without importing it
        value = value.toarray()
    arr = check_array(value, name, ndim=2, dtype="any")
    if arr.shape[0] != arr.shape[1]:
        raise ValueError(f"{name} must be square [n, n], got shape {arr.shape}")
    if arr.dtype.kind == "f" and not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite, got NaN or infinite value(s)")
    if arr.dtype.kind != "b":
        if not np.all((arr == 0) | (arr == 1)):
            bad = arr[(arr != 0) & (arr != 1)].ravel()[0]
            raise ValueError(f"{name} must hold only booleans or 0/1, got the value {bad!r}")
        arr = arr != 0
    return np.ascontiguousarray(arr, dtype=bool)


def check_edges(value: Any, name: str, num_nodes: int) -> np.ndarray:
    """An edge list int [2, K] (K may be 0) with entries in [0, num_nodes) -> int64 array."""
    # NaN/inf are wrong values (ValueError) before they are non-integers (TypeError)
    check_array(value, name, ndim=2, dtype="numeric", shape=(2, None), allow_empty=True)
    arr = check_array(value, name, ndim=2, dtype="int", shape=(2, None), allow_empty=True)
    if arr.size and (arr.min() < 0 or arr.max() >= num_nodes):
        bad = arr[(arr < 0) | (arr >= num_nodes)].ravel()[0]
        raise ValueError(
            f"{name} must hold node indices in [0, {num_nodes}), got the index {int(bad)}"
        )
    return arr.astype(np.int64, copy=False)
