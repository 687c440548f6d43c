"""The graph view against a direct enumeration of neurons and weights."""

import scalegmn as S
import torch
from conftest import DIMS, random_mlp


def test_mlp_to_graph_matches_enumeration():
    ws, bs = random_mlp(batch=2)
    g = S.mlp_to_graph(ws, bs)
    V = sum(DIMS)
    assert g.num_graphs == 2 and g.num_nodes == 2 * V and g.layer_dims == DIMS
    offs = [sum(DIMS[:l]) for l in range(len(DIMS))]
    edges = {}
    for k in range(g.edge_index.shape[1]):
        edges[(int(g.edge_index[0, k]), int(g.edge_index[1, k]))] = float(g.edge_attr[k, 0])
    expected = {}
    for n in range(2):
        for l in range(1, len(DIMS)):
            for i in range(DIMS[l]):
                v = n * V + offs[l] + i
                assert float(g.x[v, 0]) == float(bs[l - 1][n, i])
                assert int(g.layer[v]) == l and int(g.batch[v]) == n
                assert bool(g.hidden_mask[v]) == (l < len(DIMS) - 1)
                for j in range(DIMS[l - 1]):
                    expected[(n * V + offs[l - 1] + j, v)] = float(ws[l - 1][n, i, j])
        for j in range(DIMS[0]):
            assert float(g.x[n * V + j, 0]) == 1.0 and not bool(g.hidden_mask[n * V + j])
    assert edges == expected
    # input and output neurons each have their own type; a hidden layer shares one
    t = g.node_type[:V].tolist()
    assert t == [0, 1, 2, 2, 2, 2, 3, 3, 3, 4]
    w2, b2 = S.graph_to_mlp(g)
    for a, b in zip(ws + bs, w2 + b2, strict=True):
        assert torch.equal(a, b)


def test_unbatched_is_one_graph():
    ws, bs = random_mlp(batch=1)
    g = S.mlp_to_graph([w[0] for w in ws], [b[0] for b in bs])
    assert g.num_graphs == 1 and g.edge_index.shape == (2, 2 * 4 + 4 * 3 + 3 * 1)


def test_positional_types_of_a_mixed_layout_model():
    # a model serving up to 3 hidden layers: hidden layer l has type d0 + l - 1 whatever the
    # depth, output neuron k type d0 + 3 + k, so a 1-hidden-layer net's output neurons share
    # the deep nets' output types
    g = S.mlp_to_graph(
        [torch.ones(5, 2), torch.ones(1, 5)], [torch.ones(5), torch.ones(1)], num_hidden=3
    )
    assert g.node_type.tolist() == [0, 1, 2, 2, 2, 2, 2, 5]
    # edges: out of input j -> j; into output k -> d0 + (H - 1) + k
    assert g.edge_type.tolist() == [0, 1] * 5 + [4] * 5
    assert S.mlp_to_graph(
        [torch.ones(5, 2), torch.ones(1, 5)], [torch.ones(5), torch.ones(1)]
    ).node_type.tolist() == [0, 1, 2, 2, 2, 2, 2, 3]
