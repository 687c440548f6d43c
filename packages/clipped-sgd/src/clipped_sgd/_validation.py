"""Checks the scikit-learn estimators need beyond ``_checks`` (built on it).

scikit-learn's ``validate_data`` does the conversion (lists, DataFrames, object arrays, sparse
refusal) and keeps the messages its estimator checks expect; these checks run first and catch what
it reports without naming the argument: a non-array ``X``, a wrong number of dimensions, zero rows,
strings, a target of strings for a regressor and ``X``/``y`` of different lengths.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._checks import check_bool, check_float, check_int, check_option, check_rng, describe

_RESHAPE_HINT = (
    "Reshape your data either using array.reshape(-1, 1) if your data has a single feature or "
    "array.reshape(1, -1) if it contains a single sample."
)


def _shape(value: Any) -> tuple[int, ...] | None:
    """The shape of an array-like without converting it (None when it has none)."""
    shape = getattr(value, "shape", None)
    if shape is not None:
        try:
            return tuple(int(s) for s in shape)
        except TypeError:
            return None
    try:
        return np.asarray(value).shape
    except (ValueError, TypeError):  # ragged nested lists: validate_data reports them
        return None


def _is_array_like(value: Any) -> bool:
    return hasattr(value, "shape") or hasattr(value, "__array__") or isinstance(value, list | tuple)


def check_features(X: Any, name: str = "X") -> None:
    """``X`` must be a 2-d array-like of numbers with at least one row and one column."""
    if not _is_array_like(X):
        raise TypeError(
            f"{name} must be a 2-d array of numbers (n_samples, n_features), got {describe(X)}"
        )
    shape = _shape(X)
    if shape is None:
        return
    if len(shape) != 2:
        raise ValueError(
            f"{name} must be 2-d (n_samples, n_features), got shape {shape}. {_RESHAPE_HINT}"
        )
    if shape[0] == 0:
        raise ValueError(f"{name} must not be empty: 0 sample(s) (shape={shape})")
    if shape[1] == 0:
        raise ValueError(
            f"{name} must not be empty: 0 feature(s) (shape={shape}) while a minimum of 1 is required."
        )
    dtype = getattr(X, "dtype", None)
    if dtype is None and isinstance(X, list | tuple):
        dtype = np.asarray(X).dtype
    if getattr(dtype, "kind", None) in ("U", "S"):
        raise TypeError(f"{name} must hold numbers, got {describe(np.asarray(X))}")


def check_target(y: Any, X: Any, *, numeric: bool, name: str = "y") -> None:
    """``y`` is a 1-d array-like (or (n, 1)) with as many rows as ``X``; numbers if ``numeric``."""
    if y is None:
        return  # scikit-learn's "requires y to be passed" names y
    if not _is_array_like(y):
        raise TypeError(f"{name} must be a 1-d array (n_samples,), got {describe(y)}")
    shape = _shape(y)
    if shape is None:
        return
    if len(shape) == 0 or len(shape) > 2 or (len(shape) == 2 and shape[1] != 1):
        raise ValueError(f"{name} must be 1-d (n_samples,), got shape {shape}")
    x_shape = _shape(X)
    if x_shape and shape[0] != x_shape[0]:
        raise ValueError(f"{name} has {shape[0]} rows but X has {x_shape[0]}; they must match")
    if numeric:
        if np.asarray(y).dtype.kind in ("U", "S"):
            raise TypeError(
                f"{name} must hold numbers (a regression target), got dtype {np.asarray(y).dtype}"
            )


def check_level_or_auto(value: Any, name: str, *, allow_none: bool, allow_inf: bool) -> Any:
    """``"auto"``, None (if allowed) or a number > 0."""
    if value is None and allow_none:
        return None
    if isinstance(value, str):
        return check_option(value, name, ("auto",))
    return check_float(value, name, minimum=0.0, min_inclusive=False, finite=not allow_inf)


def check_estimator_params(est: Any) -> None:
    """Every hyper-parameter of a streaming estimator, by the package's one rule."""
    check_level_or_auto(est.clip, "clip", allow_none=True, allow_inf=True)
    check_float(
        est.delta, "delta", minimum=0.0, maximum=1.0, min_inclusive=False, max_inclusive=False
    )
    check_float(est.c, "c", minimum=0.0, min_inclusive=False)
    check_int(est.batch_size, "batch_size", minimum=1)
    if est.horizon is not None:
        check_int(est.horizon, "horizon", minimum=1)
    mu = check_level_or_auto(getattr(est, "mu", 1.0), "mu", allow_none=False, allow_inf=False)
    L = check_level_or_auto(getattr(est, "L", 1.0), "L", allow_none=False, allow_inf=False)
    if not isinstance(mu, str) and not isinstance(L, str) and L < mu:
        raise ValueError(f"L must be >= mu, got L={L}, mu={mu}")
    for flag in ("fit_intercept", "average", "shuffle"):
        if hasattr(est, flag):
            check_bool(getattr(est, flag), flag)
    check_rng(est.random_state, "random_state")  # checked, not consumed: fit draws from it
