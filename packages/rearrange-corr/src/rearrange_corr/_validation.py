"""Input checks shared by the public functions (clear errors that name the argument)."""

from __future__ import annotations

import numbers

import numpy as np

NAN_POLICIES = ("propagate", "raise", "omit")
ALTERNATIVES = ("two-sided", "greater", "less")


def as_float_array(a, name: str) -> np.ndarray:
    """Convert `a` to a float64 array of ndim 1 or 2, rejecting non-real dtypes and infinities."""
    if a is None:
        raise TypeError(f"{name} must be an array-like of real numbers, got None")
    arr = np.asarray(a)
    if arr.dtype == object or arr.dtype.kind not in "biuf":
        raise TypeError(
            f"{name} must hold real numbers (bool, int or float), got dtype {arr.dtype}"
        )
    arr = arr.astype(np.float64, copy=False)
    if arr.ndim not in (1, 2):
        raise ValueError(
            f"{name} must be 1-d (n,) or 2-d (n, p) with variables as columns, "
            f"got ndim={arr.ndim} (shape {arr.shape})"
        )
    if arr.size == 0:
        raise ValueError(f"{name} is empty (shape {arr.shape}); need at least 2 observations")
    if np.isinf(arr).any():
        raise ValueError(f"{name} contains infinite values")
    if arr.shape[0] < 2:
        raise ValueError(f"{name} needs at least 2 observations (rows), got {arr.shape[0]}")
    return arr


def check_nan_policy(nan_policy) -> str:
    if nan_policy not in NAN_POLICIES:
        raise ValueError(f"nan_policy must be one of {NAN_POLICIES}, got {nan_policy!r}")
    return nan_policy


def check_alternative(alternative) -> str:
    if alternative not in ALTERNATIVES:
        raise ValueError(f"alternative must be one of {ALTERNATIVES}, got {alternative!r}")
    return alternative


def check_positive_int(value, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be a positive integer, got {value!r}")
    if value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value}")
    return int(value)
