"""cluster_trajectories and S2LSelector on data with known clusters."""

from __future__ import annotations

import numpy as np
import pytest
import s2l_select as s2l
from sklearn.metrics import adjusted_rand_score


def blobs(n_per=60, k=5, t=8, seed=0):
    rng = np.random.default_rng(seed)
    centers = rng.uniform(0, 5, (k, t)) * 4
    x = np.concatenate([c + 0.05 * rng.standard_normal((n_per, t)) for c in centers])
    return x, np.repeat(np.arange(k), n_per)


def test_recovers_separated_clusters_and_is_seeded():
    x, truth = blobs()
    labels = s2l.cluster_trajectories(x, n_clusters=5, rng=0)
    assert labels.dtype == np.int64 and labels.shape == (300,)
    assert adjusted_rand_score(truth, labels) == 1.0
    np.testing.assert_array_equal(labels, s2l.cluster_trajectories(x, n_clusters=5, rng=0))


def test_matches_sklearn_kmeans_run_directly():
    from sklearn.cluster import KMeans

    x, _ = blobs(k=8, seed=3)
    x = x + np.random.default_rng(0).standard_normal(x.shape)  # overlapping: harder
    seed = int(np.random.default_rng(7).integers(0, 2**31 - 1))
    want = KMeans(8, n_init=1, max_iter=20, tol=0.0, random_state=seed).fit_predict(x)
    np.testing.assert_array_equal(s2l.cluster_trajectories(x, n_clusters=8, rng=7), want)


def test_nan_becomes_zero_and_inf_raises():
    x, _ = blobs(k=3, n_per=20)
    x_nan = x.copy()
    x_nan[::7, 2] = np.nan
    x_zero = np.nan_to_num(x_nan, nan=0.0)
    np.testing.assert_array_equal(
        s2l.cluster_trajectories(x_nan, n_clusters=3, rng=1),
        s2l.cluster_trajectories(x_zero, n_clusters=3, rng=1),
    )
    x_inf = x.copy()
    x_inf[3, 1] = np.inf
    with pytest.raises(ValueError, match="trajectories"):
        s2l.cluster_trajectories(x_inf, n_clusters=3)
    with pytest.raises(ValueError, match="n_clusters"):
        s2l.cluster_trajectories(x[:4], n_clusters=5)


def test_float16_memmap(tmp_path):
    x, truth = blobs(k=4, n_per=25)
    mm = np.lib.format.open_memmap(tmp_path / "r.npy", mode="w+", dtype=np.float16, shape=x.shape)
    mm[:] = x
    mm.flush()
    ro = np.load(tmp_path / "r.npy", mmap_mode="r")
    assert adjusted_rand_score(truth, s2l.cluster_trajectories(ro, n_clusters=4, rng=0)) == 1.0


def test_faiss_backend_agrees():
    pytest.importorskip("faiss")
    x, truth = blobs(k=6)
    labels = s2l.cluster_trajectories(x, n_clusters=6, backend="faiss", rng=0)
    assert labels.dtype == np.int64 and labels.min() >= 0 and labels.max() < 6
    assert adjusted_rand_score(truth, labels) == 1.0
    # more rows than faiss trains on (256 per centroid): the sample path, every row assigned
    x, truth = blobs(n_per=1000, k=3)
    labels = s2l.cluster_trajectories(x, n_clusters=3, backend="faiss", rng=1)
    assert labels.shape == (3000,) and adjusted_rand_score(truth, labels) == 1.0
    np.testing.assert_array_equal(
        labels, s2l.cluster_trajectories(x, n_clusters=3, backend="faiss", rng=1)
    )


def test_selector_end_to_end_with_strata():
    x, truth = blobs(k=5, n_per=40)
    strata = np.where(np.arange(200) % 4 == 0, "gsm8k", "math")
    sel = s2l.S2LSelector(n_clusters=5, rng=0)
    idx = sel.select(x, 60, strata=strata)
    assert idx.shape == (60,) and len(np.unique(idx)) == 60
    # water-filling over strata: gsm8k (50) gets 30, math (150) 30
    assert int(np.sum(strata[idx] == "gsm8k")) == 30
    assert sel.report_.allocation.strata_budget == {"gsm8k": 30, "math": 30}
    # within a stratum, the 5 true clusters are recovered and each gets 6
    for key in ("gsm8k", "math"):
        members = idx[strata[idx] == key]
        assert np.bincount(truth[members], minlength=5).tolist() == [6] * 5
    np.testing.assert_array_equal(
        idx, s2l.S2LSelector(n_clusters=5, rng=0).select(x, 60, strata=strata)
    )


def test_selector_without_strata_balances_true_clusters():
    x, truth = blobs(k=5, n_per=40)
    x = x[:-30]  # cluster sizes 40, 40, 40, 40, 10
    truth = truth[:-30]
    idx = s2l.S2LSelector(n_clusters=5, rng=0).select(x, 50)
    # 10 // 5 = 2 < 10 -> 10; 40 // 4 = 10 each -> every cluster gets 10
    assert np.bincount(truth[idx]).tolist() == [10, 10, 10, 10, 10]
