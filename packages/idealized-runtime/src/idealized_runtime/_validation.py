"""Package-specific checks built on the shared ``_checks`` vocabulary."""

from __future__ import annotations

from typing import Any

import numpy as np

from ._checks import check_array


def check_tokens(
    value: Any, name: str, *, minimum: int = 0, ndim=None, allow_empty=True
) -> np.ndarray:
    """Token counts: numbers (no bools; NaN/inf a ValueError), integral (2.5 a TypeError, as
    ``check_array(dtype="int")``), each ``>= minimum``; returned as an int64 array."""
    arr = check_array(value, name, dtype="numeric", ndim=ndim, allow_empty=allow_empty)
    arr = check_array(arr, name, dtype="int", allow_empty=allow_empty).astype(np.int64, copy=False)
    if arr.size and arr.min() < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {int(arr.min())}")
    return arr
