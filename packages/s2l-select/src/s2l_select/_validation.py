"""Package-specific checks built on the shared vocabulary in ``_checks``."""

from __future__ import annotations

from typing import Any

import numpy as np

from ._checks import check_array, check_int, describe


def check_budget(budget: Any, n: int) -> int:
    """An integer budget in ``[0, n]``."""
    budget = check_int(budget, "budget", minimum=0)
    if budget > n:
        raise ValueError(f"budget must be <= the number of examples ({n}), got {budget}")
    return budget


def check_labels(labels: Any, name: str = "labels") -> np.ndarray:
    """A non-empty 1-D integer array (int64). An integral float array is accepted; NaN/inf
    is a ``ValueError``, a non-integral float a ``TypeError`` (as ``_checks`` does)."""
    arr = check_array(labels, name, ndim=1, dtype="numeric")
    if arr.dtype.kind == "f":
        if not np.all(arr == np.round(arr)):
            raise TypeError(f"{name} must hold integers, got non-integral {describe(arr)}")
    return arr.astype(np.int64)


def check_strata(strata: Any, n: int) -> np.ndarray | None:
    """``None`` or a 1-D array of ``n`` stratum keys: integers, or strings (source names)."""
    if strata is None:
        return None
    if isinstance(strata, str | bytes):
        raise TypeError(f"strata must be None or a 1-D array of keys, got {describe(strata)}")
    try:
        arr = np.asarray(strata)
    except (ValueError, TypeError) as e:
        raise TypeError(f"strata must be a rectangular 1-D array of keys ({e})") from None
    if arr.dtype.kind in "US":
        if arr.ndim != 1:
            raise ValueError(f"strata must be 1-D, got shape {arr.shape}")
        if arr.size == 0:
            raise ValueError("strata must not be empty, got shape (0,)")
    elif arr.dtype.kind == "O":
        if arr.ndim != 1 or not all(isinstance(v, str) for v in arr.tolist()):
            raise TypeError(f"strata must hold integers or strings, got {describe(arr)}")
        if arr.size == 0:
            raise ValueError("strata must not be empty, got shape (0,)")
        arr = arr.astype(str)
    else:
        arr = check_labels(strata, "strata")
    if arr.shape[0] != n:
        raise ValueError(f"strata has {arr.shape[0]} entries but labels has {n}; they must match")
    return arr


def check_trajectories(trajectories: Any, name: str = "trajectories") -> np.ndarray:
    """A non-empty 2-D real array ``[n, T]``; NaN becomes 0 (as the original S2L code does),
    +-inf raises ``ValueError``. A 1-D array is refused (use ``x[:, None]`` for T = 1)."""
    arr = check_array(trajectories, name, ndim=2, finite=False)
    if np.isinf(arr).any():
        bad = int(np.isinf(arr).sum())
        raise ValueError(f"{name} must not hold infinite values, got {bad} inf value(s)")
    nan = np.isnan(arr)
    if nan.any():
        arr = np.where(nan, 0.0, arr)
    return arr
