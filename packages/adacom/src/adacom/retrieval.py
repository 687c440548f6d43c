"""Lexical code retrieval: an identifier-aware tokenizer and an Okapi BM25 index."""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Sequence

import numpy as np

from ._checks import check_callable, check_float, check_int, describe
from ._validation import check_text, check_texts

__all__ = ["BM25Retriever", "code_tokenize"]

_CHUNK = re.compile(r"[A-Za-z0-9]+")
_PART = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")


def code_tokenize(code: str) -> list[str]:
    """Sub-tokens of ``code``, lower-cased: punctuation and ``_`` separate, camelCase and
    acronyms split (``"XMLHttpRequest"`` -> ``xml http request``), digit runs kept.

    >>> code_tokenize("def getUserName(self): return self.user_name")
    ['def', 'get', 'user', 'name', 'self', 'return', 'self', 'user', 'name']
    """
    code = check_text(code, "code")
    return [p.lower() for chunk in _CHUNK.findall(code) for p in _PART.findall(chunk)]


class BM25Retriever:
    """Okapi BM25 over tokenised ``codes``.

    ``score(q, d) = sum_{t in q} idf(t) * f(t, d) (k1 + 1) / (f(t, d) + k1 (1 - b + b |d| / avgdl))``
    with ``idf(t) = ln(1 + (N - n(t) + 1/2) / (n(t) + 1/2))`` (always positive); a query term
    repeated counts once per occurrence (as rank-bm25 does). The index is inverted (one posting
    array per term), so a query costs its postings, not the corpus.
    """

    def __init__(
        self,
        codes: Sequence[str],
        *,
        tokenizer: Callable[[str], list[str]] = code_tokenize,
        k1: float = 1.2,
        b: float = 0.75,
    ):
        codes = check_texts(codes, "codes")
        self.tokenizer = check_callable(tokenizer, "tokenizer")
        self.k1 = check_float(k1, "k1", minimum=0.0)
        self.b = check_float(b, "b", minimum=0.0, maximum=1.0)
        docs = [self._tokens(c, "tokenizer") for c in codes]
        self.n_docs = len(docs)
        self.doc_len = np.array([len(d) for d in docs], dtype=np.float64)
        self.avgdl = float(self.doc_len.mean())
        norm = (
            self.k1 * (1 - self.b + self.b * self.doc_len / self.avgdl)
            if self.avgdl
            else (np.full(self.n_docs, self.k1))
        )
        postings: dict[str, tuple[list[int], list[int]]] = {}
        for i, d in enumerate(docs):
            for t, f in Counter(d).items():
                ids, tfs = postings.setdefault(t, ([], []))
                ids.append(i)
                tfs.append(f)
        self.idf: dict[str, float] = {}
        self._postings: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        for t, (ids, tfs) in postings.items():
            n = len(ids)
            idf = math.log(1.0 + (self.n_docs - n + 0.5) / (n + 0.5))
            self.idf[t] = idf
            idx = np.asarray(ids, dtype=np.int64)
            tf = np.asarray(tfs, dtype=np.float64)
            self._postings[t] = (idx, idf * tf * (self.k1 + 1) / (tf + norm[idx]))

    def _tokens(self, code: str, who: str) -> list[str]:
        toks = self.tokenizer(code)
        if isinstance(toks, str) or not isinstance(toks, Sequence):
            raise TypeError(f"{who} must return a list of str, got {describe(toks)}")
        return list(toks)

    def __len__(self) -> int:
        return self.n_docs

    def scores(self, code: str) -> np.ndarray:
        """BM25 score of ``code`` against every indexed code, shape ``(N,)``."""
        q = self._tokens(check_text(code, "code"), "tokenizer")
        out = np.zeros(self.n_docs)
        for t, times in Counter(q).items():
            post = self._postings.get(t)
            if post is not None:
                out[post[0]] += times * post[1]
        return out

    def query(self, code: str, k: int) -> tuple[np.ndarray, np.ndarray]:
        """The ``k`` best codes: ``(idx, sims)``, int64 indices and their BM25 scores, best
        first, equal scores in corpus order. ``k`` must be in ``[1, N]``."""
        code = check_text(code, "code")
        k = check_int(k, "k", minimum=1, maximum=self.n_docs)
        s = self.scores(code)
        if k < self.n_docs:
            kth = np.partition(s, self.n_docs - k)[self.n_docs - k]
            cand = np.flatnonzero(s >= kth)
        else:
            cand = np.arange(self.n_docs)
        order = cand[np.lexsort((cand, -s[cand]))][:k]
        return order.astype(np.int64), s[order]
