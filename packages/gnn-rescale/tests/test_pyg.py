"""The PyG integration on the real GATv2Conv (runs in `nox -s tests_extras`, skips otherwise)."""

import gnn_rescale as gr
import pytest
import torch
from conftest import make_net

pyg = pytest.importorskip("torch_geometric")
from gnn_rescale.pyg import PyGGATv2Net, from_gatv2net  # noqa: E402
from torch_geometric.nn import GATv2Conv  # noqa: E402


@pytest.mark.parametrize("self_loops", [True, False])
def test_our_forward_equals_pyg_gatv2conv(graph, self_loops):
    x, ei, _ = graph
    ours = make_net([5, 7, 6, 3], add_self_loops=self_loops)
    theirs = from_gatv2net(ours)
    torch.testing.assert_close(theirs(x, ei), ours(x, ei), rtol=1e-10, atol=1e-12)


def test_pyg_model_is_rescale_invariant_and_balances(graph):
    x, ei, y = graph
    model = from_gatv2net(make_net([5, 8, 8, 3], seed=2))
    rep = gr.check_rescale_invariance(model, x, ei)
    assert rep.invariant and rep.output_error < 1e-9 and rep.grad_error < 1e-9
    out0 = model(x, ei).detach()
    gr.balance_weight_norms_(model, n_iter=30)
    assert gr.imbalance(model) < 1e-4
    torch.testing.assert_close(model(x, ei), out0, rtol=1e-9, atol=1e-12)
    torch.nn.functional.cross_entropy(model(x, ei), y).backward()
    gr.balance_relative_gradients_(model)
    r = torch.cat(gr.relative_gradient_balance(model))
    assert 0.8 <= float(r.min()) and float(r.max()) <= 1.25


def test_pyg_stack_class_matches_dims():
    m = PyGGATv2Net([4, 6, 2])
    params = gr.rescale.weight_params(m)
    assert [tuple(p[0].shape) for p in params] == [(6, 4), (2, 6)]


@pytest.mark.parametrize(
    "kwargs",
    [dict(heads=2), dict(share_weights=False), dict(bias=True), dict(edge_dim=3)],
    ids=["heads", "share_weights", "bias", "edge_dim"],
)
def test_refuses_configurations_breaking_the_invariance(kwargs):
    opts = dict(heads=1, share_weights=True, bias=False) | kwargs
    model = torch.nn.ModuleList([GATv2Conv(4, 3, **opts), GATv2Conv(3 * opts["heads"], 2)])
    with pytest.raises(ValueError, match="invariance"):
        gr.conserved_quantity(model)
