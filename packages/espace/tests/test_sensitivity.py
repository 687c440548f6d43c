"""layer_sensitivity against swapping each layer by hand; select_calibrators is an argmin."""

import torch
from espace import ProjectedLinear, layer_sensitivity, random_projection, select_calibrators
from torch import nn


def test_one_layer_at_a_time_and_restored():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 8), nn.Tanh(), nn.Linear(8, 4))
    x = torch.randn(16, 8)
    with torch.no_grad():
        ref = model(x)

    def eval_fn(m):
        with torch.no_grad():
            return float((m(x) - ref).square().mean())

    g = torch.Generator().manual_seed(1)
    cands = {
        "good": {
            "0": random_projection(8, 7, generator=g),
            "2": random_projection(8, 8, generator=g),
        },
        "bad": {
            "0": random_projection(8, 1, generator=g),
            "2": random_projection(8, 1, generator=g),
        },
    }
    table = layer_sensitivity(model, eval_fn, cands)
    assert set(table) == {"0", "2"} and set(table["0"]) == {"good", "bad"}
    # by hand: only layer "0" projected with the "bad" P
    manual = nn.Sequential(
        ProjectedLinear.from_linear(model[0], cands["bad"]["0"]), model[1], model[2]
    )
    assert abs(table["0"]["bad"] - eval_fn(manual)) < 1e-12
    assert table["2"]["good"] < 1e-10  # full rank: no change
    assert all(isinstance(model[i], nn.Linear) for i in (0, 2))  # restored
    assert eval_fn(model) == 0.0
    assert select_calibrators(table) == {"0": "good", "2": "good"}


def test_select_calibrators_ties_take_the_first():
    assert select_calibrators({"a": {"x": 1.0, "y": 1.0, "z": 0.5}, "b": {"x": 2, "y": 2}}) == {
        "a": "z",
        "b": "x",
    }
