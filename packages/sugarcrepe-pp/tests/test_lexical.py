"""Jaccard (hand-computed) and the lexical structure of the data set (exact ordering)."""

import pytest
from sugarcrepe_pp import CATEGORIES, dataset_stats, jaccard, load_triplets


def test_jaccard_hand_computed():
    # {a, cat, on, mat} vs {the, cat, on, mat.}: shared {cat, on} of 6 distinct tokens
    assert jaccard("A cat on a mat", "the cat ON the mat.") == pytest.approx(2 / 6)
    assert jaccard("x y", "Y X") == 1.0
    assert jaccard("x", "y") == 0.0
    assert jaccard("a a a b", "a") == 0.5  # sets, not counts


def test_jaccard_rejects_empty_and_non_strings():
    with pytest.raises(ValueError, match="a must be a non-empty string"):
        jaccard("  ", "x")
    with pytest.raises(TypeError, match="b must be a string"):
        jaccard("x", ["x"])


def test_dataset_stats_ordering_and_values():
    stats = dataset_stats()
    assert list(stats) == list(CATEGORIES)
    brief = {  # the brief's two-decimal values, whitespace tokens
        "p1_neg": [0.81, 0.85, 0.70, 0.74, 0.65],
        "p1_p2": [0.48, 0.53, 0.46, 0.48, 0.46],
        "p2_neg": [0.46, 0.48, 0.35, 0.39, 0.37],
    }
    for i, c in enumerate(CATEGORIES):
        s = stats[c]
        assert s["p1_neg"] > s["p1_p2"] > s["p2_neg"], c
        for k, vals in brief.items():
            assert round(s[k], 2) == vals[i], (c, k, s[k])
    # independent recomputation for one category
    ts = load_triplets("swap_obj")
    ref = sum(
        len(set(t.p1.lower().split()) & set(t.neg.lower().split()))
        / len(set(t.p1.lower().split()) | set(t.neg.lower().split()))
        for t in ts
    ) / len(ts)
    assert stats["swap_obj"]["p1_neg"] == pytest.approx(ref, rel=1e-12)
    assert stats["swap_obj"]["n"] == 245
