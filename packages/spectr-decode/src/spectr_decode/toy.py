"""Tabular language models for statistical tests: exact probabilities, no torch."""

from __future__ import annotations

import numpy as np

from ._checks import check_array, check_int

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
        t = check_array(table, "table", ndim=2)
        if t.shape[0] != t.shape[1]:
            raise ValueError(f"table must be a square float[V, V] array, got shape {t.shape}")
        if np.any(t < 0):
            raise ValueError(f"table must be non-negative, got minimum {t.min():.3g}")
        if np.any(np.abs(t.sum(1) - 1.0) > 1e-9):
            raise ValueError("every row of table must sum to 1")
        self.table = t / t.sum(1, keepdims=True)
        with np.errstate(divide="ignore"):
            self._log = np.log(self.table)

    @property
    def vocab_size(self) -> int:
        return self.table.shape[0]

    def __call__(self, prefixes) -> np.ndarray:
        x = check_array(prefixes, "prefixes", ndim=2, dtype="int")
        last = x[:, -1]
        if last.min() < 0 or last.max() >= self.vocab_size:
            raise ValueError(f"prefixes hold a token outside the vocabulary [0, {self.vocab_size})")
        return self._log[last]

    def joint(self, last: int, n: int) -> np.ndarray:
        """Exact joint law of the next ``n`` tokens after token ``last``: ``float[V, ..., V]`` (n axes)."""
        last = check_int(last, "last", minimum=0, maximum=self.vocab_size - 1)
        n = check_int(n, "n", minimum=1)
        V = self.vocab_size
        dist = np.zeros((V,) * n)  # explicit enumeration: n and V are small in tests
        for idx in np.ndindex(*dist.shape):
            prob, prev = 1.0, last
            for tok in idx:
                prob *= self.table[prev, tok]
                prev = tok
            dist[idx] = prob
        return dist
