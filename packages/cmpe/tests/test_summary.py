"""DeepSet summary network: permutation invariance, the formula it computes, and end-to-end
training inside ConsistencyPosterior / FlowMatchingPosterior on set-valued data."""

import cmpe
import numpy as np
import pytest
import torch

from papershelf_harness.testing import assert_close, assert_rejects


def _net(pooling="mean", dtype=torch.float64):
    torch.manual_seed(0)
    return cmpe.DeepSet(3, 4, width=16, n_layers=2, pooling=pooling).to(dtype)


@pytest.mark.parametrize("pooling", ["mean", "sum"])
def test_deepset_is_permutation_invariant_and_not_constant(pooling):
    net = _net(pooling)
    x = torch.randn(5, 7, 3, dtype=torch.float64)
    out = net(x)
    assert out.shape == (5, 4)
    for seed in range(3):
        perm = torch.randperm(7, generator=torch.Generator().manual_seed(seed))
        assert_close(net(x[:, perm]), out, rtol=1e-12, atol=1e-12)
    # a different set gives a different summary (invariance is not constancy)
    y = x.clone()
    y[:, 0] += 1.0
    assert (net(y) - out).abs().min() > 1e-6


def test_deepset_matches_elementwise_formula():
    # rho(pool_j phi(x_j)) written out element by element
    for pooling in ("mean", "sum"):
        net = _net(pooling)
        x = torch.randn(2, 5, 3, dtype=torch.float64)
        feats = torch.stack([net.phi(x[:, j]) for j in range(5)], dim=0)
        pooled = feats.mean(0) if pooling == "mean" else feats.sum(0)
        assert_close(net(x), net.rho(pooled), rtol=1e-12, atol=1e-12)


def test_mean_pooling_ignores_multiplicity_sum_pooling_does_not():
    x = torch.randn(4, 6, 3, dtype=torch.float64)
    doubled = torch.cat([x, x], dim=1)
    mean_net, sum_net = _net("mean"), _net("sum")
    assert_close(mean_net(doubled), mean_net(x), rtol=1e-12, atol=1e-12)
    assert not torch.allclose(sum_net(doubled), sum_net(x))


def _iid_gaussian(n, n_obs, rng):
    # theta ~ N(0, 1); x_j ~ N(theta, 1), j = 1..n_obs: posterior N(sum x / (n_obs + 1), 1 / (n_obs + 1))
    theta = rng.standard_normal((n, 1))
    return theta, theta[:, None, :] + rng.standard_normal((n, n_obs, 1))


@pytest.mark.parametrize("cls", [cmpe.ConsistencyPosterior, cmpe.FlowMatchingPosterior])
def test_trains_end_to_end_with_a_set_summary(cls):
    rng = np.random.default_rng(0)
    theta, x = _iid_gaussian(1024, 8, rng)
    torch.manual_seed(0)
    summary = cmpe.DeepSet(1, 2, width=32)
    before = [p.detach().clone() for p in summary.parameters()]
    model = cls(1, 2, width=64, dropout=0.0, summary_net=summary)
    model.fit(theta, x, epochs=6, lr=2e-3, generator=torch.Generator().manual_seed(0))
    # the summary network's weights are trained jointly (they are the model's parameters)
    assert all(not torch.equal(a, b) for a, b in zip(before, summary.parameters(), strict=True))
    theta_o, x_o = _iid_gaussian(40, 8, rng)
    steps = {"n_steps": 10} if cls is cmpe.ConsistencyPosterior else {"n_steps": 20}
    g = torch.Generator().manual_seed(1)
    draws = model.sample(x_o, 200, generator=g, **steps).numpy()
    assert draws.shape == (40, 200, 1)
    exact = x_o.sum(axis=1) / 9.0
    rmse = float(np.sqrt(((draws.mean(1) - exact) ** 2).mean()))
    # a summary that ignored the data would give the prior mean 0, RMSE sd(exact) = sqrt(8/9) = 0.94;
    # the posterior s.d. is 1/3. Demand well under both.
    assert rmse < 0.25, rmse
    # permuting the observations does not change the draws (same generator)
    perm = rng.permutation(8)
    again = model.sample(x_o[:, perm], 200, generator=torch.Generator().manual_seed(1), **steps)
    assert_close(again, draws, rtol=0, atol=1e-4)


def test_summary_output_shape_is_checked():
    bad = cmpe.DeepSet(2, 3)  # 3 outputs, but cond_dim = 4
    m = cmpe.ConsistencyPosterior(2, 4, width=8, summary_net=bad)
    assert_rejects(ValueError, "summary_net", m.sample, np.zeros((2, 5, 2)), 3)
    assert_rejects(TypeError, "summary_net", cmpe.ConsistencyPosterior, 2, 4, summary_net=len)
    assert_rejects(TypeError, "summary_net", cmpe.FlowMatchingPosterior, 2, 4, summary_net="a")


def test_float64_model_with_summary_fits_and_samples_in_float64():
    theta, x = cmpe.gmm_bimodal(64, n_obs=4, rng=0)
    model = cmpe.ConsistencyPosterior(
        2, 3, width=8, summary_net=cmpe.DeepSet(2, 3, width=8)
    ).double()
    model.fit(theta, x, epochs=1, generator=torch.Generator().manual_seed(0))
    draws = model.sample(x[:2], 5, n_steps=2, generator=torch.Generator().manual_seed(1))
    assert draws.dtype == torch.float64 and draws.shape == (2, 5, 2)
    assert model.summary_net(x[:2]).dtype == torch.float64  # arrays follow the module's dtype
