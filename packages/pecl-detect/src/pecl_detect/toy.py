"""A synthetic sparsely annotated detection world for :class:`~pecl_detect.ToyDetector`."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._checks import check_array, check_float, check_int, check_rng

__all__ = ["ToySAOD", "make_toy_saod"]


@dataclass(frozen=True)
class ToySAOD:
    """``images``: per image ``{"boxes": (n, 5) proposals, "feats": (n, d)}``; ``truth``: per
    image ``{"boxes", "labels"}`` of every object; ``annotations``: the sparse subset."""

    images: list
    truth: list
    annotations: list


def make_toy_saod(n_images, *, counts=(5, 8, 12), separations=(4.0, 3.0, 2.0), n_background=15,
                  dim=8, ratio=0.05, rng=None) -> ToySAOD:  # fmt: skip
    """``n_images`` images; class ``c`` (``1..K``) has ``counts[c-1]`` objects per image with
    features ``N(separations[c-1] * u_c, I)`` (``u_c`` a random unit vector), background
    proposals ``N(0, I)``, all L2-normalised (the release's RoI features are); boxes are random, rarely overlapping oriented boxes in a
    1000 x 1000 image. Each object is a proposal; the annotations keep per image and class
    ``max(1, floor(ratio * n))`` objects (:func:`~pecl_detect.sparsify`). A small separation
    gives a low-confidence class."""
    from .sparse import sparsify

    n_images = check_int(n_images, "n_images", minimum=1)
    counts = check_array(counts, "counts", ndim=1, dtype="int")
    seps = check_array(separations, "separations", ndim=1)
    if counts.size != seps.size:
        raise ValueError(f"separations has {seps.size} entries but counts has {counts.size}")
    if np.any(counts < 0) or np.any(seps < 0):
        raise ValueError("counts and separations must be >= 0")
    n_background = check_int(n_background, "n_background", minimum=0)
    dim = check_int(dim, "dim", minimum=1)
    ratio = check_float(ratio, "ratio", minimum=0.0, maximum=1.0, min_inclusive=False)
    gen = check_rng(rng)
    K = counts.size
    u = gen.normal(size=(K, dim))
    u /= np.linalg.norm(u, axis=1, keepdims=True)
    centres = seps[:, None] * u
    images, truth, annotations = [], [], []
    for _ in range(n_images):
        labels = np.concatenate(
            [np.repeat(np.arange(1, K + 1), counts), np.zeros(n_background, int)]
        )
        n = labels.size
        feats = gen.normal(size=(n, dim))
        feats[labels > 0] += centres[labels[labels > 0] - 1]
        feats /= np.linalg.norm(feats, axis=1, keepdims=True)  # unit RoI features, as released
        boxes = np.column_stack([gen.uniform(50, 950, (n, 2)), gen.uniform(15, 45, (n, 2)),
                                 gen.uniform(-np.pi / 2, np.pi / 2, n)])  # fmt: skip
        perm = gen.permutation(n)
        labels, feats, boxes = labels[perm], feats[perm], boxes[perm]
        obj = np.flatnonzero(labels > 0)
        kept = obj[sparsify(labels[obj], ratio, rng=gen)] if obj.size else obj
        images.append(dict(boxes=boxes, feats=feats))
        truth.append(dict(boxes=boxes[obj], labels=labels[obj]))
        annotations.append(dict(boxes=boxes[kept], labels=labels[kept]))
    return ToySAOD(images, truth, annotations)
