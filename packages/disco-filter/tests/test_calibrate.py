"""fit_threshold against a brute-force search over every candidate threshold."""

from __future__ import annotations

import math

import numpy as np
import pytest
from disco_filter import Threshold, fit_threshold
from hypothesis import given, settings
from hypothesis import strategies as st


def py_objective(scores, labels, t, objective):
    tp = sum(1 for s, y in zip(scores, labels) if s >= t and y)
    fp = sum(1 for s, y in zip(scores, labels) if s >= t and not y)
    fn = sum(1 for s, y in zip(scores, labels) if s < t and y)
    tn = sum(1 for s, y in zip(scores, labels) if s < t and not y)
    if objective == "f1":
        return 2 * tp / (2 * tp + fp + fn)
    if objective == "accuracy":
        return (tp + tn) / len(scores)
    return (tp / (tp + fn) + tn / (tn + fp)) / 2


def brute_force(scores, labels, objective):
    """Try every distinct score (and +inf) in increasing order; first best = smallest."""
    cands = sorted(set(scores)) + ([math.inf] if objective != "f1" else [])
    best_t, best_v = None, -1.0
    for t in cands:
        v = py_objective(scores, labels, t, objective)
        if v > best_v + 1e-12:
            best_t, best_v = t, v
    return best_t, best_v


@pytest.mark.parametrize("objective", ["f1", "accuracy", "balanced_accuracy"])
@settings(max_examples=60, deadline=None)
@given(
    data=st.data(),
    n=st.integers(2, 40),
    grid=st.sampled_from([3, 10, 1000]),  # coarse grids give many tied scores
)
def test_matches_brute_force(objective, data, n, grid):
    scores = data.draw(st.lists(st.integers(0, grid), min_size=n, max_size=n))
    labels = data.draw(st.lists(st.booleans(), min_size=n, max_size=n))
    if all(labels) or not any(labels):
        labels[0] = not labels[0]
    scores = [s / grid for s in scores]
    t_ref, v_ref = brute_force(scores, labels, objective)
    got = fit_threshold(np.array(scores), np.array(labels), objective=objective)
    assert isinstance(got, Threshold) and isinstance(got, float)
    assert got == t_ref and got.threshold == t_ref
    assert got.value == pytest.approx(v_ref, abs=1e-12)
    assert got.objective == objective


def test_simple_cases_and_label_forms():
    assert fit_threshold([0.1, 0.4, 0.35, 0.8], [0, 0, 1, 1]) == 0.35
    assert fit_threshold([0.1, 0.4, 0.35, 0.8], [0, 0, 1, 1]).value == pytest.approx(0.8)
    assert fit_threshold([0.2, 0.9], [False, True]) == 0.9
    assert fit_threshold([0.2, 0.9], np.array([0.0, 1.0])) == 0.9
    # all positives score below all negatives: predicting nothing is the most accurate
    assert fit_threshold([0.1, 0.9, 0.8], [1, 0, 0], objective="accuracy") == math.inf


def test_two_gaussians_recover_bayes_threshold():
    # equal priors and variances: the Bayes (max-accuracy) threshold is the midpoint
    rng = np.random.default_rng(0)
    n = 200_000
    neg = rng.normal(0.3, 0.1, n)
    pos = rng.normal(0.7, 0.1, n)
    s = np.r_[neg, pos]
    y = np.r_[np.zeros(n), np.ones(n)]
    assert abs(fit_threshold(s, y, objective="accuracy") - 0.5) < 0.02
    assert abs(fit_threshold(s, y, objective="balanced_accuracy") - 0.5) < 0.02


def test_rejects_one_class_and_bad_labels():
    with pytest.raises(ValueError, match="labels"):
        fit_threshold([0.1, 0.2], [1, 1])
    with pytest.raises(ValueError, match="labels"):
        fit_threshold([0.1, 0.2], [0, 2])
    with pytest.raises(ValueError, match="labels"):
        fit_threshold([0.1, 0.2], [0.5, 1.0])
    with pytest.raises(ValueError, match="labels"):
        fit_threshold([0.1, 0.2, 0.3], [0, 1])
    with pytest.raises(ValueError, match="objective"):
        fit_threshold([0.1, 0.2], [0, 1], objective="auc")


def test_threshold_is_immutable_and_picklable():
    import pickle

    t = fit_threshold([0.1, 0.9], [0, 1])
    with pytest.raises(AttributeError):
        t.value = 3
    u = pickle.loads(pickle.dumps(t))
    assert u == t and u.value == t.value and u.objective == "f1"


@settings(max_examples=40, deadline=None)
@given(data=st.data(), n=st.integers(2, 30))
def test_auroc_matches_pairwise_count(data, n):
    from disco_filter import auroc

    scores = data.draw(st.lists(st.integers(0, 4), min_size=n, max_size=n))
    labels = data.draw(st.lists(st.booleans(), min_size=n, max_size=n))
    if all(labels) or not any(labels):
        labels[0] = not labels[0]
    pos = [s for s, y in zip(scores, labels) if y]
    neg = [s for s, y in zip(scores, labels) if not y]
    ref = sum((p > q) + 0.5 * (p == q) for p in pos for q in neg) / (len(pos) * len(neg))
    assert auroc(scores, labels) == pytest.approx(ref, abs=1e-12)
