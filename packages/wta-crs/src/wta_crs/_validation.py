"""Package-specific checks, built on the shared vocabulary (``_checks``)."""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from ._checks import check_array, check_float, check_int, check_option, describe


def check_pair(X: Any, G: Any) -> tuple[np.ndarray, np.ndarray]:
    """``X`` (n, d_in) and ``G`` (n, d_out), finite, non-empty, with the same number of rows."""
    X = check_array(X, "X", ndim=2)
    G = check_array(G, "G", ndim=2)
    if X.shape[0] != G.shape[0]:
        raise ValueError(
            f"G must have as many rows as X (one output gradient per input row): "
            f"X has {X.shape[0]} rows, G has {G.shape[0]}"
        )
    return X, G


def check_k(k: Any, n: int | None) -> int:
    """A row budget ``1 <= k`` (``<= n`` when ``n`` is given)."""
    return check_int(k, "k", minimum=1, maximum=n)


def check_weights(p: Any, name: str, n: int | None) -> np.ndarray:
    """Non-negative finite weights of length ``n`` with a positive sum, returned normalised."""
    p = check_array(p, name, ndim=1)
    if n is not None and p.shape[0] != n:
        raise ValueError(f"{name} must have one entry per row of X ({n}), got length {p.shape[0]}")
    if np.any(p < 0):
        raise ValueError(f"{name} must be non-negative, got minimum {p.min()!r}")
    total = p.sum()
    if not total > 0:
        raise ValueError(f"{name} must have a positive sum, got {total!r}")
    return p / total


def check_num_deterministic(value: Any, k: int, n: int) -> int | str:
    """``"adaptive"`` or an int ``0 <= c <= min(k - 1, n)``."""
    if isinstance(value, str):
        return check_option(value, "num_deterministic", ("adaptive",))
    if not isinstance(value, int | np.integer) or isinstance(value, bool | np.bool_):
        raise TypeError(f"num_deterministic must be 'adaptive' or an int, got {describe(value)}")
    return check_int(value, "num_deterministic", minimum=0, maximum=min(k - 1, n))


def check_ratio(ratio: Any) -> float:
    """The kept fraction of rows, in (0, 1]."""
    return check_float(ratio, "ratio", minimum=0.0, maximum=1.0, min_inclusive=False)


def check_regex(value: Any, name: str, *, none_ok: bool) -> re.Pattern | None:
    """``None`` (when allowed), a regex string or a compiled pattern."""
    if value is None and none_ok:
        return None
    if isinstance(value, re.Pattern):
        return value
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a regular expression string, got {describe(value)}")
    try:
        return re.compile(value)
    except re.error as e:
        raise ValueError(f"{name} is not a valid regular expression ({e}): {value!r}") from None


def check_module(value: Any, name: str) -> Any:
    import torch

    if not isinstance(value, torch.nn.Module):
        raise TypeError(f"{name} must be a torch.nn.Module, got {describe(value)}")
    return value
