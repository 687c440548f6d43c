"""Rescale invariance, gradient transform, conservation law, balancing and focusing."""

import copy

import gnn_rescale as gr
import pytest
import torch
from conftest import make_net

F = torch.nn.functional


def loss_and_grads(m, x, ei, y):
    m.zero_grad(set_to_none=True)
    out = m(x, ei)
    loss = F.cross_entropy(out, y)
    loss.backward()
    return out.detach(), float(loss.detach())


def rand_lams(m, seed):
    g = torch.Generator().manual_seed(seed)
    return [
        torch.exp(
            torch.empty(layer.W.shape[0], dtype=torch.float64).uniform_(-2.3, 2.3, generator=g)
        )
        for layer in list(m.layers)[:-1]
    ]


@pytest.mark.parametrize("seed", range(3))
def test_function_and_loss_invariant(graph, seed):
    x, ei, y = graph
    m = make_net([5, 8, 6, 7, 3], seed=seed)
    out0, loss0 = loss_and_grads(m, x, ei, y)
    for l, lam in enumerate(rand_lams(m, seed)):
        gr.neuron_rescale_(m, l, lam)
    assert not torch.allclose(m.layers[0].W, make_net([5, 8, 6, 7, 3], seed=seed).layers[0].W)
    out1, loss1 = loss_and_grads(m, x, ei, y)
    assert (out1 - out0).abs().max() / out0.abs().max() < 1e-9
    assert abs(loss1 - loss0) / abs(loss0) < 1e-9


def test_gradients_transform_inversely(graph):
    """Rescaled .grad (grads=True) equals autograd on the rescaled model, and the formulas hold."""
    x, ei, y = graph
    m = make_net([5, 8, 6, 3], seed=1)
    loss_and_grads(m, x, ei, y)
    orig = [p.grad.clone() for p in m.parameters()]
    lams = rand_lams(m, 1)
    for l, lam in enumerate(lams):
        gr.neuron_rescale_(m, l, lam, grads=True)
    predicted = [p.grad.clone() for p in m.parameters()]
    loss_and_grads(m, x, ei, y)  # autograd on the rescaled model
    for g, p in zip(predicted, m.parameters(), strict=True):
        torch.testing.assert_close(g, p.grad, rtol=1e-9, atol=1e-13)
    # layer 0 alone sees lam_0 (rows of W0, a0) and W1's columns see lam_0, its rows lam_1
    torch.testing.assert_close(m.layers[0].W.grad, orig[0] / lams[0][:, None], rtol=1e-9, atol=0)
    torch.testing.assert_close(m.layers[0].a.grad, orig[1] * lams[0], rtol=1e-9, atol=0)
    torch.testing.assert_close(
        m.layers[1].W.grad, orig[2] * lams[0][None, :] / lams[1][:, None], rtol=1e-9, atol=0
    )


def test_grads_false_leaves_grads(graph):
    x, ei, y = graph
    m = make_net([5, 4, 3])
    loss_and_grads(m, x, ei, y)
    g = m.layers[0].W.grad.clone()
    gr.neuron_rescale_(m, 0, 2.0, grads=False)
    assert torch.equal(m.layers[0].W.grad, g)


def test_conserved_quantity_changes_predictably(graph):
    m = make_net([5, 8, 6, 3])
    c0 = gr.conserved_quantity(m)
    lam = rand_lams(m, 2)[0]
    w_in = (m.layers[0].W.detach() ** 2).sum(1)
    a2 = m.layers[0].a.detach() ** 2
    w_out = (m.layers[1].W.detach() ** 2).sum(0)
    torch.testing.assert_close(c0[0], w_in - a2 - w_out)
    gr.neuron_rescale_(m, 0, lam)
    c1 = gr.conserved_quantity(m)
    torch.testing.assert_close(c1[0], lam**2 * w_in - a2 / lam**2 - w_out / lam**2)
    assert len(c1) == 2 and c1[1].shape == (6,)


def test_gradient_is_orthogonal_to_conserved_quantity(graph):
    """d c_i / dt = -<grad c_i, grad L> is exactly 0: the first-order term of gradient flow."""
    x, ei, y = graph
    m = make_net([5, 8, 6, 3], seed=3)
    loss_and_grads(m, x, ei, y)
    gL = [p.grad.clone() for p in m.parameters()]
    for l in range(2):
        W, a, W2 = m.layers[l].W, m.layers[l].a, m.layers[l + 1].W
        ci = (W**2).sum(1) - a**2 - (W2**2).sum(0)
        for i in range(ci.shape[0]):
            grads = torch.autograd.grad(
                ci[i], list(m.parameters()), allow_unused=True, retain_graph=True
            )
            dot = sum(float((g * h).sum()) for g, h in zip(grads, gL, strict=True) if g is not None)
            scale = sum(
                float(g.norm() * h.norm()) for g, h in zip(grads, gL, strict=True) if g is not None
            )
            assert abs(dot) <= 1e-12 * scale


def _sgd_drift(x, ei, y, lr, steps):
    m = make_net([5, 8, 6, 3], seed=4)
    gr.init.looks_linear_orthogonal_(m, generator=torch.Generator().manual_seed(4))
    c0 = torch.cat(gr.conserved_quantity(m))
    opt = torch.optim.SGD(m.parameters(), lr=lr)
    for _ in range(steps):
        opt.zero_grad()
        F.cross_entropy(m(x, ei), y).backward()
        opt.step()
    c1 = torch.cat(gr.conserved_quantity(m))
    return float(((c1 - c0).abs() / c0.abs().clamp_min(1e-3)).max()), float((c1 - c0).abs().max())


def test_conserved_under_small_step_sgd(graph):
    """Gradient descent changes c by O(lr^2) per step: over a fixed time T = lr*steps the drift is
    O(lr*T), so halving lr halves the drift (ratio 2 +- 25%) and lr 2e-4 x 100 moves c < 1%."""
    x, ei, y = graph
    rel, _ = _sgd_drift(x, ei, y, 2e-4, 100)
    assert rel < 1e-2
    _, d1 = _sgd_drift(x, ei, y, 0.04, 15)
    _, d2 = _sgd_drift(x, ei, y, 0.02, 30)
    assert 1.5 < d1 / d2 < 2.5


def test_adam_breaks_conservation(graph):
    x, ei, y = graph
    m = make_net([5, 8, 6, 3], seed=4)
    c0 = torch.cat(gr.conserved_quantity(m))
    opt = torch.optim.Adam(m.parameters(), lr=1e-2)
    for _ in range(200):
        opt.zero_grad()
        F.cross_entropy(m(x, ei), y).backward()
        opt.step()
    c1 = torch.cat(gr.conserved_quantity(m))
    assert float(((c1 - c0).abs() / c0.abs().clamp_min(1e-3)).max()) > 0.1


def test_weight_norm_balance_converges():
    torch.manual_seed(0)
    m = gr.GATv2Net([16, 64, 64, 64, 64, 4]).double()  # default (Xavier-normal) init
    x = torch.randn(30, 16, dtype=torch.float64)
    ei = torch.randint(0, 30, (2, 120))
    out0 = m(x, ei).detach()
    hist = [gr.imbalance(m)]
    for _ in range(30):
        gr.balance_weight_norms_(m, n_iter=1)
        hist.append(gr.imbalance(m))
    assert hist[10] < 1e-2 and hist[30] < 1e-4, hist
    assert hist[30] < hist[10] < hist[1] < hist[0]
    torch.testing.assert_close(m(x, ei), out0, rtol=1e-9, atol=1e-12)


def test_weight_norm_balance_default_is_ten_sweeps():
    a = make_net([5, 32, 32, 32, 3], seed=5)
    gr.init.looks_linear_orthogonal_(a, generator=torch.Generator().manual_seed(1))
    b = copy.deepcopy(a)
    gr.balance_weight_norms_(a)
    for _ in range(10):
        gr.balance_weight_norms_(b, n_iter=1)
    for p, q in zip(a.parameters(), b.parameters(), strict=True):
        torch.testing.assert_close(p, q)


def test_clamp_limits_each_factor():
    m = make_net([4, 3, 2])
    with torch.no_grad():
        m.layers[0].W.mul_(1e-3)  # wants lam ~ 30 > 2
    w0 = m.layers[0].W.detach().clone()
    gr.balance_weight_norms_(m, n_iter=1)
    torch.testing.assert_close(m.layers[0].W, 2.0 * w0)


def test_relative_gradient_balance(graph):
    x, ei, y = graph
    m = make_net([5, 16, 16, 16, 3], seed=6)
    gr.init.looks_linear_orthogonal_(m, generator=torch.Generator().manual_seed(6))
    out0, _ = loss_and_grads(m, x, ei, y)
    gr.balance_relative_gradients_(m, n_iter=10)
    ratios = torch.cat(gr.relative_gradient_balance(m))
    assert float(ratios.min()) >= 0.8 and float(ratios.max()) <= 1.25
    predicted = [p.grad.clone() for p in m.parameters()]
    out1, _ = loss_and_grads(m, x, ei, y)  # grads were rescaled with the weights
    torch.testing.assert_close(out1, out0, rtol=1e-9, atol=1e-12)
    for g, p in zip(predicted, m.parameters(), strict=True):
        torch.testing.assert_close(g, p.grad, rtol=1e-8, atol=1e-14)


def test_relative_gradient_lambda_formula(graph):
    """One sweep on a 2-layer net: lam = (R_in / R_out)^(1/8), computed here by hand."""
    x, ei, y = graph
    m = make_net([5, 6, 3], seed=7)
    loss_and_grads(m, x, ei, y)
    W, a, W2 = (t.detach().clone() for t in (m.layers[0].W, m.layers[0].a, m.layers[1].W))
    gW, ga, gW2 = (t.grad.clone() for t in (m.layers[0].W, m.layers[0].a, m.layers[1].W))
    r_in = ((gW / W) ** 2).sum(1)
    r_out = ((gW2 / W2) ** 2).sum(0) + (ga / a) ** 2
    lam = ((r_in / r_out) ** 0.125).clamp(1e-5, 2.0)
    gr.balance_relative_gradients_(m, n_iter=1)
    torch.testing.assert_close(m.layers[0].W, W * lam[:, None])
    torch.testing.assert_close(m.layers[0].a, a / lam)
    torch.testing.assert_close(m.layers[1].W.grad, gW2 * lam[None, :])


def test_relative_gradients_need_backward():
    m = make_net([4, 3, 2])
    with pytest.raises(ValueError, match="backward"):
        gr.balance_relative_gradients_(m)


@pytest.mark.parametrize("layer", [0, 1, 2])
def test_focus_layer_speeds_up_relative_gradients(graph, layer):
    x, ei, y = graph
    m = make_net([5, 8, 8, 3], seed=8)
    out0, _ = loss_and_grads(m, x, ei, y)
    before = gr.relative_gradient_norms(m)
    gr.focus_layer_(m, layer, 0.1)
    out1, _ = loss_and_grads(m, x, ei, y)
    after = gr.relative_gradient_norms(m)
    torch.testing.assert_close(out1, out0, rtol=1e-9, atol=1e-12)
    ratio = after[layer] / before[layer]
    assert 80 < ratio < 120


def test_focus_layer_uncompensated_scales_only_that_layer():
    m = make_net([4, 3, 2])
    w = [p.detach().clone() for p in m.parameters()]
    gr.focus_layer_(m, 1, 0.5, compensate=False)
    got = list(m.parameters())
    torch.testing.assert_close(got[2], 0.5 * w[2])
    for i in (0, 1, 3):
        assert torch.equal(got[i], w[i])


def test_dynamic_rescaler_schedule(graph):
    x, ei, y = graph
    m = make_net([5, 8, 8, 3])
    r = gr.DynamicRescaler(m, criterion="both", every=3, start=2)
    ran = []
    for epoch in range(10):
        a = r.before_forward(epoch)
        loss_and_grads(m, x, ei, y)
        b = r.after_backward(epoch)
        ran.append((a, b))
    assert [e for e, (a, b) in enumerate(ran) if a and b] == [2, 5, 8]
    assert r.n_rebalanced == 6
    rw = gr.DynamicRescaler(m, criterion="w")
    assert rw.before_forward(0) and not rw.after_backward(0) and not rw.before_forward(1)


def test_check_rescale_invariance_detects_bias(graph):
    x, ei, _ = graph
    m = make_net([5, 6, 3])
    assert gr.check_rescale_invariance(m, x, ei).invariant

    class WithBias(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.layers = m.layers
            self.b = torch.nn.Parameter(torch.ones(6, dtype=torch.float64))

        def forward(self, x, ei):
            h = torch.relu(self.layers[0](x, ei) + self.b)
            return self.layers[1](h, ei)

    rep = gr.check_rescale_invariance(WithBias(), x, ei)
    assert not rep.invariant and rep.output_error > 1e-3


def test_looks_linear_structure():
    m = gr.GATv2Net([6, 8, 8, 4]).double()
    gr.init.looks_linear_orthogonal_(m, generator=torch.Generator().manual_seed(0))
    W0, W1, W2 = (layer.W.detach() for layer in m.layers)
    torch.testing.assert_close(W0[:4], -W0[4:])
    torch.testing.assert_close(W0[:4] @ W0[:4].t(), torch.eye(4, dtype=torch.float64))
    U = W1[:4, :4]
    torch.testing.assert_close(W1, torch.cat([torch.cat([U, -U], 1), torch.cat([-U, U], 1)], 0))
    torch.testing.assert_close(W2[:, :4], -W2[:, 4:])


def test_balanced_init_zeroes_conserved_quantity():
    m = make_net([5, 8, 8, 3])
    gr.init.balanced_(m)
    for c in gr.conserved_quantity(m):
        assert float(c.abs().max()) < 1e-12
    assert all(float(layer.a.detach().abs().max()) == 0 for layer in m.layers)
