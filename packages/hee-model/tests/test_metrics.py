"""MMD against a brute-force double loop; Gabor fits of a true Gabor and of noise."""

import math

import hee_model as hm
import numpy as np
import pytest
import torch
from hee_model.metrics import _gabor


def test_mmd_matches_a_double_loop():
    rng = np.random.default_rng(0)
    x, y = rng.normal(size=(7, 3)), rng.normal(size=(5, 3)) + 0.5
    bw = 1.3

    def k(a, b):
        return math.exp(-np.sum((a - b) ** 2) / (2 * bw**2))

    sxx = sum(k(x[i], x[j]) for i in range(7) for j in range(7) if i != j) / 42
    syy = sum(k(y[i], y[j]) for i in range(5) for j in range(5) if i != j) / 20
    sxy = sum(k(a, b) for a in x for b in y) / 35
    assert hm.mmd_rbf(x, y, bandwidth=bw) == pytest.approx(sxx + syy - 2 * sxy, rel=1e-10)


def test_mmd_separates_distributions():
    g = torch.Generator().manual_seed(1)
    a, b = torch.randn(300, 2, generator=g), torch.randn(300, 2, generator=g)
    same = hm.mmd_rbf(a, b)
    shifted = hm.mmd_rbf(a, b + 1.0)
    assert abs(same) < 0.01 < shifted


def test_gabor_fit_recovers_a_gabor_and_rejects_noise():
    pytest.importorskip("scipy")
    yy, xx = np.mgrid[0:8, 0:8].astype(float)
    f = _gabor([1.0, 3.6, 4.2, 0.7, 1.6, 2.2, 0.22, 0.4, 0.0], xx, yy)
    assert hm.gabor_fit(f, n_starts=2) > 0.98
    noise = np.random.default_rng(2).normal(size=(8, 8))
    assert hm.gabor_fit(noise, n_starts=2) < 0.6


def test_bundled_data():
    pytest.importorskip("sklearn")
    pytest.importorskip("PIL")
    from hee_model.data import natural_patches, sklearn_digits

    x, y = sklearn_digits()
    assert x.shape == (1797, 64) and y.shape == (1797,)
    assert float(x.min()) == 0.0 and float(x.max()) == 1.0
    p = natural_patches(size=6, n=3000, rng=0)
    assert p.shape == (3000, 36)
    torch.testing.assert_close(p.mean(1), torch.zeros(3000, dtype=p.dtype), atol=1e-6, rtol=0)
    cov = (p.T @ p / 3000).numpy()
    lam = np.linalg.eigvalsh(cov)
    # ZCA whitening: the spectrum is flat except for the floored (mean-removal) direction
    assert np.ptp(lam[1:]) / lam[1:].mean() < 0.05
    raw = natural_patches(size=6, n=3000, rng=0, whiten=False).numpy()
    lam_raw = np.linalg.eigvalsh(raw.T @ raw / 3000)
    assert lam_raw[-1] / lam_raw[1] > 50  # natural images: a steep spectrum before whitening
