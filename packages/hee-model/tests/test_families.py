"""Families against brute-force normalisers, autograd and exact samplers."""

import math

import hee_model as hm
import numpy as np
import pytest
import torch

F64 = torch.float64


def _eta(d=4, seed=0, scale=1.0):
    return scale * torch.randn(d, generator=torch.Generator().manual_seed(seed), dtype=F64)


def test_gaussian_log_prob_is_the_normal_density():
    sigma = 0.7
    fam = hm.GaussianFixedVar(sigma)
    eta = _eta()
    x = torch.randn(5, 4, generator=torch.Generator().manual_seed(1), dtype=F64)
    mean = sigma**2 * eta
    ref = torch.distributions.Normal(mean, sigma).log_prob(x).sum(-1)
    torch.testing.assert_close(fam.log_prob(x, eta.expand(5, 4)), ref)
    torch.testing.assert_close(fam.grad_A(eta), mean)
    assert torch.equal(fam.T(x), x)


def test_bernoulli_and_poisson_normalise_by_brute_force():
    eta = _eta(3, seed=2)
    # Bernoulli: sum over the 2^3 states of exp(eta . x + log h) = exp(A)
    states = torch.tensor([[(k >> i) & 1 for i in range(3)] for k in range(8)], dtype=F64)
    lp = hm.Bernoulli().log_prob(states, eta.expand(8, 3))
    torch.testing.assert_close(torch.logsumexp(lp, 0), torch.tensor(0.0, dtype=F64))
    # Poisson: per unit, sum_k exp(eta k) / k! over k < 80
    k = torch.arange(80, dtype=F64)[:, None].expand(80, 3)
    per_unit = eta * k - torch.lgamma(k + 1)
    torch.testing.assert_close(
        torch.logsumexp(per_unit, 0).sum(), hm.Poisson().A(eta), rtol=1e-10, atol=1e-10
    )


@pytest.mark.parametrize("fam", [hm.GaussianFixedVar(1.3), hm.Bernoulli(), hm.Poisson()], ids=repr)
def test_grad_A_is_the_gradient_of_A(fam):
    eta = _eta(5, seed=3).requires_grad_(True)
    (g,) = torch.autograd.grad(fam.A(eta), eta)
    torch.testing.assert_close(fam.grad_A(eta.detach()), g)


@pytest.mark.parametrize("fam", [hm.GaussianFixedVar(0.8), hm.Bernoulli(), hm.Poisson()], ids=repr)
def test_exact_sampler_mean_is_grad_A(fam):
    eta = _eta(4, seed=4, scale=0.7)
    x = fam.sample(eta.expand(40000, 4), generator=torch.Generator().manual_seed(5))
    mean, var = fam.grad_A(eta), x.var(0)
    # 5 standard errors of a mean of 40000 draws
    assert torch.all((x.mean(0) - mean).abs() < 5 * torch.sqrt(var / 40000))


@pytest.mark.parametrize(
    "fam,dt,steps",
    [(hm.GaussianFixedVar(1.0), 0.1, 1000), (hm.Bernoulli(), 0.1, 1000), (hm.Poisson(), 0.1, 1000)],
    ids=["gaussian", "bernoulli", "poisson"],
)
def test_fast_neurons_estimate_grad_A(fam, dt, steps):
    """Brief check 1 (reproduce.py runs it at the brief's tolerances): the running mean of T over
    the fast steps matches A'(eta), here within 5 standard errors of a geometric-autocorrelation
    chain (lag-1 correlation e^-dt for the jump processes, 1 - dt / sigma^2 for Langevin)."""
    g = torch.Generator().manual_seed(6)
    chains = 200
    eta = _eta(6, seed=7, scale=0.8).expand(chains, 6)
    x = torch.zeros_like(eta)
    burn = int(5 / dt)
    for _ in range(burn):
        x = fam.fast_step(x, eta, dt=dt, generator=g)
    acc = torch.zeros_like(eta)
    for _ in range(steps):
        x = fam.fast_step(x, eta, dt=dt, generator=g)
        acc += fam.T(x)
    est = (acc / steps).mean(0)
    exact = fam.grad_A(eta[0])
    rho = 1 - dt / fam.var if isinstance(fam, hm.GaussianFixedVar) else math.exp(-dt)
    var_t = fam.sample(eta[:1].expand(20000, 6), generator=g).var(0)
    se = torch.sqrt(var_t * (1 + rho) / (1 - rho) / (steps * chains))
    assert torch.all((est - exact).abs() < 5 * se), (est - exact) / se


def test_discrete_fast_steps_keep_the_law_exactly():
    """Started from exact draws, one long jump of the fast dynamics leaves the law unchanged
    (mean and variance of Poisson; frequency of Bernoulli)."""
    g = torch.Generator().manual_seed(8)
    eta = torch.full((50000, 1), 0.5, dtype=F64)
    for fam in (hm.Poisson(), hm.Bernoulli()):
        x = fam.sample(eta, generator=g)
        y = fam.fast_step(x, eta, dt=0.7, generator=g)
        m = float(fam.grad_A(eta[:1]))
        se = math.sqrt(float(y.var()) / 50000)
        assert abs(float(y.mean()) - m) < 5 * se
        if isinstance(fam, hm.Poisson):
            assert abs(float(y.var()) - m) < 0.05 * m
        # the chain moved: some units changed
        assert float((x != y).to(F64).mean()) > 0.1


def test_gaussian_fast_step_is_langevin():
    fam = hm.GaussianFixedVar(2.0)
    x, eta = torch.ones(1, 3, dtype=F64), _eta(3)[None]
    g1, g2 = torch.Generator().manual_seed(9), torch.Generator().manual_seed(9)
    y = fam.fast_step(x, eta, dt=0.1, generator=g1)
    xi = torch.randn(1, 3, generator=g2, dtype=F64)
    torch.testing.assert_close(y, x + 0.1 * (eta - x / 4.0) + math.sqrt(0.2) * xi)


def test_support_is_checked():
    with pytest.raises(ValueError, match="x"):
        hm.Bernoulli().log_prob(torch.tensor([[0.5]]), torch.tensor([[0.0]]))
    with pytest.raises(ValueError, match="x"):
        hm.Poisson().T(np.array([[-1.0]]))
    with pytest.raises(TypeError, match="discrete"):
        hm.Poisson().score(torch.ones(1, 1), torch.zeros(1, 1))
