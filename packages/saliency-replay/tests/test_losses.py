"""The KLD saliency loss against a per-sample numpy loop and scipy's KL divergence."""

import sys

import numpy as np
import saliency_replay as sr
import torch
from scipy.stats import entropy

G = torch.Generator().manual_seed(0)
P = torch.rand(5, 1, 6, 7, generator=G, dtype=torch.float64) + 0.01
T = torch.rand(5, 1, 6, 7, generator=G, dtype=torch.float64) ** 3


def _naive(p, t):
    eps = sys.float_info.epsilon
    out = []
    for pk, tk in zip(p.numpy(), t.numpy()):
        pk, tk = pk / pk.sum(), tk / tk.sum()
        out.append(np.sum(tk * np.log(eps + tk / (pk + eps))))
    return np.mean(out)


def test_kld_matches_a_per_sample_loop():
    assert abs(float(sr.kld_saliency_loss(P, T)) - _naive(P, T)) < 1e-12


def test_kld_is_the_kl_divergence_of_the_normalised_maps():
    ref = np.mean([entropy(t.ravel(), p.ravel()) for p, t in zip(P.numpy(), T.numpy())])
    assert abs(float(sr.kld_saliency_loss(P, T)) - ref) < 1e-9


def test_kld_zero_at_equality_and_scale_invariant():
    assert abs(float(sr.kld_saliency_loss(T, T))) < 1e-12
    assert abs(float(sr.kld_saliency_loss(3 * P, 0.5 * T)) - _naive(P, T)) < 1e-12
    assert float(sr.kld_saliency_loss(P, T)) > 0


def test_proxy_saliency_is_a_normalised_blur_of_the_strokes():
    x = torch.zeros(2, 1, 9, 9)
    x[0, 0, 4, 4] = 1.0
    s = sr.proxy_saliency(x, sigma=1.0, floor=0.0)
    assert s.shape == (2, 1, 9, 9)
    assert torch.allclose(s.sum((1, 2, 3)), torch.ones(2))
    g = np.exp(-((np.arange(9) - 4.0) ** 2) / 2)
    g[[0, 8]] = 0  # the kernel has radius 3
    ref = np.outer(g, g) / np.outer(g, g).sum()
    assert np.allclose(s[0, 0].numpy(), ref, atol=1e-6)
    assert torch.allclose(s[1], torch.full((1, 9, 9), 1 / 81))  # a blank image: uniform
