"""Hit@K and MRR against hand-computed values and a naive per-patient loop."""

import numpy as np
import pytest
from pheno_impute import hit_at_k, mrr


def naive_ranks(scores, test, train):
    ranks = []
    for s, t, tr in zip(scores, test, train):
        if not t.any():
            continue
        cands = [j for j in range(len(s)) if not tr[j]]
        best = max(s[j] for j in cands if t[j])
        # pessimistic: every non-positive candidate scoring >= the best positive is above it
        ranks.append(1 + sum(1 for j in cands if not t[j] and s[j] >= best))
    return np.array(ranks)


def test_hand_computed():
    scores = np.array([[0.9, 0.8, 0.1, 0.5], [0.2, 0.3, 0.4, 0.1], [0.5, 0.5, 0.5, 0.5]])
    test = np.array([[0, 0, 0, 1], [1, 0, 0, 0], [0, 0, 0, 0]], bool)
    train = np.array([[1, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]], bool)
    # row 0: column 0 (0.9) is a training positive, so only 0.8 beats 0.5: rank 2
    # row 1: 0.2 is beaten by 0.3 and 0.4: rank 3; row 2 has no test positive: skipped
    assert hit_at_k(scores, test, train, k=1) == 0.0
    assert hit_at_k(scores, test, train, k=2) == 0.5
    assert hit_at_k(scores, test, train, k=3) == 1.0
    assert mrr(scores, test, train) == pytest.approx((1 / 2 + 1 / 3) / 2)


def test_training_positives_never_count():
    scores = np.array([[10.0, 9.0, 1.0]])
    test = np.array([[0, 0, 1]], bool)
    train = np.array([[1, 1, 0]], bool)
    assert mrr(scores, test, train) == 1.0
    assert hit_at_k(scores, test, train, k=1) == 1.0


def test_best_of_several_positives_and_ties():
    scores = np.array([[0.1, 0.7, 0.7, 0.3]])
    test = np.array([[1, 0, 1, 0]], bool)  # best positive 0.7 ties with column 1
    train = np.zeros((1, 4), bool)
    assert mrr(scores, test, train) == 0.5
    const = np.ones((1, 4))
    assert mrr(const, test, train) == pytest.approx(1 / 3)  # a constant scorer gains nothing


def test_matches_naive_loop():
    rng = np.random.default_rng(0)
    scores = rng.integers(0, 5, (60, 12)).astype(float)  # many ties
    train = rng.random((60, 12)) < 0.3
    test = (rng.random((60, 12)) < 0.2) & ~train
    ranks = naive_ranks(scores, test, train)
    for k in (1, 3, 5):
        assert hit_at_k(scores, test, train, k=k) == pytest.approx(np.mean(ranks <= k))
    assert mrr(scores, test, train) == pytest.approx(np.mean(1 / ranks))
