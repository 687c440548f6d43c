"""CSBM-3H: structure, exact identities and round-trip statistics (brief check 1)."""

import numpy as np
import pytest
import trihom
from scipy import stats


def _gen(**kw):
    args = dict(degree_range=(5, 10), feat_dim=4, h_L=0.5, h_S=1.0, h_F=0.0, rng=0)
    args.update(kw)
    n = args.pop("n", 600)
    return trihom.csbm3h(n, args.pop("num_classes", 4), **args)


def test_structure():
    ei, x, y = _gen(h_S=0.3, h_F=0.4)
    assert ei.dtype == np.int64 and ei.shape[0] == 2
    assert x.shape == (600, 4) and x.dtype == np.float64
    assert y.shape == (600,) and set(np.unique(y)) <= {0, 1, 2, 3}
    assert np.all(ei[0] != ei[1])  # no self-loops
    pairs = set(map(tuple, ei.T.tolist()))
    assert len(pairs) == ei.shape[1]  # no duplicates
    assert all((j, i) in pairs for i, j in pairs)  # both directions


def test_rng_reproducible_and_different():
    a, b, c = _gen(rng=5), _gen(rng=5), _gen(rng=6)
    for u, v in zip(a, b):
        np.testing.assert_array_equal(u, v)
    assert a[0].shape != c[0].shape or not np.array_equal(a[0], c[0])
    gen = np.random.default_rng(5)
    d = _gen(rng=gen)
    np.testing.assert_array_equal(d[0], a[0])


@pytest.mark.parametrize("h_f", [-0.5, 0.3, 0.8])
def test_features_solve_the_model_exactly(h_f):
    """Same seed: edges and X0 do not depend on h_F, so (I - (h_F/rho) A) X(h_F) = X(0)."""
    ei, x, y = _gen(h_F=h_f, h_S=0.6)
    ei0, x0, y0 = _gen(h_F=0.0, h_S=0.6)
    np.testing.assert_array_equal(ei, ei0)
    np.testing.assert_array_equal(y, y0)
    n = len(y)
    rho = trihom.spectral_radius(ei, num_nodes=n)
    ax = np.zeros_like(x)
    np.add.at(ax, ei[0], x[ei[1]])
    np.testing.assert_allclose(x - (h_f / rho) * ax, x0, atol=1e-10)


def test_features_at_h_f_zero_are_class_gaussians():
    """X0[:, f] ~ N(mu_{y,f}, s_{y,f}) with mu, s ~ U(0, 1): class means lie in [0, 1] up to
    noise (sd <= 1/sqrt(n_k) ~ 0.05 here, band 0.25 = 5 sd) and variances in [0, 1]."""
    _, x, y = _gen(n=1600, feat_dim=6)
    for k in range(4):
        mean, var = x[y == k].mean(axis=0), x[y == k].var(axis=0, ddof=1)
        assert np.all(mean > -0.25) and np.all(mean < 1.25)
        assert np.all(var < 1.3) and np.all(var > 0)


def test_extreme_label_homophily_is_exact():
    ei, _, y = _gen(h_L=1.0)
    assert trihom.label_homophily(ei, y) == 1.0
    ei, _, y = _gen(h_L=0.0)
    assert trihom.label_homophily(ei, y) == 0.0


def test_mean_degree():
    """With h_S = 1 (no clipping), E[p_ij] = sqrt(d_i d_j)/N over labels, so the mean degree
    is about (E sqrt d)^2 = 6.96 for d ~ U{5..9}; its sd at N = 3000 is about 0.07 (edge count
    ~ Poisson(10^4)), the tolerance 0.25 is 3.5 sd."""
    ei, _, y = _gen(n=3000)
    expected = np.mean(np.sqrt(np.arange(5, 10))) ** 2
    assert ei.shape[1] / 3000 == pytest.approx(expected, abs=0.25)


@pytest.mark.parametrize("target", [0.1, 0.25, 0.5, 0.75, 0.9])
def test_label_homophily_round_trip(target):
    """N = 1500, C = 4, h_S = 1: measured h_L within +-0.03 of the target (brief check 1; the
    binomial sd over ~5200 edges is <= 0.007, so 0.03 is > 4 sd)."""
    ei, _, y = _gen(n=1500, h_L=target, rng=11)
    assert trihom.label_homophily(ei, y) == pytest.approx(target, abs=0.03)


def test_structural_homophily_increases_with_target():
    measured = []
    for h_s in (0.0, 0.25, 0.5, 0.75, 1.0):
        ei, _, y = _gen(n=1500, degree_range=(40, 60), h_S=h_s, rng=12)
        measured.append(trihom.structural_homophily(ei, y))
    assert all(b > a for a, b in zip(measured, measured[1:])), measured
    # compressed range, as the brief's simulation found (about 0.68 -> 0.88)
    assert 0.55 < measured[0] < 0.8 and 0.8 < measured[-1] < 0.95


def test_feature_homophily_monotone_in_target():
    targets = (-0.6, -0.3, 0.0, 0.3, 0.6, 0.9)
    measured = []
    for h_f in targets:
        ei, x, y = _gen(n=1500, feat_dim=16, h_F=h_f, rng=13)
        measured.append(trihom.feature_homophily(ei, x, y))
    assert stats.spearmanr(targets, measured)[0] == 1.0, measured
    for t, m in zip(targets, measured):
        if t >= 0:
            assert m == pytest.approx(t, abs=0.15)
    assert measured[0] < -0.8  # the documented bias towards -1 for negative targets
