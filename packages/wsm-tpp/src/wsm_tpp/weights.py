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

WEIGHTS = ("two_sided_min", "two_sided_product", "one_sided", "none")


def weight(t, tprev, T, kind: str = "two_sided_min") -> tuple[np.ndarray, np.ndarray]:
    """Weight h(t) and its derivative h'(t) for events at ``t`` after ``tprev`` in window ``T``.

    Args:
        t: (M,) event times.
        tprev: scalar or (M,) previous event times (0 for the first event).
        T: scalar or (M,) observation horizons.
        kind: one of ``"two_sided_min"``, ``"two_sided_product"``, ``"one_sided"``, ``"none"``.

    Returns:
        ``(h, dh)``, each (M,).

    >>> h, dh = weight(np.array([1.0, 9.0]), np.array([0.0, 8.5]), 10.0)
    >>> h.tolist(), dh.tolist()
    ([1.0, 0.5], [1.0, 1.0])
    """
    if kind not in WEIGHTS:
        raise ValueError(f"weight must be one of {WEIGHTS}, got {kind!r}")
    t = np.asarray(t, dtype=np.float64)
    try:
        tprev = np.broadcast_to(np.asarray(tprev, dtype=np.float64), t.shape)
        T = np.broadcast_to(np.asarray(T, dtype=np.float64), t.shape)
    except ValueError as exc:
        raise ValueError(f"tprev and T must be scalars or have the shape of t {t.shape}") from exc
    if not (np.all(np.isfinite(t)) and np.all(np.isfinite(tprev)) and np.all(np.isfinite(T))):
        raise ValueError("t, tprev and T must be finite")
    if np.any(t < tprev) or np.any(t > T):
        raise ValueError("weights need tprev <= t <= T (the support of event n's time)")
    left, right = t - tprev, T - t
    if kind == "two_sided_min":
        # min(t - t_prev, T - t); h' = +1 on the left half, -1 on the right half (ties -> +1 as in the code)
        return np.minimum(left, right), np.where(left <= right, 1.0, -1.0)
    if kind == "two_sided_product":
        return left * right, right - left
    if kind == "one_sided":
        return left, np.ones_like(t)
    if kind == "none":
        return np.ones_like(t), np.zeros_like(t)
    raise ValueError(f"weight must be one of {WEIGHTS}, got {kind!r}")
