"""Ranking metrics for phenotype imputation (Hit@K, MRR), training positives excluded."""

from __future__ import annotations

import numpy as np

from ._checks import check_array, check_int
from ._validation import check_mask

__all__ = ["hit_at_k", "mrr"]


def _ranks(scores, test_mask, train_mask) -> np.ndarray:
    s = check_array(scores, "scores", ndim=2)
    test = check_mask(test_mask, "test_mask", shape=s.shape)
    train = check_mask(train_mask, "train_mask", shape=s.shape)
    if (test & train).any():
        raise ValueError(
            f"test_mask and train_mask must not overlap, got {int((test & train).sum())} "
            "entries in both"
        )
    rows = test.any(axis=1)
    if not rows.any():
        raise ValueError("test_mask must hold at least one test positive, got none")
    s, test, train = s[rows], test[rows], train[rows]
    best = np.where(test, s, -np.inf).max(axis=1, keepdims=True)
    # competitors: candidates (not in train_mask) that are not test positives; ties count
    # against the positive, so a constant scorer is not rewarded
    competitors = ~train & ~test
    return 1 + (competitors & (s >= best)).sum(axis=1)


def hit_at_k(scores, test_mask, train_mask, *, k: int) -> float:
    """Fraction of patients (rows with a test positive) whose best-scored test positive ranks in
    the top ``k`` among the candidate columns (those not in ``train_mask``).

    ``scores`` (n, m) float; ``test_mask`` (n, m) bool, the held-out positives;
    ``train_mask`` (n, m) bool, entries known in training (never candidates). A non-positive
    candidate tied with the best test positive counts as ranked above it.
    """
    k = check_int(k, "k", minimum=1)
    return float(np.mean(_ranks(scores, test_mask, train_mask) <= k))


def mrr(scores, test_mask, train_mask) -> float:
    """Mean over patients with a test positive of 1 / rank of their best test positive among the
    candidate columns (not in ``train_mask``); ties count against the positive."""
    return float(np.mean(1.0 / _ranks(scores, test_mask, train_mask)))
