"""System-1 + reasoning fusion on candidate images, and the per-activity weight search."""

from __future__ import annotations

from typing import Any

import numpy as np

from ._checks import check_array, check_float
from .metrics import _ap_columns, _check_labels

__all__ = ["fuse", "tune_weights"]


def _check_mask(value: Any, name: str, shape: tuple[int, ...]) -> np.ndarray:
    m = check_array(value, name, dtype="any", allow_empty=True)
    if m.shape != shape:
        raise ValueError(f"{name} has shape {m.shape} but s1 has {shape}; they must match")
    if m.dtype != bool:
        if m.size and not np.all((m == 0) | (m == 1)):
            raise ValueError(f"{name} must hold 0/1 or booleans")
        m = m.astype(bool)
    return m


def _check_pair(s1: Any, R: Any) -> tuple[np.ndarray, np.ndarray]:
    s1 = check_array(s1, "s1", ndim=(1, 2))
    R = check_array(R, "R", ndim=(1, 2))
    if R.shape != s1.shape:
        raise ValueError(f"R has shape {R.shape} but s1 has {s1.shape}; they must match")
    return s1, R


def _check_weight(weight: Any, s1: np.ndarray) -> Any:
    if np.ndim(weight) == 0:
        return check_float(weight, "weight")
    w = check_array(weight, "weight", ndim=1)
    n_act = s1.shape[-1] if s1.ndim == 2 else 1
    if s1.ndim == 1 or w.shape[0] != n_act:
        raise ValueError(
            f"weight must be a number or one weight per activity ({n_act}), got shape {w.shape}"
        )
    return w


def fuse(s1: Any, R: Any, candidates: Any, *, weight: Any, offset: float = 100.0) -> np.ndarray:
    """Fused scores ``s1 + candidates * (weight * R + offset)``.

    ``s1``: System-1 scores, (n_images,) or (n_images, n_activities); ``R``: reasoning evidence
    of the same shape (:func:`activity_scores`); ``candidates``: bool mask of the same shape
    (each activity's top System-1 images; False keeps the System-1 score, e.g. HICO's
    "no interaction" classes); ``weight``: a number or one per activity (last axis). With
    ``offset`` larger than the score range every candidate ranks above every non-candidate.
    """
    s1, R = _check_pair(s1, R)
    c = _check_mask(candidates, "candidates", s1.shape)
    w = _check_weight(weight, s1)
    offset = check_float(offset, "offset")
    return s1 + c * (w * R + offset)


def tune_weights(s1: Any, R: Any, Y: Any, candidates: Any, *, grid: Any) -> np.ndarray:
    """Per-activity fusion weights: for each column, the ``grid`` value whose :func:`fuse`
    maximises :func:`ap_11pt` on this (validation) split.

    ``s1``, ``R``, ``Y`` (labels), ``candidates``: (n_images, n_activities). Ties go to the
    earliest grid value, and so does a class without positives (its AP is NaN whatever the
    weight). Returns the (n_activities,) weights, ready for ``fuse(..., weight=w)``.
    """
    s1 = check_array(s1, "s1", ndim=2)
    R = check_array(R, "R", ndim=2)
    if R.shape != s1.shape:
        raise ValueError(f"R has shape {R.shape} but s1 has {s1.shape}; they must match")
    Y = _check_labels(Y, "Y", 2)
    if Y.shape != s1.shape:
        raise ValueError(f"Y has shape {Y.shape} but s1 has {s1.shape}; they must match")
    c = _check_mask(candidates, "candidates", s1.shape)
    g = check_array(grid, "grid", ndim=1)
    aps = np.empty((g.shape[0], s1.shape[1]))
    for k, w in enumerate(g):
        aps[k] = _ap_columns(s1 + c * (w * R + 100.0), Y)
    aps = np.where(np.isnan(aps), -np.inf, aps)
    return g[np.argmax(aps, axis=0)]
