"""Exact similarity functions of the DISCO-10M filter (numpy)."""

from __future__ import annotations

import numpy as np

from ._checks import check_array, check_same_length

__all__ = ["cosine_rows", "duration_similarity"]


def _unit_rows(x: np.ndarray, name: str) -> np.ndarray:
    norms = np.sqrt(np.einsum("ij,ij->i", x, x))
    zero = np.flatnonzero(norms == 0)
    if zero.size:
        raise ValueError(
            f"{name} has {zero.size} all-zero row(s) (first: row {int(zero[0])}); "
            "their cosine similarity is undefined"
        )
    if not np.all(np.isfinite(norms)):  # overflow of huge finite values
        scale = np.max(np.abs(x), axis=1, keepdims=True)
        x = x / scale
        norms = np.sqrt(np.einsum("ij,ij->i", x, x))
    return x / norms[:, None]


def cosine_rows(a, b) -> np.ndarray:
    """Row-wise cosine similarity of two ``(n, d)`` arrays -> ``(n,)`` float64 in [-1, 1].

    ``out[i] = <a_i, b_i> / (|a_i| |b_i|)``, computed in float64 and clipped to [-1, 1] against
    rounding. An all-zero row has no direction: ``ValueError`` naming the argument.
    """
    a = check_array(a, "a", ndim=2)
    b = check_array(b, "b", ndim=2)
    check_same_length(a=a, b=b)
    if a.shape[1] != b.shape[1]:
        raise ValueError(f"b has {b.shape[1]} columns but a has {a.shape[1]}; they must match")
    ua = _unit_rows(a, "a")
    ub = _unit_rows(b, "b")
    return np.clip(np.einsum("ij,ij->i", ua, ub), -1.0, 1.0)


def duration_similarity(track_ms, video_s):
    """``1 - |t - v| / max(t, v)`` with ``t = track_ms / 1000`` (seconds) and ``v = video_s``.

    1.0 for equal durations (180 000 ms and 180.0 s), decreasing in ``|t - v|``, in [0, 1].
    Scalars give a Python float, arrays (broadcast together) a float64 array. Durations must
    be finite and > 0 (``ValueError`` naming ``track_ms`` or ``video_s``).
    """
    scalar = np.ndim(track_ms) == 0 and np.ndim(video_s) == 0
    t = check_array(track_ms, "track_ms", allow_empty=True)
    v = check_array(video_s, "video_s", allow_empty=True)
    if t.dtype.kind == "b" or np.asarray(track_ms).dtype.kind == "b":
        raise TypeError(f"track_ms must hold numbers, got booleans {track_ms!r}")
    if np.asarray(video_s).dtype.kind == "b":
        raise TypeError(f"video_s must hold numbers, got booleans {video_s!r}")
    for arr, name in ((t, "track_ms"), (v, "video_s")):
        if arr.size and np.min(arr) <= 0:
            raise ValueError(f"{name} must be > 0, got minimum {float(np.min(arr))}")
    try:
        t, v = np.broadcast_arrays(t / 1000.0, v)
    except ValueError:
        raise ValueError(
            f"video_s has shape {v.shape} but track_ms has {t.shape}; they must broadcast"
        ) from None
    out = 1.0 - np.abs(t - v) / np.maximum(t, v)
    return float(out) if scalar else out
