"""The package's own checks, built on the shared vocabulary in :mod:`._checks`.

Same rule as ``_checks``: a wrong type raises ``TypeError``, a wrong value ``ValueError``, and the
message starts with the argument's name and says what was received.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._checks import check_array, check_option, check_same_length

NAN_POLICIES = ("propagate", "raise", "omit")
ALTERNATIVES = ("two-sided", "greater", "less")

# Data whose largest magnitude lies outside [2**-_SAFE_EXP, 2**_SAFE_EXP] is rescaled by a power
# of two (exact) before centring and products, which would otherwise overflow or underflow.
_SAFE_EXP = 500


def as_data(value: Any, name: str, *, ndim: int | tuple[int, ...] = (1, 2)) -> np.ndarray:
    """A float64 sample (n,) or (n, p), n >= 2, that may hold NaN (handled by ``nan_policy``)
    but no infinities. Bool and integer data are accepted (as 0/1 and floats)."""
    arr = check_array(value, name, ndim=ndim, finite=False)
    n_inf = int(np.count_nonzero(np.isinf(arr)))
    if n_inf:
        raise ValueError(f"{name} must not contain infinite values, got {n_inf}")
    if arr.shape[0] < 2:
        raise ValueError(f"{name} needs at least 2 observations (rows), got shape {arr.shape}")
    return arr


def as_pair(x: Any, y: Any) -> tuple[np.ndarray, np.ndarray]:
    """Two paired 1-d samples of the same length without NaN or infinities."""
    x = as_data(x, "x", ndim=1)
    y = as_data(y, "y", ndim=1)
    check_same_length(x=x, y=y)
    for arr, name in ((x, "x"), (y, "y")):
        n_nan = int(np.count_nonzero(np.isnan(arr)))
        if n_nan:
            raise ValueError(
                f"{name} must not contain NaN, got {n_nan}; drop incomplete pairs first"
            )
    return x, y


def check_nan_policy(nan_policy: Any) -> str:
    return check_option(nan_policy, "nan_policy", NAN_POLICIES)


def check_alternative(alternative: Any) -> str:
    return check_option(alternative, "alternative", ALTERNATIVES)


def scale_exponent(a: np.ndarray, axis: int | None = None) -> np.ndarray | int:
    """Power-of-two exponents ``k`` (per column with ``axis=0``) such that ``a * 2**-k`` can be
    centred and multiplied without overflow or underflow; 0 for ordinary magnitudes (so ordinary
    data are never touched and results stay bit-identical)."""
    with np.errstate(invalid="ignore"):
        m = np.nanmax(np.abs(a), axis=axis, initial=0.0) if a.size else np.zeros(())
    _, e = np.frexp(m)
    ok = (m == 0) | ~np.isfinite(m) | ((e > -_SAFE_EXP) & (e < _SAFE_EXP))
    k = np.where(ok, 0, e)
    return int(k) if np.ndim(k) == 0 else k


def rescaled(a: np.ndarray, axis: int | None = None) -> np.ndarray:
    """``a`` divided by the power of two of :func:`scale_exponent` (exact; usually a no-op)."""
    k = scale_exponent(a, axis=axis)
    if np.all(k == 0):
        return a
    return np.ldexp(a, -np.asarray(k))
