"""EmbeddingIndex against brute-force kNN and brute-force pair search."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import py_cosine
from disco_filter import EmbeddingIndex


def brute_knn(X, q, k):
    sims = [py_cosine(x, q) for x in X]
    order = sorted(range(len(X)), key=lambda i: (-sims[i], i))[:k]
    return order, [sims[i] for i in order]


@pytest.mark.parametrize("k", [1, 5, 30, 60])
def test_search_matches_brute_force(k):
    rng = np.random.default_rng(k)
    X = rng.standard_normal((60, 16))
    X[10] = X[3] * 2.0  # exact ties in cosine: lower index first
    X[40] = X[3]
    Q = np.vstack([rng.standard_normal((4, 16)), X[3]])
    index = EmbeddingIndex(X)
    idx, sims = index.search(Q, k)
    assert idx.shape == (5, k) and sims.shape == (5, k) and idx.dtype == np.int64
    for row in range(5):
        ref_idx, ref_sims = brute_knn(X.tolist(), Q[row].tolist(), k)
        np.testing.assert_allclose(sims[row], ref_sims, atol=1e-12)
        assert idx[row].tolist() == ref_idx  # rows 3, 10, 40 tie exactly: lower index first
    one_idx, one_sims = index.search(X[3], 3)
    assert one_idx.tolist() == [3, 10, 40] and one_idx.shape == (3,)
    np.testing.assert_allclose(one_sims, 1.0)


def test_search_exact_ties_break_by_index():
    X = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 0.0], [2.0, 0.0], [0.0, 3.0], [1.0, 1.0]])
    idx, sims = EmbeddingIndex(X).search([1.0, 0.0], 4)
    assert idx.tolist() == [0, 2, 3, 5]
    idx, _ = EmbeddingIndex(X).search([0.0, 1.0], 2)
    assert idx.tolist() == [1, 4]


def test_search_in_blocks_matches_one_shot(monkeypatch):
    import disco_filter.index as mod

    rng = np.random.default_rng(1)
    X = rng.standard_normal((500, 8)).astype(np.float32)
    Q = rng.standard_normal((37, 8)).astype(np.float32)
    full = EmbeddingIndex(X).search(Q, 7)
    monkeypatch.setattr(mod, "_BLOCK_ELEMENTS", 1000)  # 2 queries per block
    blocked = EmbeddingIndex(X).search(Q, 7)
    np.testing.assert_array_equal(full[0], blocked[0])
    assert blocked[1].dtype == np.float32


def brute_pairs(X, t):
    n = len(X)
    return [(i, j) for i in range(n) for j in range(i + 1, n) if py_cosine(X[i], X[j]) >= t]


@pytest.mark.parametrize("block", [1 << 23, 300])
def test_near_duplicates_matches_brute_force(monkeypatch, block):
    import disco_filter.index as mod

    monkeypatch.setattr(mod, "_BLOCK_ELEMENTS", block)
    rng = np.random.default_rng(2)
    X = rng.standard_normal((80, 4))
    for t in (0.9, 0.99, -1.0):
        got = EmbeddingIndex(X).near_duplicates(t)
        assert got == brute_pairs(X.tolist(), t)
        assert all(i < j for i, j in got)


def test_planted_duplicates_recall_one():
    rng = np.random.default_rng(3)
    X = rng.standard_normal((1000, 512))
    dup_of = rng.choice(1000, 50, replace=False)
    D = X[dup_of] + 1e-3 * rng.standard_normal((50, 512))
    index = EmbeddingIndex(np.vstack([X, D]))
    pairs = set(index.near_duplicates(0.999))
    planted = {(int(i), 1000 + k) for k, i in enumerate(dup_of)}
    assert planted <= pairs and len(pairs) == 50  # recall 1.0 and nothing else


def test_index_rejects_bad_input():
    with pytest.raises(ValueError, match="embs"):
        EmbeddingIndex(np.array([[1.0, 0.0], [0.0, 0.0]]))
    index = EmbeddingIndex(np.eye(3))
    with pytest.raises(ValueError, match="k"):
        index.search(np.ones(3), 4)
    with pytest.raises(ValueError, match="q"):
        index.search(np.ones(2), 1)
    with pytest.raises(ValueError, match="t"):
        index.near_duplicates(1.5)
    assert len(index) == 3
