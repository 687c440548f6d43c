"""Package-specific checks, built on the shared vocabulary in ``_checks``."""

from __future__ import annotations

from typing import Any

import numpy as np

from ._checks import check_array, describe


def check_coords(value: Any, name: str = "coords", *, min_nodes: int = 1) -> np.ndarray:
    """Node coordinates as a float64 array of shape [B, n, 2] (a single [n, 2] instance is
    promoted to B = 1)."""
    arr = check_array(value, name, ndim=(2, 3))
    if arr.ndim == 2:
        arr = arr[None]
    if arr.shape[-1] != 2:
        raise ValueError(f"{name} must have 2 coordinates per node (last axis), got {arr.shape}")
    if arr.shape[1] < min_nodes:
        raise ValueError(f"{name} must have at least {min_nodes} nodes, got shape {arr.shape}")
    return arr


def check_index_array(value: Any, name: str, *, ndim) -> np.ndarray:
    """An integer array (integral floats accepted), no bools."""
    if isinstance(value, np.ndarray) and value.dtype == np.bool_:
        raise TypeError(f"{name} must hold integers, got {describe(value)}")
    if isinstance(value, np.ndarray) and value.dtype.kind == "f" and value.size:
        check_array(value, name, ndim=ndim)  # NaN/inf and a wrong ndim are value errors
    arr = check_array(value, name, ndim=ndim, dtype="int")
    return arr.astype(np.int64, copy=False)


def is_permutation_rows(tours: np.ndarray, n: int) -> np.ndarray:
    """Boolean [B]: each row of the integer array ``tours`` is a permutation of 0..n-1."""
    if tours.ndim != 2 or tours.shape[1] != n:
        return np.zeros(tours.shape[0] if tours.ndim == 2 else 0, dtype=bool)
    if n == 0:
        return np.ones(tours.shape[0], dtype=bool)
    in_range = np.all((tours >= 0) & (tours < n), axis=1)
    safe = np.where((tours >= 0) & (tours < n), tours, 0)
    ok = np.zeros(tours.shape[0], dtype=bool)
    srt = np.sort(safe, axis=1)
    ok = in_range & np.all(srt == np.arange(n)[None, :], axis=1)
    return ok


def check_tours(value: Any, coords: np.ndarray, name: str = "tours") -> np.ndarray:
    """Tours [B, n] (or [n] for a single instance), each row a permutation of 0..n-1."""
    tours = check_index_array(value, name, ndim=(1, 2))
    if tours.ndim == 1:
        tours = tours[None]
    b, n = coords.shape[0], coords.shape[1]
    if tours.shape != (b, n):
        raise ValueError(f"{name} must have shape ({b}, {n}) to match coords, got {tours.shape}")
    return require_permutations(tours, n, name)


def require_permutations(tours: np.ndarray, n: int, name: str = "tours") -> np.ndarray:
    """``tours`` (checked integers [B, n]) unchanged if every row is a permutation of 0..n-1."""
    bad = ~is_permutation_rows(tours, n)
    if bad.any():
        raise ValueError(
            f"{name} must hold a permutation of 0..{n - 1} in every row; "
            f"row(s) {np.flatnonzero(bad)[:5].tolist()} are not"
        )
    return tours
