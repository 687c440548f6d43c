"""The torch models (extra ``torch``; run by ``nox -s tests_extras``)."""

import numpy as np
import pytest
from _reference import random_graph, random_tree

torch = pytest.importorskip("torch")

from gnn_individualize import ego_nets, individualize, tinhofer  # noqa: E402
from gnn_individualize.data import csl_graph  # noqa: E402
from gnn_individualize.models import EgoNN, GraphConv, GraphConvNet, to_batch  # noqa: E402

torch.set_num_threads(1)  # the machine is shared: small models are faster on one thread

CSL_SKIPS = [2, 3, 4, 5, 6, 9, 11, 12, 13, 16]


def test_graph_conv_is_the_dense_formula():
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    ei = random_graph(rng, 12, 0.3)
    ei = np.concatenate([ei, ei[::-1]], axis=1)
    a = np.zeros((12, 12))
    a[ei[0], ei[1]] = 1.0
    x = torch.randn(12, 5, dtype=torch.float64)
    conv = GraphConv(5, 3).double()
    want = (torch.as_tensor(a).T @ x) @ conv.lin_rel.weight.T + conv.lin_rel.bias
    want = want + x @ conv.lin_root.weight.T
    got = conv(x, torch.as_tensor(ei))
    assert torch.allclose(got, want, atol=1e-12)


@pytest.mark.parametrize("pool", ["sum", "max"])
def test_graph_conv_net_is_invariant_to_node_order_and_batches_graphs(pool):
    torch.manual_seed(1)
    rng = np.random.default_rng(1)
    graphs = [
        (np.concatenate([e, e[::-1]], 1), n)
        for e, n in [(random_graph(rng, 9, 0.3), 9), (random_tree(rng, 7), 7)]
    ]
    feats = [rng.random((n, 2)) for _, n in graphs]
    model = GraphConvNet(2, 16, 3, layers=2, pool=pool).double()
    x, ei, batch = to_batch(graphs, feats, dtype=torch.float64)
    out = model(x, ei, batch)
    assert out.shape == (2, 3)
    for g, ((e, n), f) in enumerate(zip(graphs, feats)):
        alone = model(torch.as_tensor(f), torch.as_tensor(e))
        assert torch.allclose(alone, out[g : g + 1], atol=1e-10)
        perm = rng.permutation(n)
        pf = np.empty_like(f)
        pf[perm] = f
        moved = model(torch.as_tensor(pf), torch.as_tensor(perm[e]))
        assert torch.allclose(moved, alone, atol=1e-10)


def test_max_pool_is_the_maximum_over_nodes():
    torch.manual_seed(2)
    model = GraphConvNet(1, 4, 2, layers=0, pool="max")
    x = torch.tensor([[1.0], [5.0], [-2.0]])
    pooled = model.embed(x, torch.zeros((2, 0), dtype=torch.long), torch.tensor([0, 0, 1]))
    assert pooled.tolist() == [[5.0], [-2.0]]


def _csl_batch(with_ids):
    graphs = [(csl_graph(41, s), 41) for s in CSL_SKIPS]
    if not with_ids:
        return to_batch(graphs)
    ids = individualize(graphs, "tinhofer", bits=6)
    return to_batch(graphs, [np.hstack([np.ones((41, 1)), i]) for i in ids])


def test_csl_graphs_are_indistinguishable_without_identifiers():
    torch.manual_seed(3)
    x, ei, batch = _csl_batch(False)
    emb = GraphConvNet(1, 32, 10, layers=4).embed(x, ei, batch)
    assert (emb - emb[0]).abs().max() <= 1e-5 * emb.abs().max().clamp(min=1)
    x, ei, batch = _csl_batch(True)
    emb = GraphConvNet(7, 32, 10, layers=4).embed(x, ei, batch)
    assert (emb - emb[0]).abs().max() > 1e-2


def test_one_layer_with_tinhofer_fits_csl_classes():
    torch.manual_seed(0)
    x, ei, batch = _csl_batch(True)
    y = torch.arange(10)
    model = GraphConvNet(7, 64, 10, layers=1)
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    for epoch in range(300):
        opt.zero_grad()
        logits = model(x, ei, batch)
        if epoch % 10 == 0 and (logits.argmax(1) == y).all():
            break
        torch.nn.functional.cross_entropy(logits, y).backward()
        opt.step()
    assert (model(x, ei, batch).argmax(1) == y).all()


def _egonn_reference(model, x, ei, n, radius, detach=False):
    """EGONN written ego-net by ego-net, from the model's own weights."""
    zs = []
    for nodes, local in ego_nets(ei.numpy(), n, radius):
        h = torch.cat(
            [
                x[torch.as_tensor(nodes)],
                torch.as_tensor(tinhofer(local, len(nodes), bits=model.bits), dtype=x.dtype),
            ],
            1,
        )
        le = torch.as_tensor(local)
        for conv in model.convs:
            agg = torch.zeros_like(h)
            for a, b in le.T.tolist():
                agg[b] += h[a]
            h = (conv.lin_rel(agg) + conv.lin_root(h)).relu()
        zs.append(model.down(h).sum(0))
    z = torch.stack(zs)
    alpha = torch.softmax(z.detach() if detach else z, dim=0)
    return model.mlp((alpha * z).sum(0, keepdim=True))


def _graph_input(seed, n, p, width):
    """A seeded random graph (both directions) and float64 features [n, width]."""
    torch.manual_seed(seed)
    e = random_graph(np.random.default_rng(seed), n, p)
    ei = torch.as_tensor(np.concatenate([e, e[::-1]], axis=1))
    return ei, torch.randn(n, width, dtype=torch.float64)


def test_egonn_matches_an_ego_net_by_ego_net_reference():
    ei, x = _graph_input(4, 14, 0.25, 2)
    model = EgoNN(2, 8, 3, 2, layers=2, bits=4).double()
    got = model(x, ei)
    want = _egonn_reference(model, x, ei, 14, radius=2)
    assert torch.allclose(got, want, atol=1e-10)
    eg = model.egos(ei, 14)
    assert torch.allclose(model(x, ei, egos=eg), got, atol=1e-12)


def test_egonn_batches_graphs_and_is_invariant_on_trees():
    torch.manual_seed(5)
    rng = np.random.default_rng(5)
    trees = [
        (np.concatenate([t, t[::-1]], 1), n)
        for t, n in [(random_tree(rng, 10), 10), (random_tree(rng, 13), 13)]
    ]
    model = EgoNN(1, 16, 2, 3, layers=2).double()
    x, ei, batch = to_batch(trees, dtype=torch.float64)
    out = model(x, ei, batch)
    assert out.shape == (2, 3)
    for g, (e, n) in enumerate(trees):
        perm = rng.permutation(n)
        moved = model(torch.ones(n, 1, dtype=torch.float64), torch.as_tensor(perm[e]))
        assert torch.allclose(moved, out[g : g + 1], atol=1e-9)


def test_softmax_aggregation_weights_carry_no_gradient():
    ei, x = _graph_input(6, 10, 0.3, 1)
    model = EgoNN(1, 16, 2, 3, layers=1, bits=3).double()
    grads = []
    for detach in (None, True, False):
        model.zero_grad()
        out = model(x, ei) if detach is None else _egonn_reference(model, x, ei, 10, 1, detach)
        (out**2).sum().backward()
        grads.append(torch.cat([p.grad.flatten() for p in model.parameters()]))
    assert grads[0].abs().max() > 1e-3
    assert torch.allclose(grads[0], grads[1], atol=1e-10)  # semi-gradient, as torch-geometric's
    assert not torch.allclose(grads[0], grads[2], atol=1e-6)  # differs from the full gradient


def test_numpy_api_accepts_torch_edge_index():
    from gnn_individualize import color_refinement, tinhofer_order

    e = csl_graph(13, 3)
    t = torch.as_tensor(e)
    assert color_refinement(t, 13).tolist() == color_refinement(e, 13).tolist()
    assert tinhofer_order(t, 13, labels=torch.zeros(13)).tolist() == tinhofer_order(e, 13).tolist()
