"""bsr-dp's own input checks, built on the shared vocabulary in `_checks` (never edit that file).

Wrong type -> ``TypeError``, wrong value -> ``ValueError``; both name the argument and what was
received (the rule of `_checks`).
"""

from __future__ import annotations

import numpy as np

from ._checks import check_array, check_float, check_int

__all__ = [
    "check_coefs",
    "check_momentum",
    "check_optional_int",
    "check_positive_int",
    "check_square",
]


def check_positive_int(value, name: str, *, minimum: int = 1) -> int:
    """An integer >= ``minimum`` (default 1)."""
    return check_int(value, name, minimum=minimum)


def check_optional_int(value, name: str, *, minimum: int = 1) -> int | None:
    return None if value is None else check_int(value, name, minimum=minimum)


def check_momentum(momentum, weight_decay) -> tuple[float, float]:
    """beta in [0, 1) and alpha in (0, 1] (the paper's SGD-with-momentum-and-weight-decay workload)."""
    beta = check_float(momentum, "momentum", minimum=0.0, maximum=1.0, max_inclusive=False)
    alpha = check_float(weight_decay, "weight_decay", minimum=0.0, maximum=1.0, min_inclusive=False)
    return beta, alpha


def check_coefs(coefs, name: str, *, first_positive: bool = True) -> np.ndarray:
    """A non-empty, finite, real 1-D array of Toeplitz coefficients, returned as float64."""
    arr = check_array(coefs, name, ndim=1)
    if first_positive and not arr[0] > 0:
        raise ValueError(
            f"{name}[0] must be > 0 (invertible lower-triangular Toeplitz), got {arr[0]}"
        )
    return arr


def check_square(matrix, name: str) -> np.ndarray:
    """A non-empty, finite, real square matrix, returned as float64."""
    arr = check_array(matrix, name, ndim=2)
    if arr.shape[0] != arr.shape[1]:
        raise ValueError(f"{name} must be square, got shape {arr.shape}")
    return arr
