"""Bad input to the torch models (extra ``torch``): TypeError/ValueError naming the argument."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from gnn_individualize import ego_batch  # noqa: E402
from gnn_individualize.models import EgoNN, GraphConvNet, to_batch  # noqa: E402

from papershelf_harness import suite  # noqa: E402
from papershelf_harness.testing import assert_rejects  # noqa: E402

X = torch.ones(3, 2)
EI = torch.tensor([[0, 1, 2], [1, 2, 0]])
NET = GraphConvNet(2, 4, 2, layers=1)
EGO = EgoNN(2, 4, 1, 2, layers=1)


def _tensor(v):
    """Feed suite values as tensors where they are arrays (the models take tensors)."""
    if isinstance(v, np.ndarray) and v.dtype.kind in "biuf":
        return torch.as_tensor(v)
    return v


CASES = [
    suite.Int("GraphConvNet.in_dim", "in_dim", lambda v: GraphConvNet(v, 4, 2), minimum=1),
    suite.Int("GraphConvNet.hidden", "hidden", lambda v: GraphConvNet(2, v, 2), minimum=1),
    suite.Int("GraphConvNet.out_dim", "out_dim", lambda v: GraphConvNet(2, 4, v), minimum=1),
    suite.Int(
        "GraphConvNet.layers", "layers", lambda v: GraphConvNet(2, 4, 2, layers=v), minimum=0
    ),
    suite.Option(
        "GraphConvNet.pool",
        "pool",
        lambda v: GraphConvNet(2, 4, 2, pool=v),
        valid=frozenset({"sum", "max"}),
    ),
    suite.Int("EgoNN.in_dim", "in_dim", lambda v: EgoNN(v, 4, 1, 2), minimum=1),
    suite.Int("EgoNN.hidden", "hidden", lambda v: EgoNN(2, v, 1, 2), minimum=1),
    suite.Int("EgoNN.pattern_channels", "pattern_channels", lambda v: EgoNN(2, 4, v, 2), minimum=1),
    suite.Int("EgoNN.out_dim", "out_dim", lambda v: EgoNN(2, 4, 1, v), minimum=1),
    suite.Int("EgoNN.layers", "layers", lambda v: EgoNN(2, 4, 1, 2, layers=v), minimum=1),
    suite.Int(
        "EgoNN.radius", "radius", lambda v: EgoNN(2, 4, 1, 2, radius=v), minimum=0, none_ok=True
    ),
    suite.Option(
        "EgoNN.scheme",
        "scheme",
        lambda v: EgoNN(2, 4, 1, 2, scheme=v),
        valid=frozenset({"tinhofer", "tinhofer_w", "relational_pooling", "rni", "none"}),
    ),
    suite.Int("EgoNN.bits", "bits", lambda v: EgoNN(2, 4, 1, 2, bits=v), minimum=1, maximum=63),
    suite.Int("EgoNN.k_weak", "k_weak", lambda v: EgoNN(2, 4, 1, 2, k_weak=v), minimum=0),
    suite.Mismatch("GraphConvNet.x_width", "x", lambda: NET(torch.ones(3, 5), EI)),
    suite.Mismatch("GraphConvNet.batch_length", "batch", lambda: NET(X, EI, torch.tensor([0, 0]))),
    suite.Mismatch(
        "GraphConvNet.edge_range", "edge_index", lambda: NET(X, torch.tensor([[0], [3]]))
    ),
    suite.Mismatch(
        "GraphConvNet.edge_shape", "edge_index", lambda: NET(X, torch.tensor([[0, 1, 2]]))
    ),
    suite.Mismatch(
        "GraphConvNet.negative_batch", "batch", lambda: NET(X, EI, torch.tensor([0, -1, 0]))
    ),
    suite.Mismatch("EgoNN.x_nan", "x", lambda: EGO(torch.full((3, 2), float("nan")), EI)),
    suite.Mismatch(
        "EgoNN.egos_mismatch", "egos", lambda: EGO(X, EI, egos=ego_batch(EI.numpy(), 3, bits=3))
    ),
    suite.Mismatch(
        "to_batch.features", "features", lambda: to_batch([(EI.numpy(), 3)], [np.ones((3, 1))] * 2)
    ),
    suite.Mismatch(
        "to_batch.rows", "features[0]", lambda: to_batch([(EI.numpy(), 3)], [np.ones((4, 1))])
    ),
]

globals().update(suite.bad_input_suite(CASES))


@pytest.mark.parametrize("model", [NET, EGO], ids=["GraphConvNet", "EgoNN"])
def test_forward_types(model):
    assert_rejects(TypeError, "x", model, np.ones((3, 2)), EI)
    assert_rejects(TypeError, "x", model, torch.ones(3, 2, dtype=torch.long), EI)
    assert_rejects(TypeError, "edge_index", model, X, EI.float())
    assert_rejects(TypeError, "batch", model, X, EI, torch.zeros(3))
    assert_rejects(ValueError, "x", model, torch.ones(3), EI)
    assert_rejects(TypeError, "egos", EGO, X, EI, egos="abc")
    assert _tensor(np.ones(2)).shape == (2,)
