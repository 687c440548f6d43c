"""Closed-form derivatives of TwoLayerPowerNet against nested autograd and finite differences."""

import itertools
import math

import numpy as np
import pinn_split as ps
import pytest
import torch


def _alphas(d, max_order):
    return [a for a in itertools.product(range(max_order + 1), repeat=d) if sum(a) <= max_order]


def _gen(seed=0):
    return torch.Generator().manual_seed(seed)


def test_forward_matches_the_naive_sum():
    net = ps.TwoLayerPowerNet(2, 7, 3, generator=_gen())
    x = torch.rand(5, 2, dtype=torch.float64, generator=_gen(1))
    w, b, a = net.weight.detach(), net.bias.detach(), net.a
    naive = [
        sum(a[r] * max(float(w[r] @ x[i] + b[r]), 0.0) ** 3 for r in range(7)) / math.sqrt(7)
        for i in range(5)
    ]
    np.testing.assert_allclose(net(x).detach().numpy(), naive, rtol=1e-12)


@pytest.mark.parametrize("d", [1, 2])
@pytest.mark.parametrize("p", [2, 3, 4, 5, 6, 7])
def test_closed_form_matches_nested_autograd(d, p):
    net = ps.TwoLayerPowerNet(d, 6, p, generator=_gen(p))
    x = torch.rand(4, d, dtype=torch.float64, generator=_gen(10 + p)) * 2 - 1
    for alpha in _alphas(d, p - 1):
        closed = net.derivative(x, alpha)
        ref = ps.autograd_derivative(net, x, alpha)
        scale = max(1.0, float(ref.detach().abs().max()))
        assert float((closed - ref).detach().abs().max()) <= 1e-10 * scale, alpha


def test_first_and_second_derivative_match_finite_differences():
    net = ps.TwoLayerPowerNet(1, 9, 4, generator=_gen(3))
    x = torch.linspace(-0.9, 0.9, 7, dtype=torch.float64)[:, None]
    h = 1e-4
    up, um, u0 = net(x + h), net(x - h), net(x)
    fd1 = (up - um) / (2 * h)
    fd2 = (up - 2 * u0 + um) / h**2
    np.testing.assert_allclose(net.derivative(x, (1,)).detach(), fd1.detach(), rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(net.derivative(x, (2,)).detach(), fd2.detach(), rtol=1e-4, atol=1e-5)


class _Deriv(torch.nn.Module):
    def __init__(self, net, alpha):
        super().__init__()
        self.net, self.alpha = net, alpha

    def forward(self, x):
        return self.net.derivative(x, self.alpha)


def test_derivative_is_differentiable_in_the_parameters():
    net = ps.TwoLayerPowerNet(2, 3, 4, generator=_gen(4))
    x = torch.rand(3, 2, dtype=torch.float64, generator=_gen(5))
    mod = _Deriv(net, (1, 2))

    def fn(w, b):
        return torch.func.functional_call(mod, {"net.weight": w, "net.bias": b}, (x,), strict=False)

    w = net.weight.detach().clone().requires_grad_(True)
    b = net.bias.detach().clone().requires_grad_(True)
    by_hand = 24 * torch.relu(x @ w.T + b) @ (net.a * w[:, 0] * w[:, 1] ** 2) / math.sqrt(3)
    np.testing.assert_allclose(fn(w, b).detach(), by_hand.detach(), rtol=1e-12)
    (gw, gb) = torch.autograd.grad(fn(w, b).sum(), (w, b))
    w, b = w.detach(), b.detach()
    h = 1e-6
    for idx in [(0, 0), (1, 1), (2, 0)]:  # the parameter gradient against central differences
        e = torch.zeros_like(w)
        e[idx] = h
        fd = (fn(w + e, b).sum() - fn(w - e, b).sum()) / (2 * h)
        assert abs(float(fd) - float(gw[idx])) <= 1e-6 * max(1.0, abs(float(gw[idx])))
    e = torch.zeros_like(b)
    e[1] = h
    fd = (fn(w, b + e).sum() - fn(w, b - e).sum()) / (2 * h)
    assert abs(float(fd) - float(gb[1])) <= 1e-6 * max(1.0, abs(float(gb[1])))


def test_order_p_derivative_is_refused():
    net = ps.TwoLayerPowerNet(1, 4, 3, generator=_gen())
    with pytest.raises(ValueError, match="alpha"):
        net.derivative(torch.zeros(2, 1, dtype=torch.float64), (3,))


def test_initialisation_and_trainable_parameters():
    net = ps.TwoLayerPowerNet(3, 4000, 2, generator=_gen(7))
    assert net.weight.shape == (4000, 3) and net.bias.shape == (4000,) and net.a.shape == (4000,)
    assert net.weight.dtype == torch.float64
    assert set(net.a.tolist()) == {-1.0, 1.0}
    # N(0, 1): mean within 4 standard errors, variance within 5%
    w = net.weight.detach().reshape(-1)
    assert abs(float(w.mean())) < 4 / math.sqrt(w.numel())
    assert abs(float(w.var()) - 1) < 0.05
    assert abs(float(net.a.mean())) < 4 / math.sqrt(4000)
    names = {n for n, p in net.named_parameters() if p.requires_grad}
    assert names == {"weight", "bias"}
    outer = ps.TwoLayerPowerNet(3, 4, 2, train_outer=True, bias=False, generator=_gen())
    assert {n for n, p in outer.named_parameters()} == {"weight", "a"}
    assert torch.all(outer.bias == 0)


def test_generator_makes_initialisation_reproducible():
    a = ps.TwoLayerPowerNet(2, 5, 3, generator=_gen(11))
    b = ps.TwoLayerPowerNet(2, 5, 3, generator=_gen(11))
    assert torch.equal(a.weight, b.weight) and torch.equal(a.a, b.a)
    assert ps.TwoLayerPowerNet(2, 5, 3, dtype=torch.float32).weight.dtype == torch.float32


def test_generic_networks_fall_back_to_autograd():
    mlp = torch.nn.Sequential(
        torch.nn.Linear(2, 8), torch.nn.Tanh(), torch.nn.Linear(8, 1)
    ).double()
    x = torch.rand(6, 2, dtype=torch.float64, generator=_gen())
    h = 1e-5
    e0 = torch.tensor([h, 0.0], dtype=torch.float64)
    fd = (mlp(x + e0) - mlp(x - e0))[:, 0] / (2 * h)
    np.testing.assert_allclose(ps.derivative(mlp, x, (1, 0)).detach(), fd.detach(), rtol=1e-6)
    assert ps.PowerReLU(3)(torch.tensor([-1.0, 2.0])).tolist() == [0.0, 8.0]
