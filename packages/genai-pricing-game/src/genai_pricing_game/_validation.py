"""The package's own checks, built on the shared vocabulary in :mod:`._checks`.

Same rule as ``_checks``: a wrong type raises ``TypeError``, a wrong value ``ValueError``, and the
message starts with the argument's name and says what was received.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._checks import check_array, check_option

TIES = ("latecomer", "first_mover")


def real_array(value: Any, name: str, **kwargs: Any) -> np.ndarray:
    """A finite float64 array of real numbers; bools, strings, None, complex -> ``TypeError``.

    ``kwargs`` go to :func:`check_array` (``ndim``, ``shape``, ``allow_empty``, ``finite``).
    """
    return check_array(value, name, dtype="numeric", **kwargs).astype(np.float64, copy=False)


def positive_array(value: Any, name: str, **kwargs: Any) -> np.ndarray:
    """:func:`real_array` whose every entry is > 0."""
    arr = real_array(value, name, **kwargs)
    if arr.size and not (arr > 0).all():
        raise ValueError(f"{name} must be > 0, got min {float(arr.min())!r}")
    return arr


def in_range(arr: np.ndarray, name: str, lo: float, hi: float, *, lo_open: bool) -> np.ndarray:
    """Every entry in ``(lo, hi]`` (``lo_open``) or ``[lo, hi]``."""
    below = (arr <= lo) if lo_open else (arr < lo)
    if arr.size and (below | (arr > hi)).any():
        interval = f"({lo:g}, {hi:g}]" if lo_open else f"[{lo:g}, {hi:g}]"
        raise ValueError(
            f"{name} must lie in {interval}, got values in [{float(arr.min())!r}, "
            f"{float(arr.max())!r}]"
        )
    return arr


def broadcast_shape(**arrays: np.ndarray) -> tuple[int, ...]:
    """The common broadcast shape; ``ValueError`` naming the arguments when there is none."""
    try:
        return np.broadcast_shapes(*(a.shape for a in arrays.values()))
    except ValueError:
        shapes = ", ".join(f"{k} {a.shape}" for k, a in arrays.items())
        names = ", ".join(arrays)
        raise ValueError(f"{names} must have broadcastable shapes, got {shapes}") from None


def check_tie(tie: Any) -> str:
    return check_option(tie, "tie", TIES)


def as_kappa(kappa: Any) -> np.ndarray:
    """Relative performances, shape (m,), finite and > 0 (a scalar is one task)."""
    k = positive_array(kappa, "kappa", ndim=(0, 1))
    return k.reshape(1) if k.ndim == 0 else k


def bool_mask(value: Any, name: str, m: int) -> np.ndarray:
    """A bool mask of shape ``(m,)``; 0/1 or float masks are refused (``TypeError``)."""
    return check_array(value, name, dtype="bool", shape=(m,))
