"""Baselines and diagnostics against naive references (brute force, loops, sorted lists)."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
import s2l_select as s2l


def naive_sim(e):
    n = len(e)
    d = [[math.dist(e[i], e[j]) for j in range(n)] for i in range(n)]
    dmax = max(max(r) for r in d)
    return [[dmax - d[i][j] for j in range(n)] for i in range(n)]


def objective(sim, subset):
    return sum(max(sim[i][j] for j in subset) for i in range(len(sim))) if subset else 0.0


def naive_greedy(sim, budget):
    chosen = []
    for _ in range(budget):
        gains = {
            j: objective(sim, chosen + [j]) - objective(sim, chosen)
            for j in range(len(sim))
            if j not in chosen
        }
        top = max(gains.values())
        chosen.append(min(j for j, g in gains.items() if g >= top - 1e-9 * max(1.0, abs(top))))
    return chosen


def test_facility_location_is_the_greedy_of_the_objective():
    rng = np.random.default_rng(0)
    for trial in range(25):
        n = int(rng.integers(2, 9))
        e = rng.standard_normal((n, int(rng.integers(1, 4))))
        budget = int(rng.integers(1, n + 1))
        got = s2l.facility_location_select(e, budget)
        sim = naive_sim(e.tolist())
        assert got.tolist() == naive_greedy(sim, budget), trial
        # and the greedy guarantee against the brute-force optimum: F >= (1 - 1/e) F*
        best = max(objective(sim, list(c)) for c in itertools.combinations(range(n), budget))
        assert objective(sim, got.tolist()) >= (1 - 1 / math.e) * best - 1e-9


def test_facility_location_first_pick_is_the_medoid():
    rng = np.random.default_rng(1)
    e = rng.standard_normal((30, 2))
    d = np.sqrt(((e[:, None] - e[None]) ** 2).sum(-1))
    assert s2l.facility_location_select(e, 1)[0] == int(np.argmin(d.sum(0)))


def naive_cos(a, b):
    return float(np.dot(a, b) / (np.linalg.norm(a) * np.linalg.norm(b)))


@pytest.mark.parametrize("seed", range(5))
def test_gradient_similarity_matches_loops(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 40))
    g = rng.standard_normal((n, 5)) + rng.standard_normal(5)
    labels = rng.integers(0, 4, n)
    labels[:2] = 0  # at least one same-label pair
    intra, overall = [], []
    for i in range(n):
        for j in range(i + 1, n):
            c = naive_cos(g[i], g[j])
            overall.append(c)
            if labels[i] == labels[j]:
                intra.append(c)
    got = s2l.gradient_similarity(g, labels)
    assert isinstance(got, s2l.GradientSimilarity)
    assert got.intra == pytest.approx(np.mean(intra), abs=1e-12)
    assert got.overall == pytest.approx(np.mean(overall), abs=1e-12)
    intra_got, overall_got = got  # unpacks as (intra, overall)
    assert intra_got == got.intra and overall_got == got.overall


def test_gradient_similarity_rejects_undefined_cases():
    with pytest.raises(ValueError, match="G"):
        s2l.gradient_similarity(np.array([[1.0, 0.0], [0.0, 0.0]]), [0, 0])
    with pytest.raises(ValueError, match="labels"):
        s2l.gradient_similarity(np.eye(3), [0, 1, 2])


def rank_reference(scores, budget, kind):
    order = sorted(range(len(scores)), key=lambda i: (scores[i], i))
    if kind == "low":
        return order[:budget]
    if kind == "high":
        return sorted(range(len(scores)), key=lambda i: (-scores[i], i))[:budget]
    start = (len(scores) - budget) // 2
    return order[start : start + budget]


@pytest.mark.parametrize("kind", ["high", "low", "middle"])
def test_loss_select_ranks(kind):
    rng = np.random.default_rng(3)
    for _ in range(50):
        n = int(rng.integers(1, 30))
        losses = rng.integers(0, 6, n).astype(float)  # many ties
        budget = int(rng.integers(0, n + 1))
        got = s2l.loss_select(losses, budget, kind=kind)
        assert got.tolist() == rank_reference(losses.tolist(), budget, kind)


def test_loss_select_middle_window():
    losses = np.arange(10.0)[::-1]  # index i has rank 9 - i
    # n = 10, budget 4: ranks 3..6 -> indices 6, 5, 4, 3
    assert s2l.loss_select(losses, 4, kind="middle").tolist() == [6, 5, 4, 3]
    assert s2l.loss_select(losses, 3, kind="middle").tolist() == [6, 5, 4]  # (10 - 3) // 2 = 3


def test_el2n_scores_and_select():
    probs = np.array([[0.9, 0.1], [0.5, 0.5], [0.2, 0.8], [0.6, 0.4]])
    labels = np.array([0, 0, 0, 1])
    want = [math.hypot(p[0] - (y == 0), p[1] - (y == 1)) for p, y in zip(probs, labels)]
    np.testing.assert_allclose(s2l.el2n_scores(probs, labels), want)
    assert s2l.el2n_select(probs, labels, 2).tolist() == rank_reference(want, 2, "high")
    assert s2l.el2n_select(probs, labels, 1, kind="low").tolist() == [0]
    # [R, n, C] is averaged over R
    stacked = np.stack([probs, probs[:, ::-1]])
    both = [
        np.mean([w, math.hypot(p[1] - (y == 0), p[0] - (y == 1))])
        for w, p, y in zip(want, probs, labels)
    ]
    np.testing.assert_allclose(s2l.el2n_scores(stacked, labels), both)


def test_datamap_select_measures():
    traj = np.array([[0.1, 0.1, 0.1], [2.0, 0.1, 2.0], [3.0, 3.0, 3.0], [0.5, 1.0, 1.5]])
    p = np.exp(-traj)
    conf, var = p.mean(1), p.std(1)
    assert s2l.datamap_select(traj, 2).tolist() == rank_reference(var.tolist(), 2, "high")
    assert s2l.datamap_select(traj, 1, measure="confidence", kind="low").tolist() == [2]
    assert s2l.datamap_select(traj, 1, measure="confidence").tolist() == [int(np.argmax(conf))]


def test_random_select():
    idx = s2l.random_select(50, 20, rng=0)
    assert len(np.unique(idx)) == 20 and idx.min() >= 0 and idx.max() < 50
    np.testing.assert_array_equal(idx, s2l.random_select(50, 20, rng=0))
