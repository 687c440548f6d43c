"""conformal_clue by brute force; the evaluator formula written out; reward signs; the
exploration loop visits every candidate with the stated state."""

import math

import numpy as np
import pytest
from pecl_detect import (
    build_state,
    conformal_clue,
    evaluator_delta,
    explore_image,
    multi_clue_reward,
)


def test_conformal_brute_force():
    rng = np.random.default_rng(0)
    calib = rng.uniform(size=10)
    for p in rng.uniform(size=50):
        for margin in (0.0, 0.35, -0.1):
            n = 0
            for cj in calib:
                if 1 - cj > 1 - p - margin:
                    n += 1
            assert conformal_clue(p, calib, margin=margin) == pytest.approx(n / 10)
    ps = rng.uniform(size=30)
    vec = conformal_clue(ps, calib)
    assert vec.shape == (30,)
    np.testing.assert_allclose(vec, [conformal_clue(float(p), calib) for p in ps])
    # non-increasing in the nonconformity 1 - p, on the 11-level grid
    order = np.argsort(1 - ps)
    assert np.all(np.diff(vec[order]) <= 0)
    assert np.allclose(vec * 10, np.round(vec * 10))


def _h(v):
    return -sum(x * math.log2(x) for x in v if x > 0)


def test_evaluator_delta_formula():
    rng = np.random.default_rng(1)
    group = rng.dirichlet(np.ones(5), size=7)
    prob = rng.dirichlet(np.ones(5))
    c, p_det = 3, 0.62
    v1 = [sum(g[k] for g in group) / 7 for k in range(5)]
    v2 = [(sum(g[k] for g in group) + prob[k]) / 8 for k in range(5)]
    want = _h(v2) - _h(v1) + (v1[c] - v1[0]) - (v2[c] - v2[0]) - p_det / 10 + 0.01
    assert evaluator_delta(prob, c, group, p_det) == pytest.approx(want, abs=1e-12)


def test_reward_signs():
    k = 16
    group = np.full((10, k), 0.02)
    group[:, 4] = 1 - 0.02 * (k - 1)  # a class-4 group
    peaked = np.full(k, 0.001)
    peaked[4] = 1 - 0.001 * (k - 1)
    bg = np.full(k, 0.001)
    bg[0] = 1 - 0.001 * (k - 1)
    assert multi_clue_reward(peaked, 4, group, 0.9, 1) == 1
    assert multi_clue_reward(peaked, 4, group, 0.9, 0) == -1
    assert multi_clue_reward(bg, 4, group, 0.9, 1) == -1
    assert multi_clue_reward(bg, 4, group, 0.9, 0) == 1
    assert evaluator_delta(peaked, 4, group, 0.9) < 0 < evaluator_delta(bg, 4, group, 0.9)


def test_explore_image_visits_every_candidate():
    rng = np.random.default_rng(2)
    cand = rng.uniform(size=(6, 4))
    annot = rng.uniform(size=(2, 4))
    seen = []

    def policy(state):
        seen.append(state.copy())
        return int(state[0] > 0.5)

    sel = explore_image(cand, annot, policy)
    assert len(seen) == 6  # the last candidate too
    np.testing.assert_array_equal(sel, np.flatnonzero(cand[:, 0] > 0.5))
    for i, s in enumerate(seen):
        acc = np.vstack([annot, cand[sel[sel < i]]])
        np.testing.assert_allclose(s, np.concatenate([cand[i], acc.mean(axis=0)]))
        np.testing.assert_allclose(s, build_state(cand[i], acc))
    # no annotation, nothing selected yet: context 0
    seen.clear()
    explore_image(cand, np.zeros((0, 4)), lambda s: seen.append(s) or 0)
    assert all(np.all(s[4:] == 0) for s in seen)

    class Obj:
        def act(self, state):
            return 1

    np.testing.assert_array_equal(explore_image(cand, annot, Obj()), np.arange(6))
    with pytest.raises(ValueError, match="policy"):
        explore_image(cand, annot, lambda s: 2)
