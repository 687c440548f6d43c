"""Curation against independent references: brute-force kNN, the joint-space identity,
distribution properties of the question builder."""

import math

import numpy as np
import pytest
from scifibench import LETTERS, dedupe_captions, difficulty, joint_embedding, knn_negatives
from scifibench.curate import make_questions, random_negatives, strip_figure_number, tiered_split


def brute_knn(X, k, min_dist=0.0):
    D = np.linalg.norm(X[:, None, :] - X[None, :, :], axis=-1)
    np.fill_diagonal(D, np.inf)
    D[D < min_dist] = np.inf
    return np.argsort(D, axis=1, kind="stable")[:, :k]


def test_joint_vectors_have_norm_sqrt2_and_the_identity_holds():
    rng = np.random.default_rng(0)
    img, txt = rng.standard_normal((40, 7)), rng.standard_normal((40, 5))
    X = joint_embedding(img, txt)
    np.testing.assert_allclose(np.linalg.norm(X, axis=1), math.sqrt(2), rtol=1e-12)
    ci = (img / np.linalg.norm(img, axis=1, keepdims=True)) @ (
        img / np.linalg.norm(img, axis=1, keepdims=True)
    ).T
    ct = (txt / np.linalg.norm(txt, axis=1, keepdims=True)) @ (
        txt / np.linalg.norm(txt, axis=1, keepdims=True)
    ).T
    D2 = ((X[:, None] - X[None]) ** 2).sum(-1)
    np.testing.assert_allclose(D2, 4 - 2 * (ci + ct), atol=1e-12)
    # Euclidean kNN on the concatenation == ranking by summed cosines
    S = ci + ct
    np.fill_diagonal(S, -np.inf)
    by_cos = np.argsort(-S, axis=1, kind="stable")[:, :4]
    np.testing.assert_array_equal(knn_negatives(X, k=4), by_cos)


@pytest.mark.parametrize("seed", range(4))
def test_knn_equals_brute_force(seed):
    rng = np.random.default_rng(seed)
    n, d = rng.integers(6, 150), rng.integers(1, 20)
    X = rng.standard_normal((n, d)) * rng.uniform(0.1, 50)
    k = int(rng.integers(1, min(n - 1, 10) + 1))
    np.testing.assert_array_equal(knn_negatives(X, k=k), brute_knn(X, k))


def test_knn_min_dist_drops_planted_near_duplicates():
    rng = np.random.default_rng(1)
    base = rng.standard_normal((60, 16))
    dup = base[:20] + 1e-4 * rng.standard_normal((20, 16))
    X = np.vstack([base, dup])
    plain = knn_negatives(X, k=4)
    # without the filter, each planted copy is its original's nearest neighbour
    assert all(plain[i, 0] == 60 + i for i in range(20))
    filt = knn_negatives(X, k=4, min_dist=0.01)
    dist = np.linalg.norm(X[filt] - X[:, None], axis=-1)
    assert dist.min() >= 0.01
    assert not any(60 + i in filt[i] for i in range(20))
    np.testing.assert_array_equal(filt, brute_knn(X, 4, 0.01))


def test_knn_exact_duplicates_and_tiny_min_dist():
    X = np.array([[0.0, 0.0], [0.0, 0.0], [1.0, 0.0], [0.0, 2.0], [3.0, 3.0]])
    assert knn_negatives(X, k=1)[0, 0] == 1  # distance 0 kept at min_dist=0 ("none < 0")
    got = knn_negatives(X, k=1, min_dist=1e-12)  # an exact copy is < 1e-12 away
    assert got[0, 0] == 2 and got[1, 0] == 2
    np.testing.assert_array_equal(knn_negatives(X, k=3, min_dist=1.0), brute_knn(X, 3, 1.0))


@pytest.mark.parametrize("scale", [1e-9, 1.0, 1e6])
def test_knn_is_exact_at_any_scale_and_with_ties(scale):
    rng = np.random.default_rng(4)
    X = np.round(rng.standard_normal((80, 2)), 1) * scale  # a coarse grid: many exact ties
    X[5] = X[6]
    np.testing.assert_array_equal(knn_negatives(X, k=6), brute_knn(X, 6))
    np.testing.assert_array_equal(
        knn_negatives(X, k=3, min_dist=0.15 * scale), brute_knn(X, 3, 0.15 * scale)
    )
    np.testing.assert_array_equal(
        knn_negatives(np.zeros((5, 3)), k=2), [[1, 2], [0, 2], [0, 1], [0, 1], [0, 1]]
    )


def test_knn_too_strict_min_dist_is_an_error():
    X = np.arange(10.0)[:, None]
    with pytest.raises(ValueError, match="min_dist"):
        knn_negatives(X, k=4, min_dist=7.0)


def test_knn_large_enough_to_use_several_blocks():
    rng = np.random.default_rng(2)
    X = rng.standard_normal((700, 3))
    np.testing.assert_array_equal(knn_negatives(X, k=5), brute_knn(X, 5))


def test_difficulty_is_mean_l2_to_negatives():
    rng = np.random.default_rng(3)
    X = rng.standard_normal((12, 4))
    neg = knn_negatives(X, k=3)
    want = [np.mean([np.linalg.norm(X[j] - X[i]) for j in neg[i]]) for i in range(12)]
    np.testing.assert_allclose(difficulty(X, neg), want, rtol=1e-12)


@pytest.mark.parametrize(("n", "k"), [(2, 1), (5, 4), (9, 3), (1000, 4)])
def test_random_negatives_are_distinct_others(n, k):
    neg = random_negatives(n, k=k, rng=0)
    assert neg.shape == (n, k) and neg.dtype == np.int64
    assert (neg != np.arange(n)[:, None]).all()
    assert all(len(set(r)) == k for r in neg.tolist())
    assert neg.min() >= 0 and neg.max() < n


def test_random_negatives_are_uniform():
    # each of the n-1 others of row 0 appears with probability k/(n-1); chi-square over seeds
    n, k, reps = 6, 2, 1000
    counts = np.zeros(n)
    for s in range(reps):
        for j in random_negatives(n, k=k, rng=s)[0]:
            counts[j] += 1
    assert counts[0] == 0
    expected = reps * k / (n - 1)
    chi2 = (((counts[1:] - expected) ** 2) / expected).sum()
    assert chi2 < 20.5  # 4 degrees of freedom: p < 0.0005


def _world(n=30, k=4, seed=0):
    captions = [f"caption {i}" for i in range(n)]
    figures = [f"fig{i}.png" for i in range(n)]
    neg = random_negatives(n, k=k, rng=seed)
    return captions, figures, neg


@pytest.mark.parametrize("task", ["fig2cap", "cap2fig"])
def test_questions_point_at_the_true_item(task):
    captions, figures, neg = _world()
    qs = make_questions(captions, figures, neg, task=task, rng=1)
    for i, q in enumerate(qs):
        assert q.qid == i and q.task == task and len(q.options) == 5
        assert sorted(q.option_ids) == sorted([i, *neg[i].tolist()])
        assert q.option_ids[q.answer_index] == i
        if task == "fig2cap":
            assert q.options == tuple(captions[j] for j in q.option_ids)
            assert q.options[q.answer_index] == captions[i]
            assert q.images == (figures[i],) and q.caption is None
            assert len(set(q.options)) == 5
        else:
            assert q.images == tuple(figures[j] for j in q.option_ids)
            assert q.images[q.answer_index] == figures[i]
            assert q.caption == captions[i] and q.options == tuple(LETTERS[:5])


def test_questions_are_reproducible_from_a_seed():
    captions, figures, neg = _world()
    a = make_questions(captions, figures, neg, task="fig2cap", rng=7)
    b = make_questions(captions, figures, neg, task="fig2cap", rng=7)
    c = make_questions(captions, figures, neg, task="fig2cap", rng=8)
    assert a == b and a != c


def test_answer_position_is_uniform_over_seeds():
    captions, figures, neg = _world(n=5, k=4)
    reps = 800
    counts = np.zeros(5)
    for s in range(reps):
        counts[make_questions(captions, figures, neg, task="cap2fig", rng=s)[0].answer_index] += 1
    expected = reps / 5
    chi2 = (((counts - expected) ** 2) / expected).sum()
    assert chi2 < 20.5  # 4 dof, p < 0.0005


def test_neg_with_self_or_repeats_is_rejected():
    captions, figures, neg = _world(n=6)
    bad = neg.copy()
    bad[2, 0] = 2
    with pytest.raises(ValueError, match="neg"):
        make_questions(captions, figures, bad, task="fig2cap")
    bad = neg.copy()
    bad[3, 1] = bad[3, 0]
    with pytest.raises(ValueError, match="neg"):
        make_questions(captions, figures, bad, task="fig2cap")


def test_dedupe_and_strip():
    np.testing.assert_array_equal(dedupe_captions(["a", "b", "a", "c", "b"]), [0, 1, 3])
    assert strip_figure_number("Figure 3: BER vs SNR.") == "BER vs SNR."
    assert strip_figure_number("Fig. 12. Loss curves") == "Loss curves"
    assert strip_figure_number("FIG 4 - accuracy") == "accuracy"
    assert strip_figure_number("Figures of merit for 3 codes") == "Figures of merit for 3 codes"


def test_tiered_split_partitions_by_difficulty():
    diff = np.array([0.5, 0.1, 0.9, 0.3, 0.3, 0.7, 0.2])
    t = tiered_split(diff, [3, 1], silver_size=2)
    assert t.gold.tolist() == [3, 1]
    assert t.silver.tolist() == [6, 4]  # hardest of the rest: 0.2, then 0.3
    assert t.bronze.tolist() == [0, 5, 2]
    assert sorted([*t.gold, *t.silver, *t.bronze]) == list(range(7))
    with pytest.raises(ValueError, match="gold_ids"):
        tiered_split(diff, [1, 1])
