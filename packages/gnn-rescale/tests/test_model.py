"""GATv2Net against a naive per-edge loop written from the formulas."""

import math

import pytest
import torch
from conftest import make_net


def naive_layer(W, a, x, edge_index, slope, self_loops):
    n = x.shape[0]
    edges = [(int(u), int(v)) for u, v in edge_index.t() if not (self_loops and u == v)]
    if self_loops:
        edges += [(i, i) for i in range(n)]
    h = [W @ x[i] for i in range(n)]
    out = torch.zeros(n, W.shape[0], dtype=x.dtype)
    for v in range(n):
        srcs = [u for u, t in edges if t == v]
        if not srcs:
            continue
        scores = []
        for u in srcs:
            z = h[u] + h[v]
            z = torch.where(z > 0, z, slope * z)
            scores.append(float(a @ z))
        mx = max(scores)
        ws = [math.exp(s - mx) for s in scores]
        tot = sum(ws)
        for u, w in zip(srcs, ws, strict=True):
            out[v] += (w / tot) * h[u]
    return out


@pytest.mark.parametrize("self_loops", [True, False])
@pytest.mark.parametrize("slope", [0.2, 0.0])
def test_forward_matches_naive_loop(graph, self_loops, slope):
    x, ei, _ = graph
    ei = torch.cat([ei, torch.tensor([[0, 1], [0, 1]])], 1)  # explicit self-loops too
    m = make_net([5, 6, 4, 3], negative_slope=slope, add_self_loops=self_loops)
    h = x
    for i, layer in enumerate(m.layers):
        h = naive_layer(layer.W.detach(), layer.a.detach(), h, ei, slope, self_loops)
        if i < len(m.layers) - 1:
            h = torch.relu(h)
    torch.testing.assert_close(m(x, ei), h, rtol=1e-10, atol=1e-12)


def test_shapes_and_attributes():
    m = make_net([7, 5, 3])
    assert tuple(m.layers[0].W.shape) == (5, 7) and tuple(m.layers[0].a.shape) == (5,)
    assert tuple(m.layers[1].W.shape) == (3, 5) and tuple(m.layers[1].a.shape) == (3,)
    assert not any("bias" in n for n, _ in m.named_parameters())


def test_isolated_node_without_self_loops_outputs_zero():
    m = make_net([2, 3], add_self_loops=False)
    x = torch.randn(3, 2, dtype=torch.float64)
    out = m(x, torch.tensor([[0], [1]]))
    assert torch.all(out[0] == 0) and torch.all(out[2] == 0) and torch.any(out[1] != 0)
