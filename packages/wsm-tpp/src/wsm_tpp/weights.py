"""Weight functions h and h' for weighted score matching (Cao et al., NeurIPS 2024, Sec. 4).

Is Score Matching Suitable for Estimating Point Processes? - https://arxiv.org/abs/2410.04037

Event n's conditional density lives on (t_{n-1}, T). Hyvarinen's integration by parts needs the
boundary term h(t) p(t) psi(t) to vanish at both ends; p does not vanish there, so h must.
``two_sided_min`` (the original code's ``"two_side_op"``, its default) is the distance to the
nearest boundary; ``two_sided_product`` is the code's ``"two_side_ord"``; ``one_sided`` (code
``"one_side_opt"``) only vanishes at t_{n-1} (valid without an upper truncation); ``none`` is
h = 1, h' = 0, i.e. the old (autoregressive) score matching, which is biased.
"""

from __future__ import annotations

import numpy as np

from ._checks import check_array, check_float, check_option

WEIGHTS = ("two_sided_min", "two_sided_product", "one_sided", "none")


def _scalar_or_like(value, name: str, t: np.ndarray) -> np.ndarray:
    """A finite number, or a finite array of the shape of ``t``; broadcast to it."""
    if np.ndim(value) == 0 and not isinstance(value, np.ndarray | list | tuple):
        return np.full(t.shape, check_float(value, name))
    arr = check_array(value, name, ndim=(0, 1))
    if arr.ndim == 1 and arr.shape != t.shape:
        raise ValueError(
            f"{name} must be a number or have the shape of t {t.shape}, got shape {arr.shape}"
        )
    return np.broadcast_to(arr, t.shape)


def weight(t, tprev, T, *, kind: str = "two_sided_min") -> tuple[np.ndarray, np.ndarray]:
    """Weight h(t) and its derivative h'(t) for events at ``t`` after ``tprev`` in window ``T``.

    Args:
        t: (M,) finite event times.
        tprev: a number or (M,) previous event times (0 for the first event); ``tprev <= t``.
        T: a number or (M,) observation horizons; ``t <= T``.
        kind: one of ``"two_sided_min"``, ``"two_sided_product"``, ``"one_sided"``, ``"none"``.

    Returns:
        ``(h, dh)``, each (M,).

    >>> h, dh = weight(np.array([1.0, 9.0]), np.array([0.0, 8.5]), 10.0)
    >>> h.tolist(), dh.tolist()
    ([1.0, 0.5], [1.0, 1.0])
    """
    kind = check_option(kind, "kind", WEIGHTS)
    t = check_array(t, "t", ndim=1)
    tprev = _scalar_or_like(tprev, "tprev", t)
    T = _scalar_or_like(T, "T", t)
    if np.any(t < tprev) or np.any(t > T):
        raise ValueError("weights need tprev <= t <= T (the support of event n's time)")
    return _weight(t, tprev, T, kind)


def _weight(t, tprev, T, kind):
    """:func:`weight` without input checks (the objectives' inner loop)."""
    left, right = t - tprev, T - t
    if kind == "two_sided_min":
        # min(t - t_prev, T - t); h' = +1 on the left half, -1 on the right half (ties -> +1 as in the code)
        return np.minimum(left, right), np.where(left <= right, 1.0, -1.0)
    if kind == "two_sided_product":
        return left * right, right - left
    if kind == "one_sided":
        return left, np.ones_like(t)
    return np.ones_like(t), np.zeros_like(t)  # "none"
