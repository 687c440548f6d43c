"""fuse is the release's formula; candidates outrank non-candidates; the weight search is the
brute-force grid argmax."""

import numpy as np
import pytest
import symbol_llm as sl


def test_fuse_formula_elementwise():
    rng = np.random.default_rng(0)
    s1, R = rng.random((6, 3)), rng.random((6, 3))
    c = rng.random((6, 3)) < 0.5
    w = np.array([0.5, 2.0, -1.0])
    out = sl.fuse(s1, R, c, weight=w)
    for i in range(6):
        for a in range(3):
            want = s1[i, a] + (w[a] * R[i, a] + 100.0 if c[i, a] else 0.0)
            assert out[i, a] == pytest.approx(want, abs=1e-12)
    np.testing.assert_allclose(
        sl.fuse(s1[:, 0], R[:, 0], c[:, 0], weight=3.0, offset=7.0),
        s1[:, 0] + c[:, 0] * (3.0 * R[:, 0] + 7.0),
    )


def test_candidates_rank_above_non_candidates_and_others_keep_order():
    rng = np.random.default_rng(1)
    s1 = 1 / (1 + np.exp(-rng.standard_normal(200) / 10 * 10))
    R = rng.random(200)
    c = np.zeros(200, bool)
    c[np.argsort(-s1)[:30]] = True
    out = sl.fuse(s1, R, c, weight=5.0)
    assert out[c].min() > out[~c].max()
    np.testing.assert_array_equal(np.argsort(out[~c]), np.argsort(s1[~c]))


def test_tune_weights_is_the_grid_argmax():
    rng = np.random.default_rng(2)
    n, k = 120, 4
    Y = rng.random((n, k)) < 0.25
    s1 = Y + rng.normal(0, 0.8, (n, k))
    R = np.clip(Y + rng.normal(0, 0.4, (n, k)), 0, 1)
    c = np.ones((n, k), bool)
    Y[:, 3] = False  # no positive: the first grid value
    grid = [0.0, 0.5, 1.0, 2.0, 4.0]
    w = sl.tune_weights(s1, R, Y, c, grid=grid)
    for a in range(3):
        aps = [sl.ap_11pt(s1[:, a] + c[:, a] * (g * R[:, a] + 100), Y[:, a]) for g in grid]
        assert w[a] == grid[int(np.argmax(aps))]
    assert w[3] == 0.0
    assert sl.mean_ap(sl.fuse(s1, R, c, weight=w), Y) >= sl.mean_ap(s1, Y)
