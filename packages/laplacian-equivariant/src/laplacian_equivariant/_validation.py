"""Package-specific input checks, built on the shared vocabulary in ``_checks``."""

from __future__ import annotations

from typing import Any

import numpy as np

from ._checks import check_array, check_int, describe


def _to_numpy(value: Any) -> Any:
    """torch tensors and scipy.sparse matrices -> numpy arrays; anything else unchanged."""
    if type(value).__module__.startswith("torch") and hasattr(value, "detach"):
        if value.is_complex():
            raise TypeError(f"got a complex tensor {describe(value)}")
        return value.detach().cpu().numpy()
    try:
        import scipy.sparse as sp
    except ImportError:  # pragma: no cover - scipy is a dependency
        return value
    if sp.issparse(value):
        return value.toarray()
    return value


def check_adjacency(value: Any, name: str = "adj") -> np.ndarray:
    """A square, symmetric, non-negative, finite adjacency [m, m] with a zero diagonal.

    numpy arrays, nested sequences, ``torch.Tensor`` and ``scipy.sparse`` matrices are accepted;
    bool and integer entries are read as edge weights 0/1.
    """
    try:
        raw = _to_numpy(value)
    except TypeError as e:
        raise TypeError(f"{name} must hold real numbers ({e})") from None
    arr = check_array(raw, name, ndim=2, dtype="any")
    if arr.shape[0] != arr.shape[1]:
        raise ValueError(f"{name} must be square [m, m], got shape {arr.shape}")
    arr = arr.astype(np.float64)
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite")
    if np.any(arr < 0):
        raise ValueError(f"{name} must have non-negative edge weights, got min {arr.min()}")
    if not np.allclose(arr, arr.T, rtol=0.0, atol=1e-12):
        raise ValueError(f"{name} must be symmetric (an undirected graph)")
    if np.any(np.diag(arr) != 0):
        raise ValueError(f"{name} must have a zero diagonal (no self-loops)")
    return arr


def check_edge_index(value: Any, name: str, num_nodes: int) -> np.ndarray:
    """An integer edge list [2, E] with entries in [0, num_nodes) (numpy, torch or sequence)."""
    try:
        raw = _to_numpy(value)
    except TypeError as e:
        raise TypeError(f"{name} must hold integers ({e})") from None
    # NaN/inf are a wrong value (ValueError) before the integer check calls them a wrong type
    check_array(raw, name, dtype="numeric", allow_empty=True)
    arr = check_array(raw, name, ndim=2, dtype="int", allow_empty=True)
    if arr.shape[0] != 2:
        raise ValueError(f"{name} must have shape [2, E], got shape {arr.shape}")
    if arr.size and (arr.min() < 0 or arr.max() >= num_nodes):
        raise ValueError(
            f"{name} has node indices outside [0, num_nodes={num_nodes}): "
            f"min {int(arr.min())}, max {int(arr.max())}"
        )
    return arr.astype(np.int64, copy=False)


def check_sizes(value: Any, name: str = "sizes") -> tuple[int, ...]:
    """A non-empty collection of distinct cycle lengths, each an int >= 3 -> sorted tuple."""
    if isinstance(value, str | bytes) or not hasattr(value, "__iter__"):
        raise TypeError(f"{name} must be a sequence of ints, got {describe(value)}")
    out = [check_int(v, name, minimum=3) for v in value]
    if not out:
        raise ValueError(f"{name} must not be empty")
    if len(set(out)) != len(out):
        raise ValueError(f"{name} must not repeat a size, got {tuple(out)}")
    return tuple(sorted(out))
