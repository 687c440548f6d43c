"""Comment metrics: sentence BLEU-4 (add-one smoothing), ROUGE-L, token F1, contradiction, AUROC.

Texts are whitespace-tokenised as given (pass a list of tokens for any other tokenisation);
nothing is lower-cased by :func:`bleu4`/:func:`rouge_l`, whereas :func:`token_f1` and
:func:`contradiction` compare lower-cased alphanumeric words.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from typing import Any

import numpy as np

from ._checks import check_array, check_bool, check_float, check_same_length
from ._validation import check_text, check_texts, check_tokens

__all__ = ["auroc", "bleu4", "comment_words", "contradiction", "rouge_l", "token_f1"]

_WORD = re.compile(r"[a-z0-9]+")


def _ngrams(tokens: list[str], n: int) -> Counter:
    return Counter(tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1))


def bleu4(hyp: str | Sequence[str], ref: str | Sequence[str], *, smooth: bool = True) -> float:
    """Sentence BLEU-4 of ``hyp`` against one reference ``ref``, in [0, 1].

    ``BP * exp(mean_n log p_n)`` over n = 1..4, with ``p_n`` the clipped n-gram precision and
    ``BP = min(1, exp(1 - r / c))`` (c, r: hypothesis and reference lengths). ``smooth=True``
    is the add-one smoothing of code-summarisation papers (Lin & Och 2004; CodeXGLUE's
    ``smooth_bleu``; sacrebleu's ``smooth_method="add-k"``): ``p_n = (m_n + 1) / (l_n + 1)``
    for n >= 2, the unigram precision unsmoothed. Any zero precision (an empty hypothesis, no
    shared unigram, or unsmoothed no shared n-gram) gives 0. Strings are split on whitespace.

    >>> bleu4("returns the user", "returns the user")
    1.0
    """
    h = check_tokens(hyp, "hyp")
    r = check_tokens(ref, "ref")
    smooth = check_bool(smooth, "smooth")
    c = len(h)
    if c == 0:
        return 0.0
    log_sum = 0.0
    for n in range(1, 5):
        hn, rn = _ngrams(h, n), _ngrams(r, n)
        matches = sum(min(cnt, rn[g]) for g, cnt in hn.items())
        total = max(c - n + 1, 0)
        if smooth and n >= 2:
            matches, total = matches + 1, total + 1
        if matches == 0 or total == 0:
            return 0.0
        log_sum += math.log(matches / total)
    bp = min(1.0, math.exp(1.0 - len(r) / c))
    return float(bp * math.exp(log_sum / 4.0))


def rouge_l(hyp: str | Sequence[str], ref: str | Sequence[str], *, beta: float = 1.2) -> float:
    """ROUGE-L F-measure: LCS-based ``(1 + b^2) P R / (R + b^2 P)`` (``beta`` 1.2 as in the
    code-summarisation literature); 0 when the longest common subsequence is empty."""
    h = check_tokens(hyp, "hyp")
    r = check_tokens(ref, "ref")
    beta = check_float(beta, "beta", minimum=0.0, min_inclusive=False)
    if not h or not r:
        return 0.0
    prev = [0] * (len(r) + 1)
    for a in h:
        cur = [0]
        for j, b in enumerate(r):
            cur.append(prev[j] + 1 if a == b else max(prev[j + 1], cur[j]))
        prev = cur
    lcs = prev[-1]
    if lcs == 0:
        return 0.0
    p, rec = lcs / len(h), lcs / len(r)
    b2 = beta * beta
    return float((1 + b2) * p * rec / (rec + b2 * p))


def comment_words(text: str) -> list[str]:
    """Lower-cased runs of ``[a-z0-9]`` (the word tokens of :func:`token_f1`)."""
    return _WORD.findall(check_text(text, "text").lower())


def _f1(a: list[str], b: list[str]) -> float:
    if not a or not b:
        return float(a == b)
    common = sum((Counter(a) & Counter(b)).values())
    if common == 0:
        return 0.0
    p, r = common / len(a), common / len(b)
    return 2 * p * r / (p + r)


def token_f1(a: str, b: str) -> float:
    """Multiset word-overlap F1 of two comments (:func:`comment_words`); two empty comments
    agree (1.0), one empty comment agrees with nothing (0.0)."""
    return _f1(comment_words(check_text(a, "a")), comment_words(check_text(b, "b")))


def contradiction(comments: Sequence[str]) -> float:
    """``1 - mean pairwise token F1`` over all pairs of ``comments`` (0: all agree, 1: no pair
    shares a word). A single comment has no pair to contradict: 0.0."""
    items = check_texts(comments, "comments")
    words = [comment_words(c) for c in items]
    n = len(words)
    if n == 1:
        return 0.0
    total = sum(_f1(words[i], words[j]) for i in range(n) for j in range(i + 1, n))
    return float(1.0 - total / (n * (n - 1) / 2))


def auroc(scores: Any, labels: Any) -> float:
    """Area under the ROC curve of ``scores`` for binary ``labels`` (1 = positive): the
    Mann-Whitney probability that a positive outscores a negative, ties counting one half."""
    s = check_array(scores, "scores", ndim=1)
    y = check_array(labels, "labels", ndim=1)
    check_same_length(scores=s, labels=y)
    if not np.all((y == 0) | (y == 1)):
        raise ValueError(f"labels must be 0 or 1, got values {np.unique(y)[:5].tolist()}")
    pos, neg = s[y == 1], s[y == 0]
    if pos.size == 0 or neg.size == 0:
        raise ValueError("labels must hold both classes (0 and 1)")
    order = np.argsort(np.concatenate([pos, neg]), kind="mergesort")
    allv = np.concatenate([pos, neg])[order]
    ranks = np.empty(allv.size)
    i = 0
    while i < allv.size:  # average ranks of ties
        j = i
        while j + 1 < allv.size and allv[j + 1] == allv[i]:
            j += 1
        ranks[i : j + 1] = (i + j) / 2 + 1
        i = j + 1
    r = np.empty(allv.size)
    r[order] = ranks
    u = r[: pos.size].sum() - pos.size * (pos.size + 1) / 2
    return float(u / (pos.size * neg.size))
