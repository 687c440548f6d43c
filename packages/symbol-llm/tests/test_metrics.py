"""11-point AP against its definition computed by brute force, hand examples and NaN rules."""

import numpy as np
import pytest
import symbol_llm as sl


def brute_ap(scores, labels):
    """The definition, literally: rank, then for each r the best precision of any prefix whose
    recall reaches r."""
    order = sorted(range(len(scores)), key=lambda i: -scores[i])
    npos = sum(labels)
    if npos == 0:
        return float("nan")
    prefixes = []
    for k in range(1, len(order) + 1):
        tp = sum(labels[i] for i in order[:k])
        prefixes.append((tp / npos, tp / k))
    total = 0.0
    for i in range(11):
        ok = [p for rec, p in prefixes if rec >= i / 10.0]
        total += max(ok) if ok else 0.0
    return total / 11


def test_random_cases_match_brute_force():
    rng = np.random.default_rng(0)
    for _ in range(60):
        n = int(rng.integers(1, 40))
        s = rng.standard_normal(n)  # no ties
        y = (rng.random(n) < rng.uniform(0.05, 0.7)).astype(int)
        want = brute_ap(list(s), list(y))
        got = sl.ap_11pt(s, y)
        if np.isnan(want):
            assert np.isnan(got)
        else:
            assert got == pytest.approx(want, abs=1e-12)


def test_hand_example_and_perfect_ranking():
    # ranks + - + - - +: precision 1, .5, 2/3, .5, .4, .5; recall 1/3 .. 1
    # r in {0,.1,.2,.3}: 1; {.4,.5,.6}: 2/3; {.7,.8,.9,1}: .5  -> (4 + 2 + 2) / 11
    assert sl.ap_11pt([6, 5, 4, 3, 2, 1], [1, 0, 1, 0, 0, 1]) == pytest.approx(8 / 11)
    assert sl.ap_11pt([0.9, 0.8, 0.1, 0.05], [True, True, False, False]) == 1.0
    assert sl.ap_11pt([0.1, 0.2], [1, 0]) == pytest.approx((6 * 0.5 + 5 * 0.5) / 11)


def test_mean_ap_skips_classes_without_positives():
    S = np.array([[0.9, 0.1, 0.3], [0.2, 0.8, 0.4], [0.1, 0.3, 0.5]])
    Y = np.array([[1, 0, 0], [0, 1, 0], [0, 0, 0]])
    assert np.isnan(sl.ap_11pt(S[:, 2], Y[:, 2]))
    assert sl.mean_ap(S, Y) == 1.0
    assert np.isnan(sl.mean_ap(S, Y, ignore_nan=False))
    assert np.isnan(sl.mean_ap(S, np.zeros_like(Y)))


def test_mean_ap_is_mean_of_columns():
    rng = np.random.default_rng(5)
    S, Y = rng.random((50, 7)), rng.random((50, 7)) < 0.3
    want = np.mean([sl.ap_11pt(S[:, c], Y[:, c]) for c in range(7)])
    assert sl.mean_ap(S, Y) == pytest.approx(want, abs=1e-14)


def test_perfect_and_reversed_rankings():
    # 11-point AP and sklearn's step AP agree at the extremes (1 for a perfect ranking)
    y = np.array([1, 1, 0, 0, 0])
    assert sl.ap_11pt(np.arange(5)[::-1], y) == 1.0
    assert sl.ap_11pt(np.arange(5), y) < 0.5
