"""Input checks shared by the public functions (clear errors that name the argument)."""

from __future__ import annotations

import numbers

import numpy as np


def check_int(value, name: str, *, minimum: int = 1) -> int:
    """Return `value` as a Python int >= `minimum`, or raise TypeError/ValueError naming it."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {type(value).__name__}")
    value = int(value)
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value}")
    return value


def check_optional_int(value, name: str, *, minimum: int = 1) -> int | None:
    return None if value is None else check_int(value, name, minimum=minimum)


def check_real(value, name: str) -> float:
    """Return `value` as a finite float, or raise."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__}")
    value = float(value)
    if not np.isfinite(value):
        raise ValueError(f"{name} must be finite, got {value}")
    return value


def check_momentum(momentum, weight_decay) -> tuple[float, float]:
    """beta in [0, 1) and alpha in (0, 1] (the paper's SGD-with-momentum-and-weight-decay workload)."""
    beta = check_real(momentum, "momentum")
    alpha = check_real(weight_decay, "weight_decay")
    if not 0.0 <= beta < 1.0:
        raise ValueError(f"momentum must lie in [0, 1), got {beta}")
    if not 0.0 < alpha <= 1.0:
        raise ValueError(f"weight_decay must lie in (0, 1] (1 = no decay), got {alpha}")
    return beta, alpha


def check_coefs(coefs, name: str, *, first_positive: bool = True) -> np.ndarray:
    """A non-empty, finite, real 1-D array of Toeplitz coefficients, returned as float64."""
    arr = np.asarray(coefs)
    if arr.dtype == object or not (
        np.issubdtype(arr.dtype, np.floating) or np.issubdtype(arr.dtype, np.integer)
    ):
        raise TypeError(f"{name} must be a real numeric array, got dtype {arr.dtype}")
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-D (Toeplitz coefficients), got shape {arr.shape}")
    if arr.size == 0:
        raise ValueError(f"{name} must not be empty")
    arr = arr.astype(np.float64)
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or inf")
    if first_positive and not arr[0] > 0:
        raise ValueError(
            f"{name}[0] must be > 0 (invertible lower-triangular Toeplitz), got {arr[0]}"
        )
    return arr


def check_square(matrix, name: str) -> np.ndarray:
    arr = np.asarray(matrix)
    if arr.dtype == object or not (
        np.issubdtype(arr.dtype, np.floating) or np.issubdtype(arr.dtype, np.integer)
    ):
        raise TypeError(f"{name} must be a real numeric matrix, got dtype {arr.dtype}")
    if arr.ndim != 2 or arr.shape[0] == 0 or arr.shape[1] == 0:
        raise ValueError(f"{name} must be a non-empty 2-D matrix, got shape {arr.shape}")
    arr = arr.astype(np.float64)
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or inf")
    return arr
