"""Bad input gets a TypeError (wrong type) or ValueError (wrong value) naming the argument.

One case per public argument, by kind (see ``papershelf_harness.suite``); plain tests below for
the tensor inputs and pairs that the kinds do not cover.
"""

import gnn_rescale as gr
import pytest
import torch
from hypothesis import strategies as st

from papershelf_harness import suite
from papershelf_harness.testing import assert_rejects

torch.manual_seed(0)
NET = gr.GATv2Net([3, 4, 2])
X = torch.randn(5, 3)
EI = torch.tensor([[0, 1, 2, 3], [1, 2, 3, 4]])
Y = torch.tensor([0, 1, 0, 1, 0])
MASKS = (torch.tensor([True] * 5), torch.tensor([True] * 5), torch.tensor([True] * 5))
NOT_POSITIVE = st.floats(max_value=0.0, allow_nan=False)
k = suite.keyword

CASES = [
    suite.Int("GATv2Net.dims", "dims", lambda v: gr.GATv2Net([3, v, 2]), minimum=1),
    k(suite.Number, gr.GATv2Net, "negative_slope", [3, 2]),
    k(suite.Flag, gr.GATv2Net, "add_self_loops", [3, 2]),
    suite.Int("neuron_rescale_.l", "l", lambda v: gr.neuron_rescale_(NET, v, 1.0), minimum=0),
    suite.Int("neuron_rescale_.l(last)", "l", lambda v: gr.neuron_rescale_(NET, v, 1.0), maximum=0),
    suite.Array(
        "neuron_rescale_.lam", "lam", lambda v: gr.neuron_rescale_(NET, 0, v), (4,), ndims=(0, 1)
    ),
    suite.OutOfRange(
        "neuron_rescale_.lam<=0", "lam", lambda v: gr.neuron_rescale_(NET, 0, v), NOT_POSITIVE
    ),
    suite.Mismatch("neuron_rescale_.lam(size)", "lam", lambda: gr.neuron_rescale_(NET, 0, [1.0])),
    k(suite.Flag, gr.neuron_rescale_, "grads", NET, 0, 1.0),
    k(suite.Int, gr.balance_weight_norms_, "n_iter", NET, minimum=0),
    k(suite.Int, gr.balance_relative_gradients_, "n_iter", NET, minimum=0),
    k(suite.Option, gr.DynamicRescaler, "criterion", NET, valid=frozenset({"rg", "w", "both"})),
    k(suite.Int, gr.DynamicRescaler, "every", NET, minimum=1),
    k(suite.Int, gr.DynamicRescaler, "n_iter", NET, minimum=0),
    k(suite.Int, gr.DynamicRescaler, "start", NET, minimum=0),
    suite.Int("focus_layer_.layer", "layer", lambda v: gr.focus_layer_(NET, v, 1.0), minimum=0),
    suite.Number("focus_layer_.factor", "factor", lambda v: gr.focus_layer_(NET, 0, v)),
    suite.OutOfRange(
        "focus_layer_.factor<=0", "factor", lambda v: gr.focus_layer_(NET, 0, v), NOT_POSITIVE
    ),
    k(suite.Flag, gr.focus_layer_, "compensate", NET, 0, 1.0),
    k(suite.Number, gr.check_rescale_invariance, "low", NET, X, EI),
    k(suite.Number, gr.check_rescale_invariance, "tol", NET, X, EI),
    suite.Mismatch(
        "check_rescale_invariance.high<low",
        "high",
        lambda: gr.check_rescale_invariance(NET, X, EI, low=2.0, high=1.0),
    ),
    suite.Mismatch("forward.x(columns)", "x", lambda: NET(torch.randn(5, 4), EI)),
    suite.Mismatch("forward.x(ndim)", "x", lambda: NET(torch.randn(5), EI)),
    suite.Mismatch("forward.x(nan)", "x", lambda: NET(torch.full((5, 3), float("nan")), EI)),
    suite.Mismatch("forward.edge_index(range)", "edge_index", lambda: NET(X, EI + 1)),
    suite.Mismatch("forward.edge_index(rows)", "edge_index", lambda: NET(X, EI[:1])),
    suite.Mismatch("forward.edge_index(neg)", "edge_index", lambda: NET(X, EI - 1)),
    suite.Mismatch("GATv2Net.dims(short)", "dims", lambda: gr.GATv2Net([3])),
    k(suite.Int, gr.data.csbm, "n", kwargs={"num_classes": 2}, minimum=2),
    k(suite.Int, gr.data.csbm, "num_classes", 10, minimum=2),
    suite.Int("csbm.num_classes>n", "num_classes", lambda v: gr.data.csbm(3, v), maximum=3),
    k(suite.Number, gr.data.csbm, "homophily", 10, 2),
    k(suite.OutOfRange, gr.data.csbm, "homophily", 10, 2, values=st.floats(1.01, 10.0)),
    k(suite.Number, gr.data.csbm, "avg_degree", 10, 2),
    k(suite.OutOfRange, gr.data.csbm, "avg_degree", 10, 2, values=NOT_POSITIVE),
    k(suite.Int, gr.data.csbm, "feat_dim", 10, 2, minimum=1),
    k(suite.Number, gr.data.csbm, "signal", 10, 2),
    k(suite.Option, gr.data.csbm, "mixing", 10, 2, valid=frozenset({"uniform", "paired"})),
    k(suite.Int, gr.data.random_split, "n", minimum=3),
    k(suite.Number, gr.data.random_split, "train", 10),
    k(suite.Number, gr.data.random_split, "val", 10),
    suite.Mismatch(
        "random_split.val", "train", lambda: gr.data.random_split(10, train=0.7, val=0.3)
    ),
    k(suite.Int, gr.train_node_classifier, "epochs", NET, X, EI, Y, MASKS, minimum=1),
    k(suite.Number, gr.train_node_classifier, "lr", NET, X, EI, Y, MASKS),
    k(suite.Number, gr.train_node_classifier, "clip", NET, X, EI, Y, MASKS, none_ok=True),
    suite.Mismatch(
        "train_node_classifier.y", "y", lambda: gr.train_node_classifier(NET, X, EI, Y[:3], MASKS)
    ),
]

globals().update(suite.bad_input_suite(CASES))


@pytest.mark.parametrize(
    "fn",
    [
        gr.balance_weight_norms_,
        gr.balance_relative_gradients_,
        gr.conserved_quantity,
        gr.imbalance,
        gr.relative_gradient_norms,
        gr.init.looks_linear_orthogonal_,
        gr.init.balanced_,
        gr.DynamicRescaler,
    ],
)
@pytest.mark.parametrize("model", [None, "model", torch.nn.Linear(2, 2)])
def test_model_must_be_a_gatv2_model(fn, model):
    exc = ValueError if isinstance(model, torch.nn.Module) else TypeError
    assert_rejects(exc, "model", fn, model)


@pytest.mark.parametrize(
    "clamp", [(1.0,), "ab", None, (0.0, 2.0), (2.0, 1.0), (1e-5, float("nan"))]
)
def test_bad_clamp(clamp):
    exc = TypeError if clamp in [(1.0,), "ab", None] else ValueError
    assert_rejects(exc, "clamp", gr.balance_weight_norms_, NET, clamp=clamp)


@pytest.mark.parametrize("fn", [gr.init.looks_linear_orthogonal_])
def test_bad_generator(fn):
    assert_rejects(TypeError, "generator", fn, NET, generator=3)
    assert_rejects(TypeError, "generator", gr.data.csbm, 10, 2, generator="x")


def test_x_must_be_a_tensor():
    assert_rejects(TypeError, "x", NET, X.numpy(), EI)
    assert_rejects(TypeError, "edge_index", NET, X, EI.float())
