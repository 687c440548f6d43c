"""FGSM / PGD (reproduce.py's robustness check) against the closed-form worst case of a linear
model and a brute-force search over the L-inf ball's vertices."""

import itertools

import pytest
import saliency_replay as sr
import torch
from saliency_replay import _adversarial as adv

from papershelf_harness.testing import assert_close

G = torch.Generator().manual_seed(0)
W = torch.randn(2, 4, generator=G, dtype=torch.float64)
B = torch.randn(2, generator=G, dtype=torch.float64)
X = 0.3 + 0.4 * torch.rand(16, 1, 2, 2, generator=G, dtype=torch.float64)  # eps-ball inside [0,1]
Y = torch.randint(0, 2, (16,), generator=G)
EPS = 0.1


def linear(x):
    return x.flatten(1) @ W.T + B


def margin(x):
    """logit of the true class minus the other's: the attack wants it as low as possible."""
    out = linear(x)
    return out[torch.arange(len(Y)), Y] - out[torch.arange(len(Y)), 1 - Y]


def closed_form():
    """A two-class linear model's exact worst case: x - eps * sign(w_y - w_other)."""
    return X - EPS * torch.sign(W[Y] - W[1 - Y]).view_as(X)


@pytest.mark.parametrize(
    "attack",
    [
        lambda: adv.fgsm(linear, X, Y, eps=EPS),
        lambda: adv.pgd(
            linear, X, Y, eps=EPS, steps=10, generator=torch.Generator().manual_seed(1)
        ),
    ],
    ids=["fgsm", "pgd"],
)
def test_attacks_find_the_linear_models_exact_worst_case(attack):
    assert_close(attack(), closed_form(), atol=1e-12)


def test_closed_form_is_the_brute_force_minimum_over_the_vertices():
    # a linear margin is minimised over the box at a vertex: try all 2^4 of them
    corners = [
        X + EPS * torch.tensor(s, dtype=X.dtype).view(1, 1, 2, 2)
        for s in itertools.product((-1.0, 1.0), repeat=4)
    ]
    best = torch.stack([margin(c) for c in corners]).min(0).values
    assert_close(margin(closed_form()), best, atol=1e-12)


def test_pgd_stays_in_the_ball_and_the_pixel_box():
    x = torch.rand(8, 1, 16, 16, generator=G)
    y = torch.randint(0, 10, (8,), generator=G)
    torch.manual_seed(0)
    stages, head = sr.small_cnn(1, 10, channels=(8, 16))
    model = sr.ModulatedClassifier(stages, head).eval()
    out = adv.pgd(model, x, y, eps=0.05, steps=3, generator=torch.Generator().manual_seed(0))
    assert float((out - x).abs().max()) <= 0.05 + 1e-7
    assert float(out.min()) >= 0.0 and float(out.max()) <= 1.0
    assert float((out - x).abs().max()) > 0.04  # it moved


def _ser():
    torch.manual_seed(0)
    stages, head = sr.small_cnn(1, 4, channels=(8, 16))
    model = sr.ModulatedClassifier(stages, head)
    net = sr.SaliencyEncoderDecoder(stages, channels=(8, 16))
    return sr.SER(sr.ER(model, buffer_size=8), net)


def test_end_to_end_gradient_flows_through_the_saliency_branch():
    learner = _ser()
    x = torch.rand(4, 1, 8, 8, generator=G)
    learner.model.train()
    with adv.end_to_end(learner) as f:
        assert not learner.model.training and not learner.saliency_net.training
        xg = x.clone().requires_grad_(True)
        (full,) = torch.autograd.grad(f(xg).sum(), xg)
    # modes and the training-time detach are restored
    assert learner.model.training and learner.model._detach_features
    learner.model.eval()
    learner.saliency_net.eval()
    xg = x.clone().requires_grad_(True)
    feats = [h.detach() for h in learner.saliency_net(xg)[1]]
    (cls_only,) = torch.autograd.grad(learner.model(xg, feats).sum(), xg)
    assert not torch.allclose(full, cls_only)  # the saliency path adds to the input gradient
    with adv.end_to_end(learner, through_saliency=False) as f:
        xg = x.clone().requires_grad_(True)
        (blind,) = torch.autograd.grad(f(xg).sum(), xg)
    assert_close(blind, cls_only, atol=1e-7)


def test_eps_zero_leaves_every_accuracy_at_the_clean_one():
    learner = _ser()
    x = torch.rand(12, 1, 8, 8, generator=G)
    y = torch.randint(0, 4, (12,), generator=G)
    clean, f, p = adv.robust_accuracy(learner, x, y, eps=0.0, steps=2)
    assert clean == f == p == sr.accuracy(learner, x, y)
