"""Sparse annotation: keep a fraction of the labelled instances, or of the labelled images."""

from __future__ import annotations

import math

import numpy as np

from ._checks import check_array, check_float, check_option, check_rng

__all__ = ["sparsify"]


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
