"""Parameterisation facts of CMPE against closed formulas, and the samplers' mechanics."""

import math

import cmpe
import numpy as np
import pytest
import torch

from papershelf_harness.testing import assert_close


def test_karras_grid_matches_closed_formula():
    eps, t_max, n, rho = 1e-3, 10.0, 12, 7.0
    i = np.arange(1, n + 1)
    expected = (
        eps ** (1 / rho) + (i - 1) / (n - 1) * (t_max ** (1 / rho) - eps ** (1 / rho))
    ) ** rho
    grid = cmpe.karras_grid(eps, t_max, n, rho=rho)
    np.testing.assert_allclose(grid, expected, rtol=1e-12)
    assert grid[0] == eps and grid[-1] == t_max
    assert np.all(np.diff(grid) > 0)
    # rho = 1 is a uniform grid
    np.testing.assert_allclose(cmpe.karras_grid(1.0, 3.0, 5, rho=1.0), [1.0, 1.5, 2.0, 2.5, 3.0])


def test_discretization_schedule_matches_closed_formula():
    # brief check 1: s0 = 10, s1 = 50, K = 1000 -> K' = 301
    k_prime = math.floor(1000 / (math.log2(50 / 10) + 1))
    assert k_prime == 301
    got = {
        k: cmpe.discretization_steps(k, 1000, s0=10, s1=50)
        for k in (0, 300, 301, 601, 602, 903, 999)
    }
    assert got == {0: 11, 300: 11, 301: 21, 601: 21, 602: 41, 903: 51, 999: 51}
    for k in range(0, 5000, 37):
        kp = math.floor(5000 / (math.log2(1280 / 10) + 1))
        assert (
            cmpe.discretization_steps(k, 5000, s0=10, s1=1280) == min(10 * 2 ** (k // kp), 1280) + 1
        )


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_boundary_condition_is_exact_identity(dtype):
    torch.manual_seed(0)
    m = cmpe.ConsistencyPosterior(3, 4, width=32, sigma2=[0.3, 2.0, 5.0]).to(dtype)
    for p in m.parameters():  # large random weights: F is far from zero
        torch.nn.init.normal_(p, std=3.0)
    theta = torch.randn(16, 3, dtype=dtype) * 4
    x = torch.randn(16, 4, dtype=dtype)
    out = m.consistency(theta, m.eps, x)
    assert out.dtype == dtype
    assert torch.equal(out, theta)
    out_vec = m.consistency(theta, torch.full((16,), m.eps, dtype=dtype), x)
    assert torch.equal(out_vec, theta)
    # away from eps the network contributes
    assert not torch.allclose(m.consistency(theta, 1.0, x), theta)


def test_consistency_matches_cskip_cout_formula():
    torch.manual_seed(1)
    s2 = torch.tensor([0.5, 3.0], dtype=torch.float64)
    m = cmpe.ConsistencyPosterior(2, 1, width=16, sigma2=s2.tolist(), eps=1e-3).double()
    theta, x = torch.randn(5, 2, dtype=torch.float64), torch.randn(5, 1, dtype=torch.float64)
    t = torch.tensor([0.01, 0.1, 1.0, 5.0, 10.0], dtype=torch.float64)
    f_net = m.net(torch.cat([theta, x, t[:, None]], 1))
    c_skip = s2 / ((t[:, None] - 1e-3) ** 2 + s2)
    c_out = s2.sqrt() * (t[:, None] - 1e-3) / torch.sqrt(s2 + t[:, None] ** 2)
    assert_close(m.consistency(theta, t, x), (c_skip * theta + c_out * f_net).detach(), rtol=1e-12)


def test_sigma2_defaults_to_variance_of_fit_theta():
    rng = np.random.default_rng(0)
    theta = rng.normal(size=(64, 2)) * [0.5, 3.0]
    x = rng.normal(size=(64, 1))
    m = cmpe.ConsistencyPosterior(2, 1, width=8, n_blocks=1)
    np.testing.assert_array_equal(m.sigma2.numpy(), [1.0, 1.0])
    hist = m.fit(theta, x, epochs=1, batch_size=32, generator=torch.Generator().manual_seed(0))
    np.testing.assert_allclose(m.sigma2.numpy(), theta.var(axis=0), rtol=1e-6)
    assert hist.n_steps == 2 and len(hist.loss) == 1 and np.isfinite(hist.loss[0])
    fixed = cmpe.ConsistencyPosterior(2, 1, width=8, sigma2=2.0)
    fixed.fit(theta, x, epochs=1, batch_size=64)
    np.testing.assert_array_equal(fixed.sigma2.numpy(), [2.0, 2.0])


def test_loss_huber_forms_differ_and_training_reduces_loss():
    rng = np.random.default_rng(0)
    theta, x = cmpe.gaussian_conjugate(256, rng=rng)
    for huber in ("elementwise", "vector"):
        torch.manual_seed(0)
        m = cmpe.ConsistencyPosterior(2, 2, width=32, huber=huber)
        h = m.fit(
            theta, x, epochs=6, batch_size=64, lr=1e-3, generator=torch.Generator().manual_seed(0)
        )
        assert h.loss[-1] < h.loss[0]


def test_sample_shapes_steps_and_generator_reproducible():
    torch.manual_seed(0)
    m = cmpe.ConsistencyPosterior(3, 2, width=16)
    x = torch.randn(4, 2)
    a = m.sample(x, 7, n_steps=3, generator=torch.Generator().manual_seed(5))
    b = m.sample(x, 7, n_steps=3, generator=torch.Generator().manual_seed(5))
    assert a.shape == (4, 7, 3) and torch.equal(a, b)
    calls = []
    m.net.register_forward_hook(lambda *_: calls.append(1))
    m.sample(x, 2, n_steps=4)
    assert len(calls) == 4  # one network evaluation per step
    f = cmpe.FlowMatchingPosterior(3, 2, width=16)
    assert f.sample(x, 5, n_steps=3).shape == (4, 5, 3)


def test_one_step_sampling_is_f_at_t_max():
    torch.manual_seed(0)
    m = cmpe.ConsistencyPosterior(2, 1, width=16, t_max=10.0)
    x = torch.randn(3, 1)
    g = torch.Generator().manual_seed(3)
    got = m.sample(x, 4, n_steps=1, generator=g)
    z = torch.randn((12, 2), generator=torch.Generator().manual_seed(3))
    want = m.consistency(10.0 * z, 10.0, x.repeat_interleave(4, 0)).reshape(3, 4, 2)
    assert_close(got, want.detach(), rtol=1e-6, atol=1e-6)


def test_flow_matching_learns_conjugate_mean():
    theta, x = cmpe.gaussian_conjugate(1024, rng=0)
    torch.manual_seed(0)
    f = cmpe.FlowMatchingPosterior(2, 2, width=64, dropout=0.0)
    f.fit(theta, x, epochs=8, batch_size=64, lr=2e-3, generator=torch.Generator().manual_seed(0))
    xo = np.array([[1.0, -1.0], [0.0, 0.5]])
    s = f.sample(xo, 400, n_steps=20, generator=torch.Generator().manual_seed(1)).numpy()
    mean, var = cmpe.gaussian_conjugate_posterior(xo)
    # posterior mean 0.8 x; prior-mean predictor errs by 0.8 |x|: demand well under that
    assert np.abs(s.mean(1) - mean).max() < 0.25
