"""Exact brute-force cosine kNN over embeddings, in memory-bounded blocks."""

from __future__ import annotations

import numpy as np

from ._checks import check_array, check_float, check_int

__all__ = ["EmbeddingIndex"]

_BLOCK_ELEMENTS = 1 << 23  # similarities computed per block (64 MiB of float64)


def _unit(x: np.ndarray, name: str) -> np.ndarray:
    norms = np.linalg.norm(x, axis=1)
    zero = np.flatnonzero(norms == 0)
    if zero.size:
        raise ValueError(
            f"{name} has {zero.size} all-zero row(s) (first: row {int(zero[0])}); "
            "cosine similarity is undefined for them"
        )
    return x / norms[:, None].astype(x.dtype)


def _topk(S: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Per row of S: the k largest values, descending, ties by lower column index."""
    m, n = S.shape
    if k >= n // 2:
        idx = np.argsort(-S, axis=1, kind="stable")[:, :k]
        return idx, np.take_along_axis(S, idx, axis=1)
    part = np.argpartition(-S, k - 1, axis=1)[:, :k]
    kth = np.take_along_axis(S, part, axis=1).min(axis=1)
    n_ge = np.count_nonzero(S >= kth[:, None], axis=1)
    idx = np.empty((m, k), dtype=np.int64)
    for r in range(m):
        cand = np.flatnonzero(S[r] >= kth[r]) if n_ge[r] > k else np.sort(part[r])
        order = np.argsort(-S[r, cand], kind="stable")[:k]  # cand ascending: ties -> lower index
        idx[r] = cand[order]
    return idx, np.take_along_axis(S, idx, axis=1)


class EmbeddingIndex:
    """Exact cosine-similarity search over the rows of ``embs`` (``(n, d)``).

    Rows are L2-normalised once (float32 input stays float32, anything else is float64);
    all-zero rows are a ``ValueError``. ``search(q, k)`` returns the ``k`` most similar rows
    per query, most similar first, ties by lower index; ``near_duplicates(t)`` lists every
    pair ``(i, j)``, ``i < j``, with cosine ``>= t``. Work is done in blocks of bounded memory.
    """

    def __init__(self, embs) -> None:
        dtype = np.float32 if getattr(embs, "dtype", None) == np.float32 else np.float64
        x = check_array(embs, "embs", ndim=2).astype(dtype, copy=False)
        self._x = _unit(x, "embs")
        self.n, self.dim = self._x.shape

    def __len__(self) -> int:
        return self.n

    def search(self, q, k) -> tuple[np.ndarray, np.ndarray]:
        """``(idx, sims)`` of the ``k`` nearest rows by cosine: shape ``(k,)`` for one query
        ``q`` of shape ``(d,)``, ``(m, k)`` for ``m`` queries ``(m, d)``; ``idx`` int64."""
        qa = check_array(q, "q", ndim=(1, 2))
        single = qa.ndim == 1
        qa = np.atleast_2d(qa)
        if qa.shape[1] != self.dim:
            raise ValueError(f"q must have {self.dim} columns (the index's d), got {qa.shape[1]}")
        k = check_int(k, "k", minimum=1, maximum=self.n)
        qu = _unit(qa.astype(self._x.dtype, copy=False), "q")
        step = max(1, _BLOCK_ELEMENTS // self.n)
        idx = np.empty((qu.shape[0], k), dtype=np.int64)
        sims = np.empty((qu.shape[0], k), dtype=self._x.dtype)
        for a in range(0, qu.shape[0], step):
            S = qu[a : a + step] @ self._x.T
            idx[a : a + step], sims[a : a + step] = _topk(S, k)
        sims = np.clip(sims, -1.0, 1.0)
        return (idx[0], sims[0]) if single else (idx, sims)

    def near_duplicates(self, t) -> list[tuple[int, int]]:
        """Every pair ``(i, j)`` with ``i < j`` and cosine ``>= t``, sorted by ``(i, j)``."""
        t = check_float(t, "t", minimum=-1.0, maximum=1.0)
        out: list[tuple[int, int]] = []
        step = max(1, _BLOCK_ELEMENTS // self.n)
        for a in range(0, self.n, step):
            b = min(self.n, a + step)
            S = self._x[a:b] @ self._x[a:].T  # columns are rows a.. of the index
            rows, cols = np.nonzero(S >= t)
            i = rows + a
            j = cols + a
            upper = j > i
            out.extend(zip(i[upper].tolist(), j[upper].tolist()))
        return out
