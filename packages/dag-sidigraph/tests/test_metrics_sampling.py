"""best_f1 and auf1c against brute force and closed forms; PairSampler draws from the right sets."""

from __future__ import annotations

import numpy as np
import pytest
from _reference import dfs_intervals, naive_minimal_negatives
from dag_sidigraph import (
    PairSampler,
    auf1c,
    balanced_tree,
    best_f1,
    minimal_sidigraph,
    transitive_reduction,
)


def _brute_best_f1(scores, adj):
    n = len(adj)
    best = 0.0
    offd = ~np.eye(n, dtype=bool)
    for t in np.unique(scores[offd]):
        pred = (scores >= t) & offd
        tp = (pred & adj).sum()
        fp = (pred & ~adj).sum()
        fn = (~pred & adj & offd).sum()
        if tp:
            best = max(best, 2 * tp / (2 * tp + fp + fn))
    return best


@pytest.mark.parametrize("seed", range(8))
def test_best_f1_matches_brute_force(seed):
    rng = np.random.default_rng(seed)
    n = 12
    adj = rng.random((n, n)) < 0.3
    np.fill_diagonal(adj, False)
    scores = adj * rng.uniform(0, 1) + rng.normal(0, 0.5, (n, n))
    if seed % 2:
        scores = np.round(scores, 1)  # ties
    assert best_f1(scores, adj) == pytest.approx(_brute_best_f1(scores, adj))


def test_best_f1_ignores_the_diagonal_and_is_one_for_a_perfect_ranking():
    adj = balanced_tree(2, 3)
    scores = adj.astype(float)
    np.fill_diagonal(scores, -5.0)
    assert best_f1(scores, adj) == 1.0
    scores[np.arange(15), np.arange(15)] = 10.0
    assert best_f1(scores, adj) == 1.0


def test_best_f1_without_positives_is_refused():
    with pytest.raises(ValueError, match="adj"):
        best_f1(np.zeros((3, 3)), np.zeros((3, 3), dtype=bool))


def test_hard_nested_intervals_reproduce_a_tree_exactly():
    # the paper's inductive-bias check: nested boxes (here 1-d intervals from a DFS) for E^tr and
    # disjoint ones for E_H* give P(u -> v) = |I_u ∩ I_v| / |I_v| = 1 exactly on the closure
    adj = balanced_tree(3, 4)
    n = len(adj)
    lo, hi = dfs_intervals(adj)
    inter = np.clip(
        np.minimum(hi[:, None], hi[None, :]) - np.maximum(lo[:, None], lo[None, :]), 0, None
    )
    prob = inter / (hi - lo)[None, :]
    pos, neg = minimal_sidigraph(adj)
    assert np.all(prob[pos[0], pos[1]] == 1) and np.all(prob[neg[0], neg[1]] == 0)
    np.testing.assert_array_equal((prob == 1) & ~np.eye(n, dtype=bool), adj)
    assert best_f1(prob, adj) == 1.0


def test_auf1c_closed_forms():
    assert auf1c([0, 10], [0.0, 1.0]) == pytest.approx(0.5)
    assert auf1c(np.array([0, 1, 3]), np.array([1.0, 1.0, 1.0])) == pytest.approx(1.0)
    assert auf1c([0, 1, 2], [0.0, 1.0, 1.0]) == pytest.approx(0.75)

    class H:
        examples = np.array([0, 2, 4])
        f1 = np.array([0.0, 0.5, 1.0])

    assert auf1c(H()) == pytest.approx(0.5)
    with pytest.raises(ValueError, match="examples"):
        auf1c([0, 0, 1], [0.1, 0.2, 0.3])
    with pytest.raises(ValueError, match="f1"):
        auf1c([0, 1], [0.1, 1.3])
    with pytest.raises(TypeError, match="history"):
        auf1c(object())


def test_sampler_reduced_draws_from_e_tr_and_e_h_star():
    adj = balanced_tree(2, 4)
    s = PairSampler(adj, k=3, batch_size=500, rng=0)
    t = transitive_reduction(adj)
    neg_set = naive_minimal_negatives(adj)
    assert s.num_positives == int(t.sum()) and s.num_negatives == len(neg_set)
    u, v, y = s.sample()
    assert u.shape == v.shape == y.shape == (500 * 4,)
    assert (y == 1).sum() == 500 and s.examples_per_batch == 2000
    assert t[u[y == 1], v[y == 1]].all()
    assert {(a, b) for a, b in zip(u[y == 0], v[y == 0])} <= neg_set
    # uniform over the positive set: every reduction edge drawn about 500/30 times
    counts = np.zeros_like(t, dtype=int)
    for _ in range(20):
        u, v, y = s.sample()
        np.add.at(counts, (u[y == 1], v[y == 1]), 1)
    c = counts[t]
    assert c.min() > 0 and abs(c.mean() - 20 * 500 / t.sum()) < 1e-9


def test_sampler_full_setting_negatives_are_non_edges():
    adj = balanced_tree(2, 4)
    s = PairSampler(adj, positives="closure", negatives="all", k=4, batch_size=300, rng=1)
    u, v, y = s.sample()
    assert adj[u[y == 1], v[y == 1]].all()
    un, vn = u[y == 0], v[y == 0]
    assert not adj[un, vn].any() and np.all(un != vn)
    assert s.num_negatives == 31 * 30 - int(adj.sum())
    # rejection sampling is uniform over non-edges: the reversed edges (v above u) are a
    # fraction |E| / |Ē| of the draws
    uu, vv, yy = zip(*(s.sample() for _ in range(40)))
    un = np.concatenate([a[b == 0] for a, b in zip(uu, yy)])
    vn = np.concatenate([a[b == 0] for a, b in zip(vv, yy)])
    frac = adj[vn, un].mean()
    want = adj.sum() / s.num_negatives
    assert abs(frac - want) < 4 * np.sqrt(want * (1 - want) / un.size)


def test_sampler_is_reproducible_and_handles_empty_sets():
    adj = balanced_tree(2, 3)
    a = PairSampler(adj, rng=7).sample()
    b = PairSampler(adj, rng=7).sample()
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x, y)
    chain = np.triu(np.ones((4, 4), dtype=bool), 1)  # no minimal negatives
    u, v, y = PairSampler(chain, batch_size=8).sample()
    assert y.size == 8 and y.all()
    anti = np.zeros((3, 3), dtype=bool)  # no positives
    u, v, y = PairSampler(anti, k=2, batch_size=5).sample()
    assert y.size == 10 and not y.any()
    with pytest.raises(ValueError, match="adj"):
        PairSampler(np.zeros((1, 1), dtype=bool))
    with pytest.raises(ValueError, match="k"):
        PairSampler(anti, k=0)
    assert "PairSampler(n=15" in repr(PairSampler(adj))
