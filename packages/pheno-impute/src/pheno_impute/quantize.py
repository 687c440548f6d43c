"""Residual quantization: L codebooks, each fitted by k-means on the residual of the levels
before it; codes are assigned greedily level by level (coarse to fine)."""

from __future__ import annotations

import numpy as np

from ._checks import check_array, check_int, check_rng

__all__ = ["ResidualQuantizer"]


class ResidualQuantizer:
    """Residual vector quantizer (RQ-k-means; k-means++ seeding and Lloyd iterations).

    ``fit(X)`` learns ``levels`` codebooks of ``codebook_size`` vectors each: level 1 is k-means
    on ``X``, level l on the residual ``X - (e_1 + ... + e_{l-1})`` left by the greedy codes of
    the levels before. ``encode(X)`` -> int (n, levels): at each level the nearest code to the
    current residual; ``decode(codes)`` -> the sum of the chosen codes. On the training data the
    squared reconstruction error is non-increasing in the number of levels used.

    Attributes after ``fit``: ``codebooks_`` (levels, codebook_size, d), ``n_features_in_``,
    ``inertia_`` (levels,) the mean squared error after each level on the training data.
    """

    def __init__(self, *, levels: int = 3, codebook_size: int = 64, random_state=None):
        self.levels = levels
        self.codebook_size = codebook_size
        self.random_state = random_state

    def fit(self, X, y=None) -> ResidualQuantizer:

        X = check_array(X, "X", ndim=2)
        levels = check_int(self.levels, "levels", minimum=1)
        size = check_int(self.codebook_size, "codebook_size", minimum=1)
        rng = check_rng(self.random_state, "random_state")
        if X.shape[0] < size:
            raise ValueError(
                f"X must have at least codebook_size={size} rows to fit the codebooks, "
                f"got {X.shape[0]}"
            )
        residual = X.copy()
        books, inertia = [], []
        for _ in range(levels):
            book = _kmeans(residual, size, rng)
            idx = _nearest(residual, book)
            residual = residual - book[idx]
            books.append(book)
            inertia.append(float(np.mean(np.sum(residual**2, axis=1))))
        self.codebooks_ = np.stack(books)
        self.inertia_ = np.asarray(inertia)
        self.n_features_in_ = X.shape[1]
        return self

    def _check_fitted(self):
        if not hasattr(self, "codebooks_"):
            from sklearn.exceptions import NotFittedError

            raise NotFittedError("this ResidualQuantizer is not fitted yet; call fit first")

    def encode(self, X) -> np.ndarray:
        """Greedy codes, int64 (n, levels)."""
        self._check_fitted()
        X = check_array(X, "X", ndim=2, shape=(None, self.n_features_in_))
        residual = X.copy()
        codes = np.empty((X.shape[0], len(self.codebooks_)), dtype=np.int64)
        for level, book in enumerate(self.codebooks_):
            idx = _nearest(residual, book)
            codes[:, level] = idx
            residual = residual - book[idx]
        return codes

    def decode(self, codes) -> np.ndarray:
        """Sum of the chosen codes, (n, d); ``codes`` may use the first 1..levels levels."""
        self._check_fitted()
        levels, size = self.codebooks_.shape[:2]
        codes = check_array(codes, "codes", ndim=2, dtype="int", allow_empty=True)
        if not 1 <= codes.shape[1] <= levels:
            raise ValueError(f"codes must have 1 to {levels} columns, got shape {codes.shape}")
        if codes.size and (codes.min() < 0 or codes.max() >= size):
            raise ValueError(
                f"codes must be in [0, {size - 1}], got values in [{codes.min()}, {codes.max()}]"
            )
        out = np.zeros((codes.shape[0], self.codebooks_.shape[2]))
        for level in range(codes.shape[1]):
            out += self.codebooks_[level][codes[:, level]]
        return out


def _nearest(x: np.ndarray, book: np.ndarray) -> np.ndarray:
    d2 = (x**2).sum(1)[:, None] - 2 * x @ book.T + (book**2).sum(1)[None, :]
    return np.argmin(d2, axis=1)


def _kmeans(x: np.ndarray, k: int, rng: np.random.Generator, iters: int = 50) -> np.ndarray:
    """k-means++ seeding then Lloyd iterations; every returned centre with points assigned to
    it is the mean of those points, so the greedy residual error can only go down."""
    n = x.shape[0]
    centres = np.empty((k, x.shape[1]))
    centres[0] = x[rng.integers(n)]
    d2 = np.sum((x - centres[0]) ** 2, axis=1)
    for c in range(1, k):
        total = d2.sum()
        i = rng.choice(n, p=d2 / total) if total > 0 else rng.integers(n)
        centres[c] = x[i]
        d2 = np.minimum(d2, np.sum((x - centres[c]) ** 2, axis=1))
    idx = _nearest(x, centres)
    for _ in range(iters):
        for c in range(k):
            members = idx == c
            if members.any():
                centres[c] = x[members].mean(axis=0)
        new = _nearest(x, centres)
        if np.array_equal(new, idx):
            break
        idx = new
    for c in range(k):  # final recentring on the final assignment
        members = idx == c
        if members.any():
            centres[c] = x[members].mean(axis=0)
    return centres
