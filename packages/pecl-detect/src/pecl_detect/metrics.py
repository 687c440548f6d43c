"""VOC average precision as in the DOTA devkit (task 1)."""

from __future__ import annotations

import numpy as np

from ._checks import check_array, check_bool, check_same_length

__all__ = ["voc_ap"]


def voc_ap(rec, prec, *, use_07=True) -> float:
    """Average precision from a precision-recall curve (detections sorted by score).

    ``use_07=True``: the VOC2007 11-point metric, mean over ``t in {0, 0.1, ..., 1}`` of the
    largest precision at recall ``>= t`` (0 where recall never reaches ``t``).
    ``use_07=False``: the area under the monotone precision envelope (VOC2010+), with the
    sentinels ``(0, 0)`` and ``(1, 0)``.
    """
    rec = check_array(rec, "rec", ndim=1)
    prec = check_array(prec, "prec", ndim=1)
    check_same_length(rec=rec, prec=prec)
    use_07 = check_bool(use_07, "use_07")
    for arr, name in ((rec, "rec"), (prec, "prec")):
        if np.any(arr < 0) or np.any(arr > 1):
            raise ValueError(
                f"{name} must lie in [0, 1], got values in [{arr.min():g}, {arr.max():g}]"
            )
    if use_07:
        ap = 0.0
        for t in np.linspace(0.0, 1.0, 11):
            mask = rec >= t - 1e-12
            ap += (prec[mask].max() if mask.any() else 0.0) / 11.0
        return float(ap)
    mrec = np.concatenate([[0.0], rec, [1.0]])
    mpre = np.concatenate([[0.0], prec, [0.0]])
    mpre = np.maximum.accumulate(mpre[::-1])[::-1]
    idx = np.nonzero(mrec[1:] != mrec[:-1])[0]
    return float(np.sum((mrec[idx + 1] - mrec[idx]) * mpre[idx + 1]))
