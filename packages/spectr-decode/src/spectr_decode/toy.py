"""Tabular language models for statistical tests: exact probabilities, no torch."""

from __future__ import annotations

import numpy as np

__all__ = ["MarkovLM"]


class MarkovLM:
    """First-order Markov language model: ``P(next = j | last token = i) = table[i, j]``.

    A plain callable ``lm(prefixes: int[B, T]) -> float[B, V]`` (next-token log-probabilities),
    the interface :func:`spectr_decode.spectr_generate` accepts for models.

    >>> lm = MarkovLM([[0.9, 0.1], [0.5, 0.5]])
    >>> np.exp(lm(np.array([[0, 1], [1, 0]]))).round(2).tolist()
    [[0.5, 0.5], [0.9, 0.1]]
    """

    def __init__(self, table):
        t = np.asarray(table, dtype=np.float64)
        if t.ndim != 2 or t.shape[0] != t.shape[1] or t.shape[0] == 0:
            raise ValueError(f"table must be a square float[V, V] array, got shape {t.shape}")
        if not np.all(np.isfinite(t)) or np.any(t < 0):
            raise ValueError("table must be finite and non-negative")
        if np.any(np.abs(t.sum(1) - 1.0) > 1e-9):
            raise ValueError("every row of table must sum to 1")
        self.table = t / t.sum(1, keepdims=True)
        with np.errstate(divide="ignore"):
            self._log = np.log(self.table)

    @property
    def vocab_size(self) -> int:
        return self.table.shape[0]

    def __call__(self, prefixes) -> np.ndarray:
        x = np.asarray(prefixes)
        if x.ndim != 2 or x.shape[1] == 0:
            raise ValueError(f"prefixes must be int[B, T] with T >= 1, got shape {x.shape}")
        last = x[:, -1]
        if last.min() < 0 or last.max() >= self.vocab_size:
            raise ValueError(f"prefixes hold a token outside the vocabulary [0, {self.vocab_size})")
        return self._log[last]

    def joint(self, last: int, n: int) -> np.ndarray:
        """Exact joint law of the next ``n`` tokens after token ``last``: ``float[V, ..., V]`` (n axes)."""
        V = self.vocab_size
        dist = np.zeros((V,) * n)  # explicit enumeration: n and V are small in tests
        for idx in np.ndindex(*dist.shape):
            prob, prev = 1.0, last
            for tok in idx:
                prob *= self.table[prev, tok]
                prev = tok
            dist[idx] = prob
        return dist
