"""PyG adapters on real torch_geometric objects (`nox -s tests_extras`): a MessagePassing
module that sums ScaleGMN's messages over PyG's edge_index equals the dense layer."""

import pytest
import scalegmn as S
import torch
from conftest import DIMS, model, random_mlp

pyg = pytest.importorskip("torch_geometric")
from scalegmn.pyg import mlp_to_data, to_data, to_data_list  # noqa: E402
from torch_geometric.loader import DataLoader  # noqa: E402
from torch_geometric.nn import MessagePassing  # noqa: E402


class SumMessages(MessagePassing):
    def __init__(self, layer):
        super().__init__(aggr="add")
        self.layer = layer

    def forward(self, x, edge_index, edge_attr, hidden):
        return self.propagate(edge_index, x=x, edge_attr=edge_attr, hidden=hidden.unsqueeze(-1))

    def message(self, x_j, edge_attr, hidden_i):
        h = self.layer.message(edge_attr, x_j, hidden=True)
        o = self.layer.message(edge_attr, x_j, hidden=False)
        return torch.where(hidden_i, h, o)


def test_data_fields_and_loader():
    ws, bs = random_mlp(batch=3)
    g = S.mlp_to_graph(ws, bs)
    d = to_data(g)
    assert d.num_nodes == 3 * sum(DIMS) and torch.equal(d.edge_index, g.edge_index)
    items = mlp_to_data(ws, bs)
    assert len(items) == 3 and len(to_data_list(g)) == 3
    batch = next(iter(DataLoader(items, batch_size=3)))
    assert torch.equal(batch.edge_index, g.edge_index)
    assert torch.equal(batch.x, g.x) and torch.equal(batch.batch, g.batch)


def test_pyg_message_passing_matches_dense_layer():
    ws, bs = random_mlp(batch=2, seed=5)
    m = model("sign", num_layers=1)
    xs, es, _, _ = m.init_features(ws, bs)
    g = S.mlp_to_graph(ws, bs)
    d = to_data(g)
    x = torch.cat(xs, dim=1).reshape(-1, xs[0].shape[-1])
    e = torch.cat([t.reshape(2, -1, t.shape[-1]) for t in es], dim=1).reshape(-1, xs[0].shape[-1])
    agg = SumMessages(m.layers[0])(x, d.edge_index, e, d.mask_hidden)
    # dense aggregation: recompute the layer's aggregated messages block by block
    L = len(DIMS) - 1
    dense = [torch.zeros_like(xs[0])]
    for l in range(1, L + 1):
        msg = m.layers[0].message(es[l - 1], xs[l - 1].unsqueeze(1), hidden=l < L)
        dense.append(msg.sum(dim=2))
    dense = torch.cat(dense, dim=1).reshape(-1, x.shape[-1])
    assert torch.allclose(agg, dense, rtol=1e-10, atol=1e-12)


def test_cnn_graph_to_data_list_keeps_kernels():
    g = torch.Generator().manual_seed(0)
    ws = [torch.randn(2, 3, 2, 3, 3, generator=g), torch.randn(2, 1, 3, generator=g)]
    bs = [torch.randn(2, 3, generator=g), torch.randn(2, 1, generator=g)]
    graph = S.cnn_to_graph(ws, bs)
    datas = to_data_list(graph)
    assert len(datas) == 2 and datas[1].edge_attr.shape == (2 * 3 + 3 * 1, 9)
    assert torch.equal(datas[1].edge_attr[:6], ws[0][1].reshape(6, 9))
    batch = next(iter(DataLoader(datas, batch_size=2)))
    assert torch.equal(batch.edge_attr, graph.edge_attr)
