"""Metrics against scipy/brute force, and the retraining ground truth on closed forms."""

from __future__ import annotations

import data_attrib as da
import numpy as np
import pytest
import torch
from scipy.stats import pearsonr, spearmanr

RNG = np.random.default_rng(0)
S = RNG.standard_normal((20, 4))


def test_loo_corr_is_the_mean_per_test_pearson():
    change = S + 0.5 * RNG.standard_normal(S.shape)
    ref = np.mean([pearsonr(S[:, j], change[:, j])[0] for j in range(4)])
    assert da.loo_corr(S, change) == pytest.approx(ref, abs=1e-12)
    assert da.loo_corr(torch.from_numpy(S), torch.from_numpy(change)) == pytest.approx(ref)


def test_lds_is_the_mean_per_test_spearman_of_subset_sums():
    subsets = np.stack([np.sort(RNG.choice(20, 10, replace=False)) for _ in range(15)])
    targets = RNG.standard_normal((15, 4))
    ref = np.mean([spearmanr(S[subsets].sum(1)[:, j], targets[:, j])[0] for j in range(4)])
    assert da.lds(S, targets, subsets) == pytest.approx(ref, abs=1e-12)
    # a linear datamodel is recovered exactly: LDS = 1
    assert da.lds(S, S[subsets].sum(1), subsets) == pytest.approx(1.0)


def test_mislabel_auc_counts_pairs():
    scores = np.array([0.1, 0.5, 0.5, 0.9, 0.2, 0.7])
    flipped = np.array([False, True, False, True, False, False])
    pos, neg = scores[flipped], scores[~flipped]
    ref = np.mean([(p > q) + 0.5 * (p == q) for p in pos for q in neg])
    assert da.mislabel_auc(scores, flipped) == pytest.approx(ref)
    assert da.mislabel_auc(scores, flipped.astype(int)) == pytest.approx(ref)


def test_retrain_lds_saves_self_describing_seeded_subsets(tmp_path):
    w = RNG.standard_normal((30, 3))

    def train_fn(idx):  # a linear "model": the target is the sum of w over the subset
        assert idx.dtype == np.int64 and np.all(np.diff(idx) > 0)
        return w[idx].sum(0)

    path = tmp_path / "gt.npz"
    gt = da.retrain_lds(train_fn, 30, n_subsets=12, ratio=0.4, rng=7, path=path)
    targets, subsets = gt
    assert targets.shape == (12, 3) and subsets.shape == (12, 12)
    assert np.allclose(targets, w[subsets].sum(1))
    again = da.retrain_lds(train_fn, list(range(30)), n_subsets=12, ratio=0.4, rng=7)
    assert np.array_equal(again.subsets, subsets)
    loaded = da.LDSGroundTruth.load(path)
    assert np.array_equal(loaded.subsets, subsets) and np.allclose(loaded.targets, targets)
    assert da.lds(w, *loaded) == pytest.approx(1.0)


def test_retrain_loo_is_full_minus_left_out():
    x = RNG.standard_normal(10)

    def train_fn(idx):  # "train" = the mean; "target" = minus the squared error at 2 points
        mu = x[idx].mean()
        return -np.array([(mu - 0.0) ** 2, (mu - 1.0) ** 2])

    gt = da.retrain_loo(train_fn, 10, indices=[0, 3])
    for row, i in zip(gt.changes, [0, 3]):
        keep = np.delete(x, i)
        assert np.allclose(
            row, train_fn(np.arange(10)) + np.array([keep.mean() ** 2, (keep.mean() - 1) ** 2])
        )
    assert list(gt.indices) == [0, 3]
