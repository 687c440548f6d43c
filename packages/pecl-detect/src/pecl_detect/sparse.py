"""Sparse annotation: keep a fraction of the labelled instances, or of the labelled images."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ._checks import check_array, check_float, check_int, check_option, check_rng

__all__ = ["Patch", "patch_origins", "patchify_boxes", "sparsify"]


def _as_labels(labels):
    """A flat label array (one image) or a list of per-image label arrays."""
    if labels is None or isinstance(labels, str | bytes):
        raise TypeError(f"labels must be an array of class labels, got {type(labels).__name__}")
    raw = labels if isinstance(labels, np.ndarray) else None
    if raw is not None and raw.dtype.kind == "f" and not np.all(np.isfinite(raw)):
        raise ValueError("labels must be finite class labels, got NaN or infinite values")
    if isinstance(labels, np.ndarray) or (
        isinstance(labels, list | tuple) and all(np.isscalar(v) for v in labels)
    ):
        arr = check_array(labels, "labels", ndim=1, dtype="int", allow_empty=True)
        return [arr], True
    if not isinstance(labels, list | tuple):
        raise TypeError(
            f"labels must be a 1-d label array or a list of per-image label arrays, "
            f"got {type(labels).__name__}"
        )
    if len(labels) == 0:
        raise ValueError("labels must not be empty, got an empty list of images")
    out = [
        check_array(v, f"labels[{i}]", ndim=1, dtype="int", allow_empty=True)
        for i, v in enumerate(labels)
    ]
    return out, False


def sparsify(labels, ratio, *, rng=None, level="instance"):
    """Indices of the annotations kept by the sparse-annotation protocol.

    ``labels`` is a 1-d array of class labels (one image / patch) or a list of such arrays,
    one per image.

    ``level="instance"`` (the release's DOTA protocol): in every image, for every class with
    ``n > 0`` instances keep ``max(1, floor(ratio * n))`` of them, drawn without replacement.
    Returns the sorted kept indices: one int array for a flat ``labels``, a list of arrays
    (one per image) for a list.

    ``level="image"`` (the release's HRSC2016 protocol): keep every label of
    ``floor(ratio * N)`` of the ``N`` images. Returns the sorted indices of the kept images
    (``labels`` must then be a list of images).

    Nothing is added or changed: the result only selects among the given annotations.
    """
    images, flat = _as_labels(labels)
    ratio = check_float(ratio, "ratio", minimum=0.0, maximum=1.0, min_inclusive=False)
    level = check_option(level, "level", ("instance", "image"))
    gen = check_rng(rng)
    if level == "image":
        if flat:
            raise ValueError(
                "labels must be a list of per-image label arrays for level='image', "
                "got one flat label array"
            )
        k = math.floor(ratio * len(images) + 1e-9)
        return np.sort(gen.choice(len(images), size=k, replace=False)).astype(np.int64)
    kept = []
    for lab in images:
        keep = []
        for c in np.unique(lab):
            idx = np.flatnonzero(lab == c)
            k = max(1, math.floor(ratio * idx.size + 1e-9))
            keep.append(gen.choice(idx, size=k, replace=False))
        kept.append(
            np.sort(np.concatenate(keep)).astype(np.int64) if keep else np.zeros(0, np.int64)
        )
    return kept[0] if flat else kept


def patch_origins(size, *, patch=1024, gap=200) -> list[int]:
    """Patch start offsets along one image side, as DOTA's ``ImgSplit``: steps of
    ``patch - gap``, the last patch moved back to end at the border (one patch at 0 when the
    side is shorter than ``patch``)."""
    size = check_int(size, "size", minimum=1)
    patch = check_int(patch, "patch", minimum=1)
    gap = check_int(gap, "gap", minimum=0, maximum=patch - 1)
    out, left = [], 0
    while True:
        if left + patch >= size:
            left = max(size - patch, 0)
        out.append(left)
        if left + patch >= size:
            return out
        left += patch - gap


@dataclass(frozen=True)
class Patch:
    """One patch of :func:`patchify_boxes`: its top-left ``(x0, y0)``, the ``indices`` of the
    boxes it keeps, those ``boxes`` in patch coordinates and ``truncated`` (``True`` where only
    part of a box, at least ``thresh`` of its area, lies inside; DOTA marks them difficult 2)."""

    x0: int
    y0: int
    indices: np.ndarray
    boxes: np.ndarray
    truncated: np.ndarray


def patchify_boxes(boxes, img_size, *, patch=1024, gap=200, thresh=0.7) -> list[Patch]:
    """Split an image's oriented boxes ``(n, 5)`` into DOTA patches (``ImgSplit``'s grid over
    ``img_size = (width, height)``): a box goes to every patch holding at least ``thresh`` of
    its area (exact polygon intersection), shifted to the patch's coordinates."""
    from .geometry import obb_iou

    b = check_array(boxes, "boxes", ndim=2, allow_empty=True).reshape(-1, 5)
    size = check_array(img_size, "img_size", ndim=1, shape=(2,))
    thresh = check_float(thresh, "thresh", minimum=0.0, maximum=1.0, min_inclusive=False)
    xs = patch_origins(int(size[0]), patch=patch, gap=gap)
    ys = patch_origins(int(size[1]), patch=patch, gap=gap)
    area = b[:, 2] * b[:, 3]
    out = []
    for x0 in xs:
        for y0 in ys:
            rect = np.array([x0 + patch / 2, y0 + patch / 2, patch, patch, 0.0])
            iou = np.asarray(obb_iou(b, rect)).reshape(-1) if b.shape[0] else np.zeros(0)
            inter = iou * (area + patch * patch) / (1 + iou)
            frac = np.divide(inter, area, out=np.zeros_like(inter), where=area > 0)
            keep = np.flatnonzero(frac >= thresh - 1e-12)
            shifted = b[keep].copy()
            shifted[:, 0] -= x0
            shifted[:, 1] -= y0
            out.append(Patch(x0, y0, keep, shifted, frac[keep] < 1 - 1e-9))
    return out
