"""Class prototypes kept by Sinkhorn-balanced clustering with a momentum update (the release's
``ReDet.prototype_learning``), in numpy."""

from __future__ import annotations

import numpy as np

from ._checks import check_array, check_float, check_int, check_rng
from ._validation import check_labels

__all__ = ["PrototypeBank", "sinkhorn"]


def _normalize(x: np.ndarray) -> np.ndarray:
    return x / np.maximum(np.linalg.norm(x, axis=-1, keepdims=True), 1e-12)


def sinkhorn(scores, *, n_iter=3, epsilon=0.05) -> np.ndarray:
    """Balanced soft assignment of ``B`` samples to ``K`` prototypes (the release's
    ``distributed_sinkhorn``): ``L = exp(scores / epsilon)``, then ``n_iter`` rounds of scaling
    every prototype's total to ``1/K`` and every sample's to ``1/B``; returned as ``(B, K)``
    with each row summing to 1. ``scores``: ``(B, K)`` similarities (e.g. cosines)."""
    s = check_array(scores, "scores", ndim=2)
    n_iter = check_int(n_iter, "n_iter", minimum=1)
    eps = check_float(epsilon, "epsilon", minimum=0.0, min_inclusive=False)
    z = s / eps
    L = np.exp(z - z.max()).T  # K x B, shifted for overflow (cancels in the scaling)
    K, B = L.shape
    L = L / L.sum()
    for _ in range(n_iter):
        L = L / L.sum(axis=1, keepdims=True) / K
        L = L / L.sum(axis=0, keepdims=True) / B
    return (L * B).T


class PrototypeBank:
    """``k`` unit prototypes per class in a ``dim``-d feature space.

    ``update(feats, labels)`` follows the release: for each class, the cosines of its features
    to its prototypes are Sinkhorn-balanced, each feature goes to its arg-max prototype (the
    release draws a hard Gumbel-softmax sample there; the arg-max is its noise-free version),
    each prototype that received features moves to
    ``momentum * old + (1 - momentum) * normalize(sum of its features)`` and all prototypes are
    re-normalised. ``correct`` (optional bool mask) keeps only the features the detector
    classified correctly, as the release does. Classes are ``0 .. n_classes - 1``.
    ``init``: ``(n_classes, k, dim)`` starting prototypes (default: random unit vectors from
    ``rng``; the release loads prototypes from a first training stage).
    """

    def __init__(self, n_classes, dim, *, k=10, momentum=0.999, n_iter=3, epsilon=0.05,
                 init=None, rng=None):  # fmt: skip
        self.n_classes = check_int(n_classes, "n_classes", minimum=1)
        self.dim = check_int(dim, "dim", minimum=1)
        self.k = check_int(k, "k", minimum=1)
        self.momentum = check_float(momentum, "momentum", minimum=0.0, maximum=1.0)
        self.n_iter = check_int(n_iter, "n_iter", minimum=1)
        self.epsilon = check_float(epsilon, "epsilon", minimum=0.0, min_inclusive=False)
        gen = check_rng(rng)
        if init is None:
            protos = gen.normal(size=(self.n_classes, self.k, self.dim))
        else:
            protos = check_array(init, "init", ndim=3, shape=(self.n_classes, self.k, self.dim))
        self.prototypes = _normalize(protos)
        self.counts = np.zeros((self.n_classes, self.k), dtype=np.int64)

    def _feats_labels(self, feats, labels):
        f = check_array(feats, "feats", ndim=2, allow_empty=True)
        if f.size and f.shape[1] != self.dim:
            raise ValueError(f"feats must have {self.dim} columns, got shape {f.shape}")
        lab = check_labels(labels, "labels")
        if lab.size != f.shape[0]:
            raise ValueError(f"labels has {lab.size} entries but feats has {f.shape[0]} rows")
        if lab.size and (lab.min() < 0 or lab.max() >= self.n_classes):
            raise ValueError(
                f"labels must lie in [0, {self.n_classes - 1}], got [{lab.min()}, {lab.max()}]"
            )
        return f.reshape(-1, self.dim), lab

    def assign(self, feats, labels) -> np.ndarray:
        """The prototype index (``0 .. k-1`` within its class) each feature is assigned to."""
        f, lab = self._feats_labels(feats, labels)
        f = _normalize(f)
        out = np.zeros(lab.size, dtype=np.int64)
        for c in np.unique(lab):
            m = lab == c
            q = sinkhorn(f[m] @ self.prototypes[c].T, n_iter=self.n_iter, epsilon=self.epsilon)
            out[m] = np.argmax(q, axis=1)
        return out

    def update(self, feats, labels, *, correct=None) -> np.ndarray:
        """One momentum update from ``(n, dim)`` features of classes ``labels``; returns the
        assignments (as :meth:`assign`; -1 for features left out by ``correct``)."""
        f, lab = self._feats_labels(feats, labels)
        if correct is None:
            keep = np.ones(lab.size, dtype=bool)
        else:
            keep = check_array(correct, "correct", ndim=1, dtype="bool", allow_empty=True)
            if keep.size != lab.size:
                raise ValueError(f"correct has {keep.size} flags but feats has {lab.size} rows")
        f = _normalize(f)
        idx = np.full(lab.size, -1, dtype=np.int64)
        if lab.size:
            idx[:] = self.assign(f, lab)
        idx[~keep] = -1
        protos = self.prototypes.copy()
        for c in np.unique(lab[keep]):
            m = (lab == c) & keep
            for j in np.unique(idx[m]):
                s = _normalize(f[m & (idx == j)].sum(axis=0))
                protos[c, j] = self.momentum * protos[c, j] + (1 - self.momentum) * s
                self.counts[c, j] += int(np.sum(m & (idx == j)))
        self.prototypes = _normalize(protos)
        return idx

    def class_mean(self) -> np.ndarray:
        """``(n_classes, dim)``: the normalised mean prototype of every class."""
        return _normalize(self.prototypes.mean(axis=1))

    def similarity(self, feats, labels) -> np.ndarray:
        """Cosine of each (normalised) feature with its class's :meth:`class_mean` (the
        release's prototype-similarity clue)."""
        f, lab = self._feats_labels(feats, labels)
        return np.sum(_normalize(f) * self.class_mean()[lab], axis=1)
