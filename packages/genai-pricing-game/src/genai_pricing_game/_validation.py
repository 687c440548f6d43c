"""Input checks shared by the package: clear errors that name the offending argument."""

from __future__ import annotations

import numpy as np

TIES = ("latecomer", "first_mover")


def as_float_array(x, name: str, *, ndim: int | None = None, allow_empty: bool = False):
    """Convert ``x`` to a float64 array, rejecting non-numeric, NaN, wrong ``ndim`` and empty."""
    if isinstance(x, (str, bytes)):
        raise TypeError(f"{name} must be numeric, got {type(x).__name__}")
    try:
        arr = np.asarray(x)
    except Exception as exc:  # pragma: no cover - exotic inputs
        raise TypeError(f"{name} must be array-like of numbers") from exc
    if arr.dtype == bool or not (
        np.issubdtype(arr.dtype, np.integer) or np.issubdtype(arr.dtype, np.floating)
    ):
        raise TypeError(f"{name} must be a real numeric array, got dtype {arr.dtype}")
    arr = arr.astype(np.float64)
    if ndim is not None and arr.ndim != ndim:
        raise ValueError(f"{name} must be {ndim}-dimensional, got shape {arr.shape}")
    if not allow_empty and arr.size == 0:
        raise ValueError(f"{name} must not be empty")
    if np.isnan(arr).any():
        raise ValueError(f"{name} must not contain NaN")
    return arr


def check_positive(arr: np.ndarray, name: str, *, finite: bool = True) -> np.ndarray:
    if finite and not np.isfinite(arr).all():
        raise ValueError(f"{name} must be finite")
    if (arr <= 0).any():
        raise ValueError(f"{name} must be > 0")
    return arr


def check_tie(tie: str) -> str:
    if tie not in TIES:
        raise ValueError(f"tie must be one of {TIES}, got {tie!r}")
    return tie


def as_kappa(kappa) -> np.ndarray:
    """Relative performances, shape (m,), finite and > 0."""
    k = as_float_array(kappa, "kappa")
    if k.ndim == 0:
        k = k.reshape(1)
    if k.ndim != 1:
        raise ValueError(f"kappa must be 1-dimensional (one value per task), got shape {k.shape}")
    return check_positive(k, "kappa")
