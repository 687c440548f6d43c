"""Evaluation: best-threshold F1 over all ordered pairs, and the area under the F1 curve."""

from __future__ import annotations

from typing import Any

import numpy as np

from ._checks import check_array
from ._validation import check_adj

__all__ = ["auf1c", "best_f1"]


def best_f1(scores, adj) -> float:
    """The best F1 over all thresholds of ``scores`` [n, n] (higher = more likely an edge u -> v)
    against the true adjacency ``adj`` [n, n], over all ordered pairs u != v (the diagonal is
    ignored). A threshold classifies ``scores >= t`` as edges; ties are never split.
    ``ValueError`` if ``adj`` has no edge (F1 is undefined)."""
    a = check_adj(adj)
    s = check_array(scores, "scores", ndim=2, shape=a.shape)
    off = ~np.eye(a.shape[0], dtype=bool)
    y = a[off]
    x = s[off]
    total = int(y.sum())
    if total == 0:
        raise ValueError("adj must have at least one edge off the diagonal (F1 is undefined)")
    order = np.argsort(-x, kind="stable")
    xs, ys = x[order], y[order]
    tp = np.cumsum(ys)
    predicted = np.arange(1, xs.size + 1)
    last = np.r_[xs[1:] != xs[:-1], True]  # cut only after the last of equal scores
    f1 = 2.0 * tp[last] / (predicted[last] + total)
    return float(f1.max())


def auf1c(history: Any, f1: Any = None) -> float:
    """Area under the F1-vs-training-examples curve, normalised by the examples span: the mean
    F1 over the run (trapezoids), in [0, 1]. A faster-converging run has a larger AUF1C.

    ``auf1c(history)`` with a :class:`~dag_sidigraph.TrainHistory` (or anything with
    ``.examples`` and ``.f1``), or ``auf1c(examples, f1)`` with two 1-d arrays, examples strictly
    increasing, at least two points."""
    if f1 is None:
        if not (hasattr(history, "examples") and hasattr(history, "f1")):
            raise TypeError(
                "history must have .examples and .f1 (a TrainHistory), or pass auf1c(examples, f1)"
            )
        examples, f1 = history.examples, history.f1
        xname, yname = "history.examples", "history.f1"
    else:
        examples, xname, yname = history, "examples", "f1"
    x = check_array(examples, xname, ndim=1)
    y = check_array(f1, yname, ndim=1)
    if x.size != y.size:
        raise ValueError(f"{yname} has {y.size} points but {xname} has {x.size}; they must match")
    if x.size < 2:
        raise ValueError(f"{xname} must have at least 2 points, got {x.size}")
    if np.any(np.diff(x) <= 0):
        raise ValueError(f"{xname} must be strictly increasing")
    if np.any((y < 0) | (y > 1)):
        raise ValueError(f"{yname} must lie in [0, 1]")
    area = float(np.sum((y[1:] + y[:-1]) * np.diff(x)) / 2.0)
    return area / float(x[-1] - x[0])
