"""HICO-style image-level recognition metrics: 11-point interpolated AP and its class mean."""

from __future__ import annotations

from typing import Any

import numpy as np

from ._checks import check_array, check_bool

__all__ = ["ap_11pt", "mean_ap"]


def _check_labels(Y: Any, name: str, ndim: int) -> np.ndarray:
    Y = check_array(Y, name, ndim=ndim, dtype="any")
    if Y.dtype != bool:
        if not np.all((Y == 0) | (Y == 1)):
            raise ValueError(f"{name} must hold 0/1 or booleans, got other values")
        Y = Y.astype(bool)
    return Y


def _ap_columns(S: np.ndarray, Y: np.ndarray) -> np.ndarray:
    """11-point AP of each column of S (n, c) against Y (n, c); NaN where a column has no
    positive. Ties in a column are ranked by row order (earlier first)."""
    n, c = S.shape
    order = np.argsort(-S, axis=0, kind="stable")
    hits = np.take_along_axis(Y, order, axis=0).astype(np.float64)
    npos = hits.sum(axis=0)
    tp = np.cumsum(hits, axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        rec = tp / npos
    prec = tp / np.arange(1, n + 1)[:, None]
    # best precision at any rank >= i (recall is non-decreasing with rank)
    best_after = np.maximum.accumulate(prec[::-1], axis=0)[::-1]
    ap = np.zeros(c)
    cols = np.arange(c)
    for i in range(11):
        mask = rec >= (i / 10.0)
        anyr = mask.any(axis=0)
        first = mask.argmax(axis=0)
        ap += np.where(anyr, best_after[first, cols], 0.0)
    ap /= 11.0  # summed first: a perfect ranking is exactly 1
    ap[npos == 0] = np.nan
    return ap


def ap_11pt(scores: Any, labels: Any) -> float:
    """11-point interpolated average precision (VOC 2007 / the HICO evaluation of the release).

    Mean over r in {0, 0.1, ..., 1} of the maximum precision at recall >= r (0 where that
    recall is never reached), with npos = the number of positive labels. NaN when there is no
    positive. Tied scores are ranked in input order.
    """
    s = check_array(scores, "scores", ndim=1)
    y = _check_labels(labels, "labels", 1)
    if y.shape[0] != s.shape[0]:
        raise ValueError(
            f"labels has {y.shape[0]} entries but scores has {s.shape[0]}; they must match"
        )
    return float(_ap_columns(s[:, None], y[:, None])[0])


def mean_ap(S: Any, Y: Any, *, ignore_nan: bool = True) -> float:
    """Mean of :func:`ap_11pt` over the columns (classes) of ``S`` (n_images, n_classes)
    against labels ``Y`` of the same shape. Classes without positives (NaN AP) are skipped when
    ``ignore_nan`` (the HICO convention), else the result is NaN; NaN when no class has a
    positive."""
    S = check_array(S, "S", ndim=2)
    Y = _check_labels(Y, "Y", 2)
    ignore_nan = check_bool(ignore_nan, "ignore_nan")
    if Y.shape != S.shape:
        raise ValueError(f"Y has shape {Y.shape} but S has {S.shape}; they must match")
    ap = _ap_columns(S, Y)
    if not ignore_nan:
        return float(ap.mean())
    ok = ~np.isnan(ap)
    return float(ap[ok].mean()) if ok.any() else float("nan")
