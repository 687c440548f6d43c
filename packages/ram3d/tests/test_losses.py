"""HiFA loss and its schedule against hand-computed values."""

import math

import numpy as np
import pytest
import ram3d
import torch


def test_hifa_loss_value_and_stop_gradient():
    g = torch.Generator().manual_seed(0)
    z = torch.randn(1, 4, 3, 3, generator=g, requires_grad=True)
    z0 = torch.randn(1, 4, 3, 3, generator=g, requires_grad=True)
    rgb = torch.rand(1, 3, 6, 6, generator=g, requires_grad=True)
    rgb_hat = torch.rand(1, 3, 6, 6, generator=g, requires_grad=True)
    loss = ram3d.hifa_loss(z, z0, rgb, rgb_hat, lambda_rgb=0.3, weight=2.0)
    want = 2.0 * (((z - z0) ** 2).mean() + 0.3 * ((rgb - rgb_hat) ** 2).mean())
    assert loss.item() == pytest.approx(want.item(), rel=1e-6)
    loss.backward()
    assert z0.grad is None and rgb_hat.grad is None  # targets are detached
    np.testing.assert_allclose(
        z.grad.numpy(), (2.0 * 2 * (z - z0) / z.numel()).detach().numpy(), rtol=1e-5, atol=1e-8
    )


def test_identity_latent_and_no_rgb_term_is_masked_mse():
    # TargetOracle: z is the composite itself; outside the mask composite == target
    g = torch.Generator().manual_seed(1)
    target = torch.rand(8, 8, 3, generator=g)
    mask = torch.zeros(8, 8, dtype=torch.bool)
    mask[2:5, 3:7] = True
    render = torch.rand(8, 8, 3, generator=g)
    comp = ram3d.composite(render, target, mask)
    oracle = ram3d.TargetOracle(target[None])
    x = comp.permute(2, 0, 1)[None]
    z, z0, rgb_hat = oracle.x0_estimate(x, mask[None, None].float(), "bg", 0.5, view=0)
    loss = ram3d.hifa_loss(z, z0, x, rgb_hat, lambda_rgb=0.0)
    masked_sse = ((render - target)[mask] ** 2).sum()
    assert loss.item() == pytest.approx((masked_sse / target.numel()).item(), rel=1e-6)


def test_halo_l2():
    r = torch.zeros(4, 4, 3)
    img = torch.ones(4, 4, 3)
    h = torch.zeros(4, 4, dtype=torch.bool)
    h[0, :2] = True
    img[0, 0] = 0.5
    assert ram3d.halo_l2(r, img, h).item() == pytest.approx((0.25 + 1.0) / 2)
    assert ram3d.halo_l2(r, img, torch.zeros(4, 4, dtype=torch.bool)).item() == 0.0


@pytest.mark.parametrize("kind", ["sqrt", "linear"])
def test_anneal_schedule(kind):
    total = 100
    ts = [ram3d.anneal_t(k, total, t_min=0.02, t_max=0.98, kind=kind) for k in range(total + 1)]
    assert ts[0] == 0.98 and ts[-1] == 0.02
    assert all(a >= b for a, b in zip(ts, ts[1:]))
    f = math.sqrt if kind == "sqrt" else (lambda x: x)
    for k in (1, 13, 50, 77):
        assert ts[k] == pytest.approx(0.98 - 0.96 * f(k / total), abs=1e-15)
    mid = 0.98 - 0.96 * (math.sqrt(0.5) if kind == "sqrt" else 0.5)
    assert ts[50] == pytest.approx(mid, abs=1e-15)
