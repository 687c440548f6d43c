"""The HEE energy against torch.distributions; closed forms against an independent numpy
derivation (joint Gaussian conditioning)."""

import math

import hee_model as hm
import numpy as np
import pytest
import torch

F64 = torch.float64


def _linear(sizes=(6, 3, 2), sigmas=(0.8, 1.2), seed=0, scale=0.6):
    g = torch.Generator().manual_seed(seed)
    m = hm.HEE(list(sizes), families=[hm.GaussianFixedVar(s) for s in sigmas], generator=g)
    for i in range(m.n_layers):
        m.W[i] = scale * torch.randn(sizes[i], sizes[i + 1], generator=g, dtype=F64)
        m.b[i] = 0.3 * torch.randn(sizes[i], generator=g, dtype=F64)
    return m


def test_shapes_and_contract_attributes():
    m = hm.HEE([5, 4, 3], families=[hm.Bernoulli(), hm.GaussianFixedVar(1.0)], nonlinearity="tanh")
    assert [tuple(w.shape) for w in m.W] == [(5, 4), (4, 3)]
    assert [tuple(b.shape) for b in m.b] == [(5,), (4,)]
    assert m.W[0].dtype == torch.float64
    x1 = torch.randn(7, 4, dtype=F64)
    torch.testing.assert_close(m.natural_param(x1, 0), torch.tanh(x1) @ m.W[0].T + m.b[0])


def test_energy_is_minus_log_joint():
    g = torch.Generator().manual_seed(1)
    m = hm.HEE([4, 3, 2], families=[hm.Bernoulli(), hm.GaussianFixedVar(0.5)],
               nonlinearity="relu", top_prior="laplace", generator=g, init_scale=1.0)  # fmt: skip
    x0 = torch.bernoulli(torch.full((6, 4), 0.4, dtype=F64), generator=g)
    x1, x2 = torch.randn(6, 3, dtype=F64, generator=g), torch.randn(6, 2, dtype=F64, generator=g)
    eta0 = torch.relu(x1) @ m.W[0].T + m.b[0]
    eta1 = torch.relu(x2) @ m.W[1].T + m.b[1]
    ref = (
        torch.distributions.Laplace(0.0, 1.0).log_prob(x2).sum(-1)
        + torch.distributions.Normal(0.25 * eta1, 0.5).log_prob(x1).sum(-1)
        + torch.distributions.Bernoulli(logits=eta0).log_prob(x0).sum(-1)
    )
    torch.testing.assert_close(m.energy([x0, x1, x2]), -ref)
    assert m.energy([x0, x1, x2]).shape == (6,)


def _numpy_joint(m):
    """Joint Gaussian of (x0, x1, ..., xL) by brute-force stacking of the linear system."""
    sizes = m.layer_sizes
    L = m.n_layers
    # x_L = z_L; x_{l-1} = s^2 (W x_l + b) + s z_{l-1}; all z independent N(0, I)
    D = sum(sizes)
    offs = np.cumsum([0, *sizes])
    A = np.zeros((D, D))  # x = A z + c
    c = np.zeros(D)
    A[offs[L] : offs[L + 1], offs[L] : offs[L + 1]] = np.eye(sizes[L])
    for layer in reversed(range(L)):
        s2 = m.families[layer].var
        W, b = m.W[layer].numpy(), m.b[layer].numpy()
        rows = slice(offs[layer], offs[layer + 1])
        above = slice(offs[layer + 1], offs[layer + 2])
        A[rows] = s2 * W @ A[above]
        A[rows, rows] += math.sqrt(s2) * np.eye(sizes[layer])
        c[rows] = s2 * (W @ c[above] + b)
    return c, A @ A.T, offs


def test_marginal_and_posterior_match_joint_gaussian_conditioning():
    m = _linear()
    c, S, offs = _numpy_joint(m)
    d0 = m.layer_sizes[0]
    mean, cov = hm.linear_gaussian_marginal(m)
    np.testing.assert_allclose(mean.numpy(), c[:d0], atol=1e-12)
    np.testing.assert_allclose(cov.numpy(), S[:d0, :d0], atol=1e-12)
    x0 = np.random.default_rng(0).normal(size=(3, d0))
    post = hm.linear_gaussian_posterior(m, x0)
    Sxx, Szx, Szz = S[:d0, :d0], S[d0:, :d0], S[d0:, d0:]
    ref_mean = c[d0:] + (x0 - c[:d0]) @ np.linalg.solve(Sxx, Szx.T)
    ref_cov = Szz - Szx @ np.linalg.solve(Sxx, Szx.T)
    np.testing.assert_allclose(post.mean.numpy(), ref_mean, atol=1e-10)
    np.testing.assert_allclose(post.cov.numpy(), ref_cov, atol=1e-10)
    # log p(x0) against a direct multivariate-normal density
    diff = x0 - c[:d0]
    ref_lp = -0.5 * (
        np.einsum("bi,ij,bj->b", diff, np.linalg.inv(Sxx), diff)
        + np.linalg.slogdet(Sxx)[1]
        + d0 * math.log(2 * math.pi)
    )
    np.testing.assert_allclose(hm.log_marginal(m, x0).numpy(), ref_lp, atol=1e-10)


def test_closed_forms_refuse_nonlinear_models():
    m = hm.HEE([3, 2], families=[hm.GaussianFixedVar(1.0)], nonlinearity="tanh")
    with pytest.raises(ValueError, match="model"):
        hm.linear_gaussian_marginal(m)


def test_latent_layers_must_be_continuous():
    with pytest.raises(ValueError, match=r"families\[1\]"):
        hm.HEE([3, 2, 2], families=[hm.GaussianFixedVar(1.0), hm.Bernoulli()])
    with pytest.raises(ValueError, match="families"):
        hm.HEE([3, 2, 2], families=[hm.GaussianFixedVar(1.0)])
