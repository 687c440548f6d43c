"""Fixed-threshold pseudo-label selection: the baselines PECL is compared with."""

from __future__ import annotations

import numpy as np

from ._checks import check_array, check_int, check_option
from ._validation import check_labels

__all__ = [
    "DOTA_RELEASE_THRESHOLDS",
    "global_threshold",
    "oracle_best_threshold",
    "per_class_threshold",
    "top_k_per_class",
]

#: the per-class thresholds listed in the release, DOTA-v1.0 class order (plane ... helicopter)
DOTA_RELEASE_THRESHOLDS = (0.6, 0.7, 0.8, 0.8, 0.5, 0.4, 0.4, 0.6, 0.7, 0.6, 0.7, 0.88, 0.6, 0.6,
                           0.6)  # fmt: skip


def _scores(scores):
    return check_array(scores, "scores", ndim=1, allow_empty=True)


def _scores_labels(scores, labels):
    s = _scores(scores)
    lab = check_labels(labels, "labels")
    if lab.size != s.size:
        raise ValueError(f"labels has {lab.size} entries but scores has {s.size}")
    return s, lab


def global_threshold(scores, threshold) -> np.ndarray:
    """Boolean mask ``scores >= threshold``."""
    s = _scores(scores)
    t = check_array(threshold, "threshold", ndim=0)
    return s >= float(t)


def per_class_threshold(scores, labels, thresholds) -> np.ndarray:
    """Mask ``scores >= thresholds[labels - 1]`` (classes ``1..K``; ``thresholds`` has ``K``
    entries, e.g. :data:`DOTA_RELEASE_THRESHOLDS`)."""
    s, lab = _scores_labels(scores, labels)
    t = check_array(thresholds, "thresholds", ndim=1)
    if lab.size and (lab.min() < 1 or lab.max() > t.size):
        raise ValueError(f"labels must lie in [1, {t.size}] (one threshold each), got "
                         f"[{lab.min()}, {lab.max()}]")  # fmt: skip
    return s >= t[lab - 1] if lab.size else np.zeros(0, dtype=bool)


def top_k_per_class(scores, labels, k) -> np.ndarray:
    """Mask of the ``k`` highest-scoring candidates of every class (ties: earlier first)."""
    s, lab = _scores_labels(scores, labels)
    k = check_int(k, "k", minimum=0)
    out = np.zeros(s.size, dtype=bool)
    for c in np.unique(lab):
        idx = np.flatnonzero(lab == c)
        out[idx[np.argsort(-s[idx], kind="stable")[:k]]] = True
    return out


def _best_f1(s, truth, n_true_total, base_tp=0, base_sel=0):
    """Best threshold over the distinct scores for F1 = 2 tp / (sel + n_true), exactly."""
    order = np.argsort(-s, kind="stable")
    ss, tt = s[order], truth[order]
    tp, sel = np.cumsum(tt), np.arange(1, s.size + 1)
    last = np.r_[ss[1:] != ss[:-1], True]  # a threshold keeps all tied scores
    f1 = 2 * (tp[last] + base_tp) / np.maximum(sel[last] + base_sel + n_true_total, 1)
    none = 2 * base_tp / max(base_sel + n_true_total, 1)
    j = int(np.argmax(f1))
    if f1[j] <= none:
        return np.inf, none
    return float(ss[last][j]), float(f1[j])


def oracle_best_threshold(scores, truth, *, labels=None, objective="f1"):
    """The threshold(s) maximising the F1 of ``scores >= t`` against the boolean ``truth``
    (for analysis: it looks at the truth). ``labels=None``: one global threshold ->
    ``(t, f1)``; with ``labels`` (``1..K``): per-class thresholds by coordinate ascent on the
    overall F1, one class at a time in label order -> ``(dict {class: t}, f1)``. ``inf`` means
    "select none"."""
    s = _scores(scores)
    y = check_array(truth, "truth", ndim=1, dtype="bool", allow_empty=True)
    if y.size != s.size:
        raise ValueError(f"truth has {y.size} entries but scores has {s.size}")
    check_option(objective, "objective", ("f1",))
    n_true = int(y.sum())
    if labels is None:
        return _best_f1(s, y, n_true) if s.size else (np.inf, 0.0)
    s, lab = _scores_labels(s, labels)
    sel = np.zeros(s.size, dtype=bool)
    out = {}
    for c in np.unique(lab):
        m = lab == c
        rest_tp = int(np.sum(sel & y & ~m))
        rest_sel = int(np.sum(sel & ~m))
        t, _ = _best_f1(s[m], y[m], n_true, rest_tp, rest_sel)
        out[int(c)] = t
        sel[m] = s[m] >= t
    tp = int(np.sum(sel & y))
    return out, 2 * tp / max(int(sel.sum()) + n_true, 1)
