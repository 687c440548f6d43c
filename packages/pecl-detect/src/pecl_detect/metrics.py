"""VOC average precision as in the DOTA devkit (task 1)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._checks import check_array, check_bool, check_float, check_same_length

__all__ = ["MapResult", "dota_map", "voc_ap"]


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
        total = 0.0
        for t in np.linspace(0.0, 1.0, 11):
            mask = rec >= t - 1e-12
            total += prec[mask].max() if mask.any() else 0.0
        return float(total / 11.0)  # a perfect curve gives exactly 1.0
    mrec = np.concatenate([[0.0], rec, [1.0]])
    mpre = np.concatenate([[0.0], prec, [0.0]])
    mpre = np.maximum.accumulate(mpre[::-1])[::-1]
    idx = np.nonzero(mrec[1:] != mrec[:-1])[0]
    return float(np.sum((mrec[idx + 1] - mrec[idx]) * mpre[idx + 1]))


@dataclass(frozen=True)
class MapResult:
    """``mean_ap``: mean of the per-class APs over classes with ground truth;
    ``per_class``: ``{class: AP}`` (NaN for a class without non-difficult ground truth, which
    the mean leaves out); ``n_positives``: ``{class: non-difficult ground-truth count}``."""

    mean_ap: float
    per_class: dict
    n_positives: dict


def _field(item, key, where):
    if isinstance(item, dict):
        if key not in item:
            raise ValueError(f"{where} must have a {key!r} entry, got keys {sorted(item)}")
        return item[key]
    if not hasattr(item, key):
        raise TypeError(
            f"{where} must be a dict or an object with .{key}, got {type(item).__name__}"
        )
    return getattr(item, key)


def _boxes(value, name):
    arr = check_array(value, name, ndim=2, allow_empty=True)
    if arr.size == 0:
        return arr.reshape(0, 5)
    if arr.shape[1] != 5:
        raise ValueError(f"{name} must have shape (n, 5) (cx, cy, w, h, theta), got {arr.shape}")
    return arr


def _labels(value, name, n):
    arr = check_array(value, name, ndim=1, dtype="int", allow_empty=True)
    if arr.size != n:
        raise ValueError(f"{name} has {arr.size} entries but there are {n} boxes")
    return arr


def dota_map(dets, gts, *, iou_threshold=0.5, classes=None, use_07=True) -> MapResult:
    """DOTA-devkit task-1 mAP of oriented detections (``dota_evaluation_task1.voc_eval``).

    ``dets``: one entry per image, a dict (or object) with ``boxes`` ``(n, 5)``, ``scores``
    ``(n,)`` and ``labels`` ``(n,)``; ``gts``: one entry per image with ``boxes`` ``(m, 5)``,
    ``labels`` ``(m,)`` and optionally ``difficult`` ``(m,)`` (default all False). Per class,
    detections of all images are ranked by score (stable: ties keep image, then detection
    order); each is a true positive when its best exact IoU with a ground-truth box of its
    image and class exceeds ``iou_threshold`` and that box is not difficult and not yet
    matched, is ignored when that box is difficult, and is a false positive otherwise. AP is
    :func:`voc_ap` of the cumulative recall and precision. ``classes``: the classes to score
    (default: every label in ``gts`` and ``dets``).
    """
    from .geometry import obb_iou

    for v, name in ((dets, "dets"), (gts, "gts")):
        if not isinstance(v, list | tuple):
            raise TypeError(
                f"{name} must be a list with one entry per image, got {type(v).__name__}"
            )
    if len(dets) != len(gts):
        raise ValueError(f"dets has {len(dets)} images but gts has {len(gts)}")
    thr = check_float(iou_threshold, "iou_threshold", minimum=0.0, maximum=1.0)
    use_07 = check_bool(use_07, "use_07")
    D, G = [], []
    for i, (d, g) in enumerate(zip(dets, gts, strict=True)):
        db = _boxes(_field(d, "boxes", f"dets[{i}]"), f"dets[{i}].boxes")
        ds = check_array(_field(d, "scores", f"dets[{i}]"), f"dets[{i}].scores", ndim=1,
                         allow_empty=True)  # fmt: skip
        if ds.size != db.shape[0]:
            raise ValueError(
                f"dets[{i}].scores has {ds.size} entries but there are {db.shape[0]} boxes"
            )
        dl = _labels(_field(d, "labels", f"dets[{i}]"), f"dets[{i}].labels", db.shape[0])
        gb = _boxes(_field(g, "boxes", f"gts[{i}]"), f"gts[{i}].boxes")
        gl = _labels(_field(g, "labels", f"gts[{i}]"), f"gts[{i}].labels", gb.shape[0])
        has = "difficult" in g if isinstance(g, dict) else hasattr(g, "difficult")
        if has and _field(g, "difficult", f"gts[{i}]") is not None:
            gd = check_array(_field(g, "difficult", f"gts[{i}]"), f"gts[{i}].difficult", ndim=1,
                             dtype="bool", allow_empty=True)  # fmt: skip
            if gd.size != gb.shape[0]:
                raise ValueError(
                    f"gts[{i}].difficult has {gd.size} flags but there are {gb.shape[0]} boxes"
                )
        else:
            gd = np.zeros(gb.shape[0], dtype=bool)
        D.append((db, ds, dl))
        G.append((gb, gl, gd))
    if classes is None:
        cls = sorted(
            {int(c) for _, _, dl in D for c in dl} | {int(c) for _, gl, _ in G for c in gl}
        )
    else:
        cls = [int(c) for c in check_array(classes, "classes", ndim=1, dtype="int")]
    per_class, n_pos = {}, {}
    for c in cls:
        npos = int(sum(np.sum((gl == c) & ~gd) for _, gl, gd in G))
        n_pos[c] = npos
        rows = [
            (i, k, s) for i, (_, ds, dl) in enumerate(D) for k, s in enumerate(ds) if dl[k] == c
        ]
        if npos == 0:
            per_class[c] = float("nan")
            continue
        order = sorted(range(len(rows)), key=lambda j: -rows[j][2])
        used = [np.zeros(int(np.sum(gl == c)), dtype=bool) for _, gl, _ in G]
        tp, fp = np.zeros(len(rows)), np.zeros(len(rows))
        for rank, j in enumerate(order):
            i, k, _ = rows[j]
            gb, gl, gd = G[i]
            m = gl == c
            if not m.any():
                fp[rank] = 1
                continue
            ious = np.atleast_1d(obb_iou(D[i][0][k], gb[m]))
            best = int(np.argmax(ious))
            if ious[best] > thr:
                if gd[m][best]:
                    continue
                if not used[i][best]:
                    tp[rank], used[i][best] = 1, True
                else:
                    fp[rank] = 1
            else:
                fp[rank] = 1
        ctp, cfp = np.cumsum(tp), np.cumsum(fp)
        rec = ctp / npos
        prec = ctp / np.maximum(ctp + cfp, np.finfo(float).eps)
        per_class[c] = voc_ap(rec, prec, use_07=use_07) if len(rows) else 0.0
    vals = [v for v in per_class.values() if not np.isnan(v)]
    mean_ap = float(np.mean(vals)) if vals else float("nan")
    return MapResult(mean_ap, per_class, n_pos)
