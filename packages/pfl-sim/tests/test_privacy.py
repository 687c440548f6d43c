"""CentralGaussian: clipping, noise scale, noise_cohort_size, adaptive clipping, budgets."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from pfl_sim import CentralGaussian, compute_epsilon


def test_clipped_updates_have_norm_at_most_c():
    rng = np.random.default_rng(0)
    deltas = rng.standard_normal((7, 30)) * rng.uniform(0.1, 5, size=(7, 1))
    mech = CentralGaussian(clip_bound=1.3, noise_multiplier=0.0)
    for row in deltas:  # one user: the mean is the clipped update itself
        out = mech.aggregate(row[None, :])
        norm = float(torch.linalg.vector_norm(out.mean))
        assert norm <= 1.3 + 1e-12
        assert norm == pytest.approx(min(1.3, np.linalg.norm(row)), abs=1e-12)
    # the cohort mean is the mean of the clipped rows (reference: numpy)
    norms = np.linalg.norm(deltas, axis=1, keepdims=True)
    expected = (deltas * np.minimum(1.0, 1.3 / norms)).mean(0)
    out = mech.aggregate(deltas)
    np.testing.assert_allclose(out.mean.numpy(), expected, atol=1e-14)
    assert out.clipped_fraction == pytest.approx(np.mean(norms[:, 0] > 1.3))


def test_noise_std_is_sigma_c_noise_scale_within_2_percent():
    m, big = 2, 40  # noise_scale = m / C_noise = 0.05
    mech = CentralGaussian(clip_bound=0.7, noise_multiplier=1.5, noise_cohort_size=big)
    out = mech.aggregate(
        torch.zeros(m, 100_000, dtype=torch.float64), generator=torch.Generator().manual_seed(1)
    )
    summed_noise = out.mean * m
    expected = 1.5 * 0.7 * m / big
    assert float(summed_noise.std()) == pytest.approx(expected, rel=0.02)
    assert out.noise_std == pytest.approx(expected / m)
    assert abs(float(summed_noise.mean())) < 5 * expected / math.sqrt(100_000)


def test_noise_cohort_quantities_and_check():
    mech = CentralGaussian(clip_bound=0.4, noise_multiplier=1.0, noise_cohort_size=1000)
    assert mech.noise_scale(50) == pytest.approx(0.05)
    assert mech.sampling_prob(50, 100_000) == pytest.approx(1000 / 100_000)
    plain = CentralGaussian(clip_bound=0.4, noise_multiplier=1.0)
    assert plain.noise_scale(50) == 1.0 and plain.sampling_prob(50, 1000) == 0.05
    with pytest.raises(ValueError, match="noise_cohort_size"):
        CentralGaussian(clip_bound=1, noise_multiplier=1, noise_cohort_size=10).noise_scale(20)


def test_noisy_mean_is_unbiased_for_the_clipped_mean():
    rng = np.random.default_rng(3)
    deltas = torch.as_tensor(rng.standard_normal((5, 4)))
    mech = CentralGaussian(clip_bound=1.0, noise_multiplier=1.0)
    clean = CentralGaussian(clip_bound=1.0, noise_multiplier=0.0).aggregate(deltas).mean
    gen = torch.Generator().manual_seed(0)
    draws = torch.stack([mech.aggregate(deltas, generator=gen).mean for _ in range(1000)])
    se = 1.0 / 5 / math.sqrt(1000)  # std of the mean estimate
    assert torch.all((draws.mean(0) - clean).abs() < 5 * se)


def test_adaptive_noise_split_follows_andrew_et_al():
    mech = CentralGaussian(
        clip_bound=1.0, noise_multiplier=1.0, adaptive=True, indicator_noise_std=5.0
    )
    z = mech.delta_noise_multiplier(50)
    assert 1 / z**2 + 1 / (2 * 5.0) ** 2 == pytest.approx(1.0)  # 1/sigma^2 is split
    assert CentralGaussian(clip_bound=1.0, noise_multiplier=1.0).delta_noise_multiplier(50) == 1.0
    with pytest.raises(ValueError, match="indicator_noise_std"):
        CentralGaussian(
            clip_bound=1.0, noise_multiplier=3.0, adaptive=True, indicator_noise_std=1.0
        ).delta_noise_multiplier(50)


def test_adaptive_clipping_converges_to_the_median_norm():
    rng = np.random.default_rng(0)
    kw = {"adaptive": True, "indicator_noise_std": 10.0}  # target_quantile 0.5 (the default)
    mech = CentralGaussian(clip_bound=10.0, noise_multiplier=1.0, **kw)
    gen = torch.Generator().manual_seed(0)
    c, fractions = 10.0, []
    signs = torch.tensor([1.0, -1.0], dtype=torch.float64).repeat(50)[:, None]
    for _ in range(300):  # one-coordinate updates whose norms are LogNormal(0, 0.5)
        out = mech.aggregate(
            signs * torch.as_tensor(rng.lognormal(0.0, 0.5, (100, 1))), clip_bound=c, generator=gen
        )
        c, _ = out.next_clip_bound, fractions.append(out.clipped_fraction)
    assert c == pytest.approx(1.0, rel=0.15)  # median of LogNormal(0, 0.5) is 1
    assert np.mean(fractions[-100:]) == pytest.approx(0.5, abs=0.1)


def test_adaptive_step_direction():
    mech = CentralGaussian(clip_bound=1.0, noise_multiplier=0.0, adaptive=True, clip_lr=0.2)
    small = mech.aggregate(np.full((10, 2), 0.01))  # all unclipped: C shrinks by exp(-0.2*0.5)
    assert small.next_clip_bound == pytest.approx(math.exp(-0.1))
    large = mech.aggregate(np.full((10, 2), 10.0))  # all clipped: C grows by exp(0.2*0.5)
    assert large.next_clip_bound == pytest.approx(math.exp(0.1))


def test_from_budget_spends_at_most_epsilon():
    budget = {
        "delta": 1e-5,
        "cohort_size": 20,
        "population": 2000,
        "rounds": 50,
        "accountant": "rdp",
    }
    mech = CentralGaussian.from_budget(4.0, clip_bound=0.5, noise_cohort_size=100, **budget)
    assert isinstance(mech, CentralGaussian) and mech.clip_bound == 0.5
    kw = {"sampling_prob": 100 / 2000, "steps": 50, "delta": 1e-5, "accountant": "rdp"}
    assert compute_epsilon(mech.noise_multiplier, **kw) <= 4.0
    assert compute_epsilon(mech.noise_multiplier / 1.001, **kw) > 4.0
    assert mech.epsilon(**budget) <= 4.0


def test_mechanism_is_frozen_and_keyword_only():
    mech = CentralGaussian(clip_bound=1, noise_multiplier=1)
    with pytest.raises(AttributeError):
        mech.clip_bound = 2.0
    with pytest.raises(TypeError):
        CentralGaussian(1.0, 1.0)


def test_from_budget_accepts_sampling_prob_and_steps():
    common = {"delta": 1e-5, "cohort_size": 20, "clip_bound": 0.5, "accountant": "rdp"}
    a = CentralGaussian.from_budget(4.0, population=2000, rounds=50, **common)
    b = CentralGaussian.from_budget(4.0, sampling_prob=0.01, steps=50, **common)
    assert a.noise_multiplier == b.noise_multiplier
    with pytest.raises(TypeError, match="population"):
        CentralGaussian.from_budget(4.0, rounds=50, **common)
