"""Threshold-free OOD metrics on detection scores (higher score = more in-distribution).

Every metric takes the scores of the in-distribution samples and of the out-of-distribution
samples as two 1-d arrays. The curves are built as scikit-learn builds them (one point per
distinct score, ties grouped), so the values equal ``roc_auc_score`` and
``average_precision_score`` to rounding.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from ._checks import check_array, check_option, check_probability

__all__ = ["OODMetrics", "aupr_in", "aupr_out", "auroc", "fpr_at_tpr", "ood_metrics"]

_POSITIVE = ("ood", "id")


def _scores(score_id, score_ood) -> tuple[np.ndarray, np.ndarray]:
    s_id = check_array(score_id, "score_id", ndim=1)
    s_ood = check_array(score_ood, "score_ood", ndim=1)
    return s_id, s_ood


def _counts(pos: np.ndarray, neg: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Cumulative true/false positive counts, one entry per distinct score, from the highest
    score down (a sample is called positive when its score is >= the threshold)."""
    s = np.concatenate([pos, neg])
    y = np.concatenate([np.ones(pos.size, np.int64), np.zeros(neg.size, np.int64)])
    order = np.argsort(s, kind="mergesort")[::-1]
    s, y = s[order], y[order]
    last = np.r_[np.flatnonzero(np.diff(s)), s.size - 1]
    tps = np.cumsum(y)[last]
    fps = last + 1 - tps
    return tps, fps


def _roc(pos: np.ndarray, neg: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    tps, fps = _counts(pos, neg)
    tpr = np.r_[0, tps] / pos.size
    fpr = np.r_[0, fps] / neg.size
    return fpr, tpr


def _average_precision(pos: np.ndarray, neg: np.ndarray) -> float:
    tps, fps = _counts(pos, neg)
    precision = tps / (tps + fps)
    recall = tps / pos.size
    return float(np.sum(np.diff(np.r_[0.0, recall]) * precision))


def auroc(score_id, score_ood) -> float:
    """Area under the ROC curve: the probability that a random ID sample scores higher than a
    random OOD sample, ties counting half. The same number whichever class is called positive
    (ID on ``score`` or OOD on ``-score``); equals ``sklearn.metrics.roc_auc_score``."""
    s_id, s_ood = _scores(score_id, score_ood)
    fpr, tpr = _roc(s_id, s_ood)
    return float((np.diff(fpr) * (tpr[1:] + tpr[:-1]) / 2.0).sum())  # numpy's trapezoid rule


def aupr_in(score_id, score_ood) -> float:
    """Average precision with ID samples as the positive class, ranked by ``score``
    (``sklearn.metrics.average_precision_score(y_id, score)``)."""
    s_id, s_ood = _scores(score_id, score_ood)
    return _average_precision(s_id, s_ood)


def aupr_out(score_id, score_ood) -> float:
    """Average precision with OOD samples as the positive class, ranked by ``-score``
    (``sklearn.metrics.average_precision_score(y_ood, -score)``)."""
    s_id, s_ood = _scores(score_id, score_ood)
    return _average_precision(-s_ood, -s_id)


def fpr_at_tpr(score_id, score_ood, *, tpr=0.95, positive="ood") -> float:
    """False positive rate at the first threshold whose true positive rate is >= ``tpr``.

    ``positive="ood"`` (OpenOOD v1.5, pytorch-ood): OOD is the positive class, ranked by
    ``-score``; the result is the share of ID samples flagged as OOD once at least ``tpr`` of
    the OOD samples are caught. ``positive="id"`` (MCM, Hendrycks et al.): ID is positive,
    ranked by ``score``; the result is the share of OOD samples kept when the threshold keeps at
    least ``tpr`` of the ID samples. ``tpr`` is a fraction in [0, 1].
    """
    s_id, s_ood = _scores(score_id, score_ood)
    level = check_probability(tpr, "tpr")
    check_option(positive, "positive", _POSITIVE)
    pos, neg = (-s_ood, -s_id) if positive == "ood" else (s_id, s_ood)
    fpr_curve, tpr_curve = _roc(pos, neg)
    idx = int(np.argmax(tpr_curve >= level))  # the curve ends at tpr = 1 >= level
    return float(fpr_curve[idx])


@dataclass(frozen=True)
class OODMetrics:
    """The four usual numbers of one ID/OOD pair (fractions in [0, 1], not percent)."""

    auroc: float
    aupr_in: float
    aupr_out: float
    fpr_at_tpr: float
    tpr: float
    positive: str

    def as_dict(self) -> dict:
        return asdict(self)


def ood_metrics(score_id, score_ood, *, tpr=0.95, positive="ood") -> OODMetrics:
    """AUROC, AUPR-In, AUPR-Out and FPR at ``tpr`` (see :func:`fpr_at_tpr`) in one call."""
    s_id, s_ood = _scores(score_id, score_ood)
    return OODMetrics(
        auroc=auroc(s_id, s_ood),
        aupr_in=aupr_in(s_id, s_ood),
        aupr_out=aupr_out(s_id, s_ood),
        fpr_at_tpr=fpr_at_tpr(s_id, s_ood, tpr=tpr, positive=positive),
        tpr=check_probability(tpr, "tpr"),
        positive=positive,
    )
