"""Metrics against brute-force references written from their definitions (no shared code)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import papershelf_ood as po

FEW = settings(max_examples=40, deadline=None)


def pairwise_auroc(s_id, s_ood):
    """P(ID score > OOD score) + 0.5 P(equal), over all pairs."""
    d = np.asarray(s_id)[:, None] - np.asarray(s_ood)[None, :]
    return float(((d > 0) + 0.5 * (d == 0)).mean())


def loop_average_precision(pos, neg):
    """sum over distinct thresholds t (descending) of (R(t) - R(prev)) * P(t)."""
    scores = np.concatenate([pos, neg])
    total, prev_recall = 0.0, 0.0
    for t in sorted(set(scores.tolist()), reverse=True):
        tp = sum(1 for s in pos if s >= t)
        fp = sum(1 for s in neg if s >= t)
        recall = tp / len(pos)
        total += (recall - prev_recall) * tp / (tp + fp)
        prev_recall = recall
    return total


def loop_fpr(pos, neg, level):
    """Smallest false positive rate over thresholds whose true positive rate is >= level."""
    best = 1.0
    for t in [np.inf, *sorted(set(np.concatenate([pos, neg]).tolist()))]:
        tpr = sum(1 for s in pos if s >= t) / len(pos)
        fpr = sum(1 for s in neg if s >= t) / len(neg)
        if tpr >= level:
            best = min(best, fpr)
    return best


def score_pairs():
    """Small integer-valued scores (many ties) or continuous ones."""
    ints = st.lists(st.integers(-4, 4), min_size=1, max_size=25)
    floats = st.lists(st.floats(-5, 5, allow_nan=False, width=32), min_size=1, max_size=25)
    return st.one_of(st.tuples(ints, ints), st.tuples(floats, floats))


@FEW
@given(score_pairs())
def test_auroc_is_the_pairwise_probability(pair):
    s_id, s_ood = (np.array(v, dtype=float) for v in pair)
    assert po.auroc(s_id, s_ood) == pytest.approx(pairwise_auroc(s_id, s_ood), abs=1e-12)


@FEW
@given(score_pairs())
def test_aupr_in_and_out_match_the_threshold_loop(pair):
    s_id, s_ood = (np.array(v, dtype=float) for v in pair)
    assert po.aupr_in(s_id, s_ood) == pytest.approx(loop_average_precision(s_id, s_ood), abs=1e-12)
    expected_out = loop_average_precision(-s_ood, -s_id)
    assert po.aupr_out(s_id, s_ood) == pytest.approx(expected_out, abs=1e-12)


@FEW
@given(score_pairs(), st.sampled_from([0.0, 0.1, 0.5, 0.8, 0.95, 1.0]))
def test_fpr_at_tpr_matches_the_threshold_loop(pair, level):
    s_id, s_ood = (np.array(v, dtype=float) for v in pair)
    got_ood = po.fpr_at_tpr(s_id, s_ood, tpr=level, positive="ood")
    got_id = po.fpr_at_tpr(s_id, s_ood, tpr=level, positive="id")
    assert got_ood == loop_fpr(-s_ood, -s_id, level)
    assert got_id == loop_fpr(s_id, s_ood, level)


def test_fpr_conventions_on_a_hand_worked_case():
    s_id = np.array([0.9, 0.8, 0.7, 0.2])
    s_ood = np.array([0.75, 0.1, 0.05, 0.0])
    # "ood": catching >= 95% of OOD needs threshold -score >= -0.75, which flags ID 0.7, 0.2
    assert po.fpr_at_tpr(s_id, s_ood, positive="ood") == 0.5
    # "id": keeping >= 95% of ID needs score >= 0.2, which keeps OOD 0.75 only
    assert po.fpr_at_tpr(s_id, s_ood, positive="id") == 0.25
    assert po.fpr_at_tpr(s_id, s_ood, tpr=0.5, positive="id") == 0.0
    assert po.auroc(s_id, s_ood) == 14 / 16


def test_perfect_and_reversed_separation():
    s_id, s_ood = np.arange(10.0, 20.0), np.arange(0.0, 10.0)
    assert po.auroc(s_id, s_ood) == 1.0
    assert po.aupr_in(s_id, s_ood) == po.aupr_out(s_id, s_ood) == 1.0
    assert po.fpr_at_tpr(s_id, s_ood) == po.fpr_at_tpr(s_id, s_ood, positive="id") == 0.0
    assert po.auroc(s_ood, s_id) == 0.0
    assert po.fpr_at_tpr(s_ood, s_id, tpr=1.0) == 1.0


def test_constant_scores_are_chance():
    s = np.zeros(7)
    assert po.auroc(s, np.zeros(3)) == 0.5
    assert po.aupr_in(s, np.zeros(3)) == pytest.approx(0.7)
    assert po.aupr_out(s, np.zeros(3)) == pytest.approx(0.3)


def test_ood_metrics_bundles_the_four_numbers():
    rng = np.random.default_rng(0)
    s_id, s_ood = rng.normal(1, 1, 50), rng.normal(0, 1, 40)
    m = po.ood_metrics(s_id, s_ood, tpr=0.9)
    assert m.auroc == po.auroc(s_id, s_ood)
    assert m.aupr_in == po.aupr_in(s_id, s_ood)
    assert m.aupr_out == po.aupr_out(s_id, s_ood)
    assert m.fpr_at_tpr == po.fpr_at_tpr(s_id, s_ood, tpr=0.9)
    assert m.as_dict()["tpr"] == 0.9 and m.positive == "ood"
    with pytest.raises(AttributeError):
        m.auroc = 0.0  # frozen


def test_lists_and_integer_arrays_are_accepted():
    assert po.auroc([3, 2], [1]) == 1.0
    assert po.fpr_at_tpr(np.array([3, 2]), np.array([1, 5]), tpr=0.5) == 0.0
