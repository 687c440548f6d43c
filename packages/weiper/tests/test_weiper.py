"""WeiPer against per-row references and its exact properties (brief, "Exact properties")."""

import numpy as np
import pytest
import weiper
import weiper._core as core
from _reference import kld_reference, softmax_max


def _layer(C=4, D=16, seed=0, dtype=np.float64):
    rng = np.random.default_rng(seed)
    return (rng.normal(size=(C, D)) * rng.uniform(0.5, 2, (C, 1))).astype(dtype), rng.normal(
        size=C
    ).astype(dtype)


def _features(n, D=16, seed=1, shift=0.0, scale=1.0):
    rng = np.random.default_rng(seed)
    return np.maximum(rng.normal(shift, scale, size=(n, D)), 0.0)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_every_perturbed_row_is_at_relative_distance_delta(dtype):
    W, b = _layer(dtype=dtype)
    W_t, b_t = weiper.perturb_class_projections(W, b, r=7, delta=1.8, rng=0)
    assert W_t.shape == (28, 16) and b_t.shape == (28,)
    assert W_t.dtype == dtype and b_t.dtype == dtype
    dist = np.linalg.norm(W_t.reshape(7, 4, 16).astype(float) - W, axis=2)
    np.testing.assert_allclose(dist, 1.8 * np.tile(np.linalg.norm(W, axis=1), (7, 1)), rtol=1e-6)
    np.testing.assert_array_equal(b_t, np.tile(b, 7))


def test_same_seed_same_projections_and_generators_accepted():
    W, b = _layer()
    a = weiper.perturb_class_projections(W, b, r=3, rng=5)[0]
    np.testing.assert_array_equal(a, weiper.perturb_class_projections(W, b, r=3, rng=5)[0])
    g = weiper.perturb_class_projections(W, b, r=3, rng=np.random.default_rng(5))[0]
    np.testing.assert_array_equal(a, g)
    assert not np.array_equal(a, weiper.perturb_class_projections(W, b, r=3, rng=6)[0])


def test_perturbation_directions_are_isotropic():
    # e/||e|| for e ~ N(0, I_D): mean 0, E[u u^T] = I/D; 4000 rows, D = 8
    W = np.zeros((1, 8))
    W[0, 0] = 1.0
    W_t, _ = weiper.perturb_class_projections(W, np.zeros(1), r=4000, delta=1.0, rng=0)
    u = W_t - W
    assert np.abs(u.mean(axis=0)).max() < 5 * np.sqrt(1 / 8 / 4000)
    np.testing.assert_allclose(u.T @ u / 4000, np.eye(8) / 8, atol=0.02)


def test_bias_none_and_integer_weights():
    W, _ = _layer()
    W_t, b_t = weiper.perturb_class_projections(W.round().astype(int), None, r=2, rng=0)
    assert W_t.dtype == np.float64 and np.array_equal(b_t, np.zeros(8))


def test_msp_weiper_is_the_block_mean_of_msp():
    W, b = _layer()
    Z = _features(9)
    W_t, b_t = weiper.perturb_class_projections(W, b, r=5, delta=2.4, rng=3)
    L = Z @ W_t.T + b_t
    expected = [np.mean([softmax_max(l[k * 4 : (k + 1) * 4]) for k in range(5)]) for l in L]
    got = weiper.msp_weiper(Z, W, b, r=5, delta=2.4, rng=3)
    np.testing.assert_allclose(got, expected, rtol=1e-12)
    e = weiper.energy_weiper(Z, W, b, r=5, delta=2.4, rng=3)
    lse = np.log(np.exp(L.reshape(9, 5, 4)).sum(axis=2)).mean(axis=1)
    np.testing.assert_allclose(e, lse, rtol=1e-12)
    np.testing.assert_allclose(weiper.weiper_logits(Z, W_t, b_t), L, rtol=1e-13)


def test_delta_zero_gives_msp_and_energy():
    W, b = _layer()
    Z = _features(20)
    np.testing.assert_allclose(
        weiper.msp_weiper(Z, W, b, r=4, delta=0.0), weiper.msp(Z @ W.T + b), rtol=1e-14
    )
    np.testing.assert_allclose(
        weiper.energy_weiper(Z, W, b, r=4, delta=0.0), weiper.energy(Z @ W.T + b), rtol=1e-14
    )


def test_react_weiper_clips_then_energy():
    W, b = _layer()
    Z = _features(30) * 3
    t = weiper.react_threshold(Z, percentile=90)
    assert t == np.percentile(Z, 90)
    np.testing.assert_allclose(
        weiper.react_weiper(Z, W, b, threshold=t, r=3, rng=0),
        weiper.energy_weiper(np.minimum(Z, t), W, b, r=3, rng=0),
    )


KW = dict(n_bins=12, lambda1=2.5, lambda2=0.7, s1=3, s2=4, eps=(0.01, 0.025))


def test_weiper_kld_equals_the_per_sample_reference():
    W, b = _layer()
    Z_train, Z = _features(60, seed=2), np.r_[_features(10, seed=3), _features(5, seed=4) * 3]
    det = weiper.WeiPerKLD(r=6, delta=1.8, rng=11, **KW).fit(Z_train, W, b)
    W_t, b_t = weiper.perturb_class_projections(W, b, r=6, delta=1.8, rng=11)
    np.testing.assert_array_equal(det.W_tilde_, W_t)
    np.testing.assert_array_equal(det.b_tilde_, b_t)
    ref = kld_reference(Z_train, Z, W_t, b_t, 4, **KW)
    comp = det.components(Z)
    np.testing.assert_allclose(comp.d_z, ref[:, 0], rtol=1e-10)
    np.testing.assert_allclose(comp.d_wz, ref[:, 1], rtol=1e-10)
    np.testing.assert_allclose(comp.msp_w, ref[:, 2], rtol=1e-12)
    np.testing.assert_allclose(det.score(Z), ref[:, 3], rtol=1e-10)
    d_z, d_wz, msp_w = comp  # a plain 3-tuple too
    np.testing.assert_array_equal(det.outlier_score(Z), -det.score(Z))


def test_score_is_invariant_to_batch_order_and_blocking(monkeypatch):
    W, b = _layer()
    Z_train, Z = _features(80, seed=2), _features(33, seed=5)
    det = weiper.WeiPerKLD(r=5, rng=0, **KW).fit(Z_train, W, b)
    s = det.score(Z)
    perm = np.random.default_rng(0).permutation(33)
    np.testing.assert_allclose(det.score(Z[perm]), s[perm], rtol=1e-13)
    monkeypatch.setattr(core, "_LOGIT_BLOCK", 40)  # two rows per block
    small = weiper.WeiPerKLD(r=5, rng=0, **KW).fit(Z_train, W, b)
    np.testing.assert_allclose(small.q_wz_, det.q_wz_, rtol=1e-13)
    np.testing.assert_allclose(small.score(Z), s, rtol=1e-12)


def test_reference_histograms_and_ranges():
    W, b = _layer()
    Z_train = _features(40, seed=2)
    det = weiper.WeiPerKLD(r=3, rng=0, **KW).fit(Z_train, W, b)
    L = Z_train @ det.W_tilde_.T + det.b_tilde_
    assert det.z_range_ == (Z_train.min(), Z_train.max())
    assert det.wz_range_ == pytest.approx((L.min(), L.max()), rel=1e-13)
    np.testing.assert_allclose(det.q_z_.sum(), 1.0)
    np.testing.assert_allclose(det.q_wz_.sum(), 1.0)
    assert (det.n_features_in_, det.n_classes_) == (16, 4)


def test_in_distribution_scores_higher_than_shifted_features():
    W, b = _layer(C=5, D=32)
    Z_train = _features(300, D=32, seed=2)
    Z_id, Z_ood = _features(200, D=32, seed=3), _features(200, D=32, seed=4, shift=0.8)
    det = weiper.WeiPerKLD(r=10, rng=0).fit(Z_train, W, b)
    assert weiper.auroc(det.score(Z_id), det.score(Z_ood)) > 0.9


def test_not_fitted_is_a_clear_error():
    with pytest.raises(RuntimeError, match="fit"):
        weiper.WeiPerKLD().score(np.ones((2, 3)))


def test_metrics_are_papershelf_oods():
    import papershelf_ood

    for name in ("auroc", "aupr_in", "aupr_out", "fpr_at_tpr", "msp", "energy", "max_logit"):
        assert getattr(weiper, name) is getattr(papershelf_ood, name)


def test_sweep_equals_refitting_every_setting():
    W, b = _layer()
    Z_tr = _features(60, seed=2)
    Z_id, Z_ood = _features(20, seed=3), _features(20, seed=4, shift=0.5)
    grid = dict(
        delta=[1.8, 2.4], n_bins=[8], s1=[1, 3], s2=[2], lambda1=[0.5, 2.5], lambda2=[0.0, 1.0]
    )
    res = weiper.sweep(Z_tr, Z_id, Z_ood, W, b, grid=grid, r=4, rng=7)
    assert len(res.results) == 16
    for params, au in res.results:
        det = weiper.WeiPerKLD(r=4, rng=7, **params).fit(Z_tr, W, b)
        assert au == pytest.approx(weiper.auroc(det.score(Z_id), det.score(Z_ood)), abs=1e-12)
    assert res.best_auroc == max(a for _, a in res.results)
    assert dict(res.results[[a for _, a in res.results].index(res.best_auroc)][0]) == res.best
    with pytest.raises(ValueError, match="grid"):
        weiper.sweep(Z_tr, Z_id, Z_ood, W, b, grid={"gamma": [1]}, r=2)
    with pytest.raises(ValueError, match="s1"):
        weiper.sweep(Z_tr, Z_id, Z_ood, W, b, grid={"s1": [0]}, r=2)
