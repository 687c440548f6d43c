"""Inference, learning and generation against exact posteriors, closed-form ML and marginals."""

import math

import hee_model as hm
import numpy as np
import pytest
import torch

F64 = torch.float64


def _one_layer(d0=5, d1=2, scale=0.5, seed=0):
    g = torch.Generator().manual_seed(seed)
    m = hm.HEE([d0, d1], families=[hm.GaussianFixedVar(1.0)], generator=g)
    m.W[0] = scale * torch.randn(d0, d1, generator=g, dtype=F64)
    m.b[0] = 0.2 * torch.randn(d0, generator=g, dtype=F64)
    x0 = torch.randn(1, d0, generator=g, dtype=F64) + 1.0
    return m, x0


def _moments(res, burn, thin):
    s = res.samples[0][burn::thin].reshape(-1, res.samples[0].shape[-1])
    return s.mean(0), torch.cov(s.T), s.shape[0]


@pytest.mark.parametrize(
    "kw",
    [
        dict(interneurons=False),
        dict(interneurons=True, tau_fast=0.01),
        dict(interneurons=False, momentum=0.3),
    ],
    ids=["grad_A", "interneurons", "momentum"],
)
def test_infer_samples_the_exact_posterior(kw):
    m, x0 = _one_layer()
    post = hm.linear_gaussian_posterior(m, x0)
    B = 400
    res = hm.infer(m, x0.expand(B, -1), n_steps=400, dt=0.01,
                   generator=torch.Generator().manual_seed(1), **kw)  # fmt: skip
    assert res.samples[0].shape == (400, B, 2)
    mean, cov, n = _moments(res, 300, 50)  # 800 nearly independent draws
    sd = post.cov.diagonal().sqrt()
    # 4.5 standard errors of the mean, and a derived tolerance on the covariance
    assert torch.all((mean - post.mean[0]).abs() < 4.5 * sd / math.sqrt(n))
    rel = float((cov - post.cov).norm() / post.cov.norm())
    assert rel < 0.15, rel


def test_infer_is_not_fooled_by_a_wrong_posterior():
    """The moment check above fails if the dynamics ignore the likelihood (prior only)."""
    m, x0 = _one_layer()
    post = hm.linear_gaussian_posterior(m, x0)
    prior_only = m.clone()
    prior_only.W[0] = torch.zeros_like(m.W[0])
    res = hm.infer(prior_only, x0.expand(400, -1), n_steps=400, dt=0.01, interneurons=False,
                   generator=torch.Generator().manual_seed(1))  # fmt: skip
    mean, cov, n = _moments(res, 300, 50)
    sd = post.cov.diagonal().sqrt()
    assert not torch.all((mean - post.mean[0]).abs() < 4.5 * sd / math.sqrt(n))


def test_infer_langevin_update_is_the_documented_formula():
    m, x0 = _one_layer()
    z = torch.tensor([[0.3, -0.2]], dtype=F64)
    res = hm.infer(m, x0, n_steps=1, dt=0.04, tau=2.0, interneurons=False, init=[z],
                   generator=torch.Generator().manual_seed(3))  # fmt: skip
    eps = 0.04 / 2.0
    xs = [x0, z.clone().requires_grad_(True)]
    (grad,) = torch.autograd.grad(m.energy(xs).sum(), xs[1])
    xi = torch.randn(1, 2, generator=torch.Generator().manual_seed(3), dtype=F64)
    torch.testing.assert_close(res.samples[0][0], z - eps * grad + math.sqrt(2 * eps) * xi)
    for init in (z, [x0, z]):  # one tensor (L = 1) or a full state: the same start
        again = hm.infer(m, x0, n_steps=1, dt=0.04, tau=2.0, interneurons=False, init=init,
                         generator=torch.Generator().manual_seed(3))  # fmt: skip
        torch.testing.assert_close(again.samples[0], res.samples[0])


def test_momentum_reaches_the_posterior_mean_faster():
    """Brief check 4 in small: a stiff 2-D posterior (condition number 100)."""
    w = torch.tensor([1.0, math.sqrt(199.0)], dtype=F64)  # precision 1 + w^2 = 2 and 200
    m = hm.HEE([2, 2], families=[hm.GaussianFixedVar(1.0)])
    m.W[0] = torch.diag(w)
    x0 = ((1 + w**2) * torch.tensor([3.0, -2.0], dtype=F64) / w)[None]  # posterior mean (3, -2)
    target = hm.linear_gaussian_posterior(m, x0).mean[0]
    torch.testing.assert_close(target, torch.tensor([3.0, -2.0], dtype=F64))

    def steps(momentum):
        r = hm.infer(m, x0.expand(20, -1), n_steps=2500, dt=0.005, interneurons=False,
                     momentum=momentum, generator=torch.Generator().manual_seed(4))  # fmt: skip
        s = r.samples[0].mean(1)
        run = s.cumsum(0) / torch.arange(1, len(s) + 1, dtype=F64)[:, None]
        bad = torch.nonzero((run - target).norm(dim=1) >= 0.1)
        return int(bad[-1]) + 2 if len(bad) else 1

    plain, fast = steps(None), steps(0.1)
    assert fast * 2 <= plain, (fast, plain)


def _ml_fixed_sigma(X, q, s2):
    """Closed-form ML of probabilistic PCA at a fixed noise variance, and its log-likelihood."""
    S = np.cov(X.T, bias=True)
    lam, U = np.linalg.eigh(S)
    lam = np.r_[np.maximum(lam[::-1][:q], s2), np.full(len(lam) - q, s2)]
    C = U[:, ::-1] @ np.diag(lam) @ U[:, ::-1].T
    return X.mean(0), C


def _avg_loglik(X, mean, C):
    d = X - mean
    return float(
        -0.5
        * (
            np.einsum("bi,ij,bj->b", d, np.linalg.inv(C), d).mean()
            + np.linalg.slogdet(C)[1]
            + X.shape[1] * math.log(2 * math.pi)
        )
    )


def test_learning_reaches_the_closed_form_maximum_likelihood():
    """Brief check 3 in small: no negative phase, only the local rule."""
    rng = np.random.default_rng(0)
    d0, d1, n = 6, 2, 1000
    Wt = rng.normal(size=(d0, d1))
    X = rng.normal(size=(n, d1)) @ Wt.T + 1.0 + rng.normal(size=(n, d0))
    mean, C = _ml_fixed_sigma(X, d1, 1.0)
    ml = _avg_loglik(X, mean, C)
    m = hm.HEE([d0, d1], families=[hm.GaussianFixedVar(1.0)],
               generator=torch.Generator().manual_seed(1))  # fmt: skip
    start = float(hm.log_marginal(m, X).mean())
    res = hm.learn(m, X, epochs=4, lr=0.03, batch_size=100, n_steps=30, interneurons=False,
                   generator=torch.Generator().manual_seed(2))  # fmt: skip
    assert res.model is m and res.energy.shape == (4,)
    ll = float(hm.log_marginal(m, X).mean())
    assert (ml - ll) / abs(ml) < 0.01, (ml, ll, start)
    assert (ml - start) / abs(ml) > 0.1  # the starting point was far from it


def test_generate_marginal_matches_the_closed_form_marginal():
    g = torch.Generator().manual_seed(5)
    m = hm.HEE([3, 2, 2], families=[hm.GaussianFixedVar(0.8), hm.GaussianFixedVar(1.0)],
               generator=g, init_scale=1.5)  # fmt: skip
    m.b[0] = torch.tensor([1.0, -1.0, 0.5], dtype=F64)
    mean, cov = hm.linear_gaussian_marginal(m)
    xs = hm.generate(m, 20000, mode="marginal", generator=g)
    assert [tuple(x.shape) for x in xs] == [(20000, 3), (20000, 2), (20000, 2)]
    sd = cov.diagonal().sqrt()
    assert torch.all((xs[0].mean(0) - mean).abs() < 5 * sd / math.sqrt(20000))
    assert float((torch.cov(xs[0].T) - cov).norm() / cov.norm()) < 0.05
    assert xs[2].var(0).sub(1).abs().max() < 0.05  # top prior N(0, I)


def test_generate_joint_converges_to_the_marginal():
    g = torch.Generator().manual_seed(6)
    m = hm.HEE([3, 2], families=[hm.GaussianFixedVar(1.0)], generator=g, init_scale=1.0)
    m.b[0] = torch.tensor([1.5, -1.0, 0.5], dtype=F64)
    mean, cov = hm.linear_gaussian_marginal(m)
    x0 = hm.generate(m, 2000, mode="joint", n_steps=600, dt=0.02, interneurons=False,
                     generator=g)[0]  # fmt: skip
    sd = cov.diagonal().sqrt()
    assert torch.all((x0.mean(0) - mean).abs() < 5 * sd / math.sqrt(2000))
    assert float((torch.cov(x0.T) - cov).norm() / cov.norm()) < 0.12


def test_bernoulli_data_layer_infers_and_generates():
    g = torch.Generator().manual_seed(7)
    m = hm.HEE([6, 2], families=[hm.Bernoulli()], generator=g, init_scale=2.0)
    xs = hm.generate(m, 50, mode="joint", n_steps=20, generator=g)
    assert set(torch.unique(xs[0]).tolist()) <= {0.0, 1.0}
    res = hm.infer(m, xs[0], n_steps=10, generator=g)
    assert torch.isfinite(res.samples[0]).all() and len(res.errors) == 1
    hm.learn(m, xs[0], epochs=1, lr=0.01, batch_size=25, n_steps=6, generator=g)
