"""Compromise detection: is the generator likely to under-perform on a code? (inferred design)"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import torch
from torch import nn

from ._checks import check_array, check_float, check_int, check_probability
from ._validation import check_pairs, check_text, check_texts
from .generators import check_comment_generator
from .metrics import _f1, bleu4, comment_words, contradiction
from .retrieval import BM25Retriever, code_tokenize

__all__ = ["FEATURES", "CompromiseDetector", "compromise_labels"]

#: the detector's features, in column order
FEATURES = (
    "nll",  # mean token NLL of the generator's own greedy comment
    "max_sim",  # best BM25 score among the top-k training codes
    "mean_sim",  # mean BM25 score of the top-k
    "contradiction",  # 1 - mean pairwise token F1 of the top-k comments
    "disagreement",  # 1 - BM25-weighted mean token F1 of the greedy comment vs the top-k
    "log_len",  # log(1 + number of code sub-tokens)
)


def compromise_labels(
    generator: nn.Module, codes: Sequence[str], comments: Sequence[str], *, quantile: float = 0.5
) -> np.ndarray:
    """``1[BLEU-4(generator(code), reference) < q]``, with ``q`` the ``quantile`` of those
    BLEU-4 scores: the detector's training target (1 = compromised)."""
    generator = check_comment_generator(generator)
    codes, comments = check_pairs(codes, comments)
    quantile = check_probability(quantile, "quantile")
    hyps = generator.generate(codes)
    scores = np.array([bleu4(h, r) for h, r in zip(hyps, comments, strict=True)])
    return (scores < np.quantile(scores, quantile)).astype(np.int64)


class CompromiseDetector:
    """A logistic-regression detector ``g(code) -> P(compromised)`` on :data:`FEATURES`.

    ``fit(codes, labels)`` (labels from :func:`compromise_labels` on a validation split) fits an
    L2-regularised (``l2``) logistic regression on standardised features by Newton's method;
    ``predict_proba(codes)`` gives the probabilities and ``detector(code)`` one probability,
    the ``detector`` argument of :class:`adacom.Adacom`.
    """

    def __init__(
        self,
        generator: nn.Module,
        codes: Sequence[str],
        comments: Sequence[str],
        *,
        k: int = 8,
        l2: float = 1e-2,
    ):
        self.generator = check_comment_generator(generator)
        self.codes, self.comments = check_pairs(codes, comments)
        self.k = check_int(k, "k", minimum=1)
        self.l2 = check_float(l2, "l2", minimum=0.0)
        self.retriever = BM25Retriever(self.codes)
        self.coef_: np.ndarray | None = None

    def features(self, codes: Sequence[str]) -> np.ndarray:
        """The feature matrix ``(n, len(FEATURES))`` of ``codes``."""
        codes = check_texts(codes, "codes")
        hyps = self.generator.generate(codes)
        with torch.no_grad():
            nll = self.generator.loss(codes, hyps).detach().cpu().double().numpy()
        k = min(self.k, len(self.codes))
        rows = []
        for code, hyp, ll in zip(codes, hyps, nll, strict=True):
            idx, sims = self.retriever.query(code, k)
            neigh = [self.comments[i] for i in idx]
            hw = comment_words(hyp)
            f1s = np.array([_f1(hw, comment_words(c)) for c in neigh])
            w = sims if sims.sum() > 0 else np.ones_like(sims)
            rows.append(
                [
                    ll,
                    sims.max(),
                    sims.mean(),
                    contradiction(neigh),
                    1.0 - float((w * f1s).sum() / w.sum()),
                    math.log1p(len(code_tokenize(code))),
                ]
            )
        return np.asarray(rows, dtype=np.float64)

    def fit(self, codes: Sequence[str], labels: Any) -> CompromiseDetector:
        """Fit on ``codes`` and 0/1 ``labels`` (both classes needed)."""
        codes = check_texts(codes, "codes")
        y = check_array(labels, "labels", ndim=1)
        if y.shape[0] != len(codes):
            raise ValueError(f"labels has {y.shape[0]} items but codes has {len(codes)}")
        if not np.all((y == 0) | (y == 1)):
            raise ValueError("labels must be 0 or 1")
        if y.min() == y.max():
            raise ValueError("labels must hold both classes (0 and 1)")
        X = self.features(codes)
        self.mean_ = X.mean(0)
        self.scale_ = np.where(X.std(0) > 0, X.std(0), 1.0)
        Z = np.hstack([np.ones((len(y), 1)), (X - self.mean_) / self.scale_])
        w = np.zeros(Z.shape[1])
        reg = np.full(Z.shape[1], self.l2 * len(y))
        reg[0] = 0.0
        for _ in range(50):
            p = 1 / (1 + np.exp(-Z @ w))
            grad = Z.T @ (p - y) + reg * w
            H = (Z * (p * (1 - p))[:, None]).T @ Z + np.diag(reg) + 1e-9 * np.eye(Z.shape[1])
            step = np.linalg.solve(H, grad)
            w -= step
            if np.abs(step).max() < 1e-10:
                break
        self.coef_ = w
        return self

    def predict_proba(self, codes: Sequence[str]) -> np.ndarray:
        """P(compromised) of each code, shape ``(n,)``."""
        if self.coef_ is None:
            raise RuntimeError("CompromiseDetector is not fitted: call fit(codes, labels) first")
        X = self.features(codes)
        z = np.hstack([np.ones((X.shape[0], 1)), (X - self.mean_) / self.scale_]) @ self.coef_
        return 1 / (1 + np.exp(-z))

    def __call__(self, code: str) -> float:
        return float(self.predict_proba([check_text(code, "code")])[0])
