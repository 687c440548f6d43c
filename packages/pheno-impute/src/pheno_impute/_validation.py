"""Package-specific checks, built on the shared vocabulary in ``_checks``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ._checks import check_array, check_int, describe


def check_table(value: Any, name: str = "X") -> np.ndarray:
    """A 2-d float64 table where NaN marks a missing entry; +-inf is refused (ValueError)."""
    if hasattr(value, "tocsr") or type(value).__module__.startswith("scipy.sparse"):
        raise TypeError(f"{name} must be a dense array (NaN = missing), got a sparse matrix")
    if isinstance(value, np.ndarray) and value.dtype == object:
        try:
            value = value.astype(np.float64)
        except (TypeError, ValueError) as e:
            raise TypeError(f"{name} must hold real numbers, got an object array ({e})") from None
    try:
        kind = np.asarray(value).dtype.kind
    except (TypeError, ValueError):  # ragged: check_array below names the problem
        kind = None
    if kind == "c":  # scikit-learn's convention: complex data is a ValueError
        raise ValueError(f"{name} must hold real numbers: Complex data not supported")
    arr = check_array(value, name, finite=False, allow_empty=True)
    if arr.ndim != 2:
        raise ValueError(
            f"{name} must be 2-d (patients x columns), got shape {arr.shape}; Reshape your data "
            "with array.reshape(-1, 1) for one column or array.reshape(1, -1) for one row"
        )
    for axis, what in ((0, "sample"), (1, "feature")):
        if arr.shape[axis] == 0:
            raise ValueError(
                f"{name} must not be empty: found array with 0 {what}(s) (shape={arr.shape}) "
                "while a minimum of 1 is required."
            )
    n_inf = int(np.isinf(arr).sum())
    if n_inf:
        raise ValueError(
            f"{name} must not contain infinity (NaN marks a missing entry), got {n_inf} "
            "infinite value(s)"
        )
    return arr


def check_binary_or_nan(block: np.ndarray, name: str) -> None:
    """Every entry of ``block`` is 0, 1 or NaN."""
    bad = ~(np.isnan(block) | (block == 0) | (block == 1))
    if bad.any():
        i, j = np.argwhere(bad)[0]
        raise ValueError(
            f"{name} must hold 0, 1 or NaN (missing), got {int(bad.sum())} other value(s), "
            f"e.g. {block[i, j]!r} at row {i}, column {j}"
        )


def check_modalities(value: Any, n_features: int, name: str = "modalities") -> tuple[int, ...]:
    """``None`` (one modality of all ``n_features`` columns), a sequence of positive block sizes
    or a mapping name -> size (in column order); the sizes must sum to ``n_features``."""
    if value is None:
        return (n_features,) if n_features > 0 else ()
    if isinstance(value, Mapping):
        sizes_in = list(value.values())
    elif isinstance(value, Sequence) and not isinstance(value, str | bytes):
        sizes_in = list(value)
    elif isinstance(value, np.ndarray) and value.ndim == 1:
        sizes_in = value.tolist()
    else:
        raise TypeError(
            f"{name} must be None, a sequence of block sizes or a dict name -> size, "
            f"got {describe(value)}"
        )
    sizes = tuple(check_int(s, f"{name}[{i}]", minimum=1) for i, s in enumerate(sizes_in))
    if sum(sizes) != n_features:
        raise ValueError(
            f"{name} sizes must sum to the number of biological feature columns "
            f"({n_features}), got {sizes} (sum {sum(sizes)})"
        )
    return sizes


def check_mask(value: Any, name: str, *, shape: tuple[int, ...] | None = None) -> np.ndarray:
    """A 2-d boolean (or 0/1) mask."""
    arr = check_array(value, name, ndim=2, dtype="any", shape=shape)
    if arr.dtype.kind != "b":
        if not np.isin(arr, (0, 1)).all():
            raise ValueError(f"{name} must be a boolean (or 0/1) mask, got other values")
        arr = arr.astype(bool)
    return arr
