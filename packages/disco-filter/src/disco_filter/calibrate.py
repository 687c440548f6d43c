"""Exact threshold calibration from a labelled sample."""

from __future__ import annotations

import numpy as np

from ._checks import check_array, check_option, check_same_length

__all__ = ["OBJECTIVES", "Threshold", "auroc", "fit_threshold"]

OBJECTIVES = ("f1", "accuracy", "balanced_accuracy")


class Threshold(float):
    """The fitted threshold (a ``float``: keep ``score >= threshold``) with the fit attached:
    ``.threshold`` (the same number), ``.value`` (the objective there), ``.objective``."""

    __slots__ = ("_value", "_objective")

    def __new__(cls, threshold: float, value: float, objective: str) -> Threshold:
        self = super().__new__(cls, threshold)
        object.__setattr__(self, "_value", float(value))
        object.__setattr__(self, "_objective", objective)
        return self

    def __setattr__(self, name, value):
        raise AttributeError("Threshold is immutable")

    @property
    def threshold(self) -> float:
        return float(self)

    @property
    def value(self) -> float:
        return self._value

    @property
    def objective(self) -> str:
        return self._objective

    def __repr__(self) -> str:
        return f"Threshold({float(self)!r}, {self.objective}={self.value!r})"

    def __reduce__(self):
        return (Threshold, (float(self), self._value, self._objective))


def _labels(labels) -> np.ndarray:
    y = check_array(labels, "labels", ndim=1, dtype="any")
    if y.dtype.kind == "f":
        if not np.all((y == 0) | (y == 1)):
            raise ValueError("labels must be 0/1 or booleans, got other values")
    elif y.dtype.kind in "iu" and not np.all((y == 0) | (y == 1)):
        bad = y[(y != 0) & (y != 1)][0]
        raise ValueError(f"labels must be 0/1 or booleans, got {bad}")
    return y.astype(bool)


def auroc(scores, labels) -> float:
    """Area under the ROC curve: P(score of a random positive > that of a random negative),
    ties counting one half (the Mann-Whitney statistic, exact, from average ranks)."""
    s = check_array(scores, "scores", ndim=1)
    y = _labels(labels)
    check_same_length(scores=s, labels=y)
    n_pos = int(y.sum())
    n_neg = y.size - n_pos
    if n_pos == 0 or n_neg == 0:
        raise ValueError(f"labels must hold both classes, got {n_pos} positive of {y.size}")
    order = np.argsort(s, kind="stable")
    ss = s[order]
    ranks = np.empty(s.size)
    starts = np.flatnonzero(np.r_[True, ss[1:] != ss[:-1]])
    ends = np.r_[starts[1:], s.size]
    avg = (starts + ends + 1) / 2.0  # 1-based average rank of each tie group
    ranks[order] = np.repeat(avg, ends - starts)
    u = ranks[y].sum() - n_pos * (n_pos + 1) / 2.0
    return float(u / (n_pos * n_neg))


def fit_threshold(scores, labels, *, objective: str = "f1") -> Threshold:
    """The threshold ``t`` maximising ``objective`` of the rule "positive iff score >= t".

    Exact: every distinct score is a candidate (for ``"accuracy"`` and
    ``"balanced_accuracy"`` also ``+inf``, "nothing positive"), each evaluated in one sorted
    pass with integer counts; among equally good thresholds the smallest is returned. The
    result is a :class:`Threshold` (a float with ``.value`` and ``.objective``).
    ``labels`` are booleans or 0/1 and must hold both classes.
    """
    s = check_array(scores, "scores", ndim=1)
    y = _labels(labels)
    check_same_length(scores=s, labels=y)
    check_option(objective, "objective", OBJECTIVES)
    n_pos = int(y.sum())
    n_neg = y.size - n_pos
    if n_pos == 0 or n_neg == 0:
        raise ValueError(f"labels must hold both classes, got {n_pos} positive of {y.size}")
    order = np.argsort(-s, kind="stable")
    ss = s[order]
    tp = np.cumsum(y[order], dtype=np.int64)
    fp = np.arange(1, s.size + 1, dtype=np.int64) - tp
    last = np.flatnonzero(np.r_[ss[1:] != ss[:-1], True])  # last index of each score group
    cand = ss[last]
    tp, fp = tp[last], fp[last]
    tn = n_neg - fp
    if objective == "f1":
        value = 2.0 * tp / (tp + fp + n_pos)  # 2TP / (2TP + FP + FN): exact ties, correctly rounded
        key = value
    elif objective == "accuracy":
        key = tp + tn
        value = key / y.size
    else:  # balanced accuracy = (TP/P + TN/N) / 2; compare TP*N + TN*P exactly
        key = tp * n_neg + tn * n_pos
        value = key / (2.0 * n_pos * n_neg)
    best = np.flatnonzero(key == key.max())[-1]  # groups are in decreasing score: last = smallest
    t, v = float(cand[best]), float(value[best])
    if objective != "f1":
        none_key = n_neg if objective == "accuracy" else n_neg * n_pos
        if none_key > key[best]:
            t = float("inf")
            v = n_neg / y.size if objective == "accuracy" else 0.5
    return Threshold(t, v, objective)
