"""fit_lambda trains λ only (backbone bitwise unchanged); finetune trains everything."""

import lambda_equitune as le
import torch
from torch import nn


def _data(n=32, seed=0):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, 1, 8, 8, generator=g)
    y = torch.randint(0, 10, (n,), generator=g)
    return [(x[i : i + 8], y[i : i + 8]) for i in range(0, n, 8)]


def _snapshot(module):
    return [p.detach().clone() for p in module.parameters()]


def test_fit_lambda_trains_only_lambda_and_restores_requires_grad():
    torch.manual_seed(0)
    model = le.DigitsCNN(10, channels=2)
    model.head.weight.requires_grad_(False)  # a user's own freezing survives
    w = le.LambdaEquiTune(
        model, le.Rot90(), le.WeightNet(model.n_features, hidden=8), features=model.features
    )
    before_m, before_l = _snapshot(model), _snapshot(w.weight_net)
    res = le.fit_lambda(w, _data(), steps=6, lr=1e-2)
    assert res.steps == 6 and len(res.losses) == 6 and all(map(float.__instancecheck__, res.losses))
    assert all(torch.equal(a, b) for a, b in zip(before_m, _snapshot(model), strict=True))
    assert any(
        not torch.equal(a, b) for a, b in zip(before_l, _snapshot(w.weight_net), strict=True)
    )
    assert [p.requires_grad for p in model.parameters()] == [
        p is not model.head.weight for p in model.parameters()
    ]
    assert w.training  # the mode it had before (train) is restored


def test_fit_lambda_lowers_the_loss_when_lambda_can_pick_the_right_view():
    """A frozen 'model' that is right only on upright inputs: λ must learn to pick the upright view."""
    torch.manual_seed(0)
    marker = torch.zeros(1, 4, 4)
    marker[0, 0, 0] = 1.0  # upright iff the top-left pixel is lit

    class Oracle(nn.Module):
        def __init__(self):
            super().__init__()
            self.scale = nn.Parameter(torch.tensor(5.0))

        def forward(self, x):
            upright = x[:, 0, 0, 0]
            logits = torch.zeros(x.shape[0], 2)
            return logits + self.scale * torch.stack([upright, 1 - upright], 1)

    x0 = marker.expand(64, 1, 4, 4).clone()
    k = torch.arange(64) % 4
    x = torch.stack([torch.rot90(a, int(b), dims=(-2, -1)) for a, b in zip(x0, k, strict=True)])
    y = torch.zeros(64, dtype=torch.long)
    w = le.LambdaEquiTune(
        Oracle(), le.Rot90(), nn.Sequential(nn.Flatten(), nn.Linear(16, 1)), features=lambda t: t
    )
    res = le.fit_lambda(w, [(x, y)], steps=150, lr=0.05)
    assert res.losses[-1] < 0.5 * res.losses[0]
    with torch.no_grad():
        weights = w.group_weights(x)
    upright = (4 - k) % 4
    assert float(weights[torch.arange(64), upright].mean()) > 0.9


def test_finetune_trains_the_backbone():
    torch.manual_seed(0)
    model = le.DigitsCNN(10, channels=2)
    before = _snapshot(model)
    res = le.finetune(le.EquiTune(model, le.HFlip()), _data(), steps=3, lr=1e-2, optimizer="sgd")
    assert res.steps == 3
    assert all(not torch.equal(a, b) for a, b in zip(before, _snapshot(model), strict=True))
