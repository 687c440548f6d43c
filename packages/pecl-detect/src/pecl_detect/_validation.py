"""Package-specific checks built on the shared ``_checks`` vocabulary."""

from __future__ import annotations

import numpy as np

from ._checks import check_array


def check_labels(value, name: str) -> np.ndarray:
    """A 1-d integer label array (may be empty); NaN/inf in a float array is a ValueError
    (a wrong value) before the integer-dtype TypeError."""
    if isinstance(value, np.ndarray | list | tuple):
        try:
            raw = np.asarray(value)
        except ValueError:
            raw = None
        if raw is not None and raw.dtype.kind == "f" and not np.all(np.isfinite(raw)):
            raise ValueError(f"{name} must be finite class labels, got NaN or infinite values")
    return check_array(value, name, ndim=1, dtype="int", allow_empty=True)
