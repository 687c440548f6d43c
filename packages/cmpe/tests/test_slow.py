"""A trained CMPE on a conjugate Gaussian against the closed-form posterior (brief check 2)."""

import cmpe
import numpy as np
import pytest
import torch


@pytest.mark.slow
def test_trained_cmpe_matches_conjugate_posterior():
    # The brief's setting (reproduce.py's): theta ~ N(0, I_2), x ~ N(theta, 0.5^2 I), 4096
    # simulations, 30 epochs (1920 steps), the default network. Posterior N(0.8 x, 0.2 I), s.d. 0.447.
    theta, x = cmpe.gaussian_conjugate(4096, rng=0)
    torch.manual_seed(0)
    m = cmpe.ConsistencyPosterior(2, 2)
    m.fit(theta, x, epochs=30, generator=torch.Generator().manual_seed(0))
    theta_o, x_o = cmpe.gaussian_conjugate(200, rng=1)
    s = m.sample(x_o, 199, n_steps=10, generator=torch.Generator().manual_seed(1)).numpy()
    mean, var = cmpe.gaussian_conjugate_posterior(x_o)
    # The brief's tolerance: posterior-mean RMSE < 0.1 prior s.d. The Monte-Carlo error of a
    # 199-draw mean is 0.447 / sqrt(199) = 0.032, so 0.1 leaves room for it and demands a
    # learned mean; ignoring the data (prior mean) gives sqrt(0.8) = 0.89. Without the cosine
    # learning-rate decay (0.1.0) this run gave 0.127.
    rmse = np.sqrt(((s.mean(1) - mean) ** 2).mean())
    assert rmse < 0.1, rmse
    # s.d. ratio: the sampling s.e. of a 199-draw s.d. is ~5%; the brief asks for [0.8, 1.25].
    ratio = s.std(1).mean() / np.sqrt(var)
    assert 0.8 < ratio < 1.25, ratio
    # SBC: ranks of the truth among the draws are uniform (chi-square p > 0.01 per coordinate)
    p = cmpe.sbc_chi2(cmpe.sbc_ranks(theta_o, s), 199, bins=10)
    assert np.all(p > 0.01), p
