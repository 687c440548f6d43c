"""ScaleGMN: exact invariance / equivariance under the symmetry groups, and the dense
message passing against a naive loop over the edges of the neuron graph."""

import pytest
import scalegmn as S
import torch
from conftest import DIMS, gen, model, random_mlp

CONFIGS = [
    (sym, bid, ro)
    for sym in ("sign", "scale", "hetero")
    for bid in (False, True)
    for ro in ("last_layer", "full_graph")
]


def group_element(sym, ws, bs, seed, sign_mask=None):
    """Random scaling of the model's symmetry group plus random hidden permutations, with the
    factors q (per hidden layer, [B, d_l]) and the permutations."""
    if sym == "sign":
        _, _, q = S.random_scaling(ws, bs, kind="sign", generator=gen(seed))
    elif sym == "scale":
        _, _, q = S.random_scaling(ws, bs, kind="positive", generator=gen(seed))
    else:  # hetero: per neuron, sign where sign_mask, positive elsewhere
        _, _, qs = S.random_scaling(ws, bs, kind="sign", generator=gen(seed))
        _, _, qp = S.random_scaling(ws, bs, kind="positive", generator=gen(seed + 1))
        masks = torch.split(sign_mask, list(DIMS), dim=1)[1:-1]
        q = [torch.where(m, a, b) for m, a, b in zip(masks, qs, qp, strict=True)]
    w2, b2 = S.apply_scaling(ws, bs, q)
    w3, b3, perms = S.random_permutation(w2, b2, generator=gen(seed + 2))
    return w3, b3, q, perms


def permute_mask(mask, perms):
    """A per-neuron sign_mask follows the neurons."""
    parts = list(torch.split(mask, list(DIMS), dim=1))
    for l, p in enumerate(perms, start=1):
        parts[l] = torch.gather(parts[l], 1, p)
    return torch.cat(parts, dim=1)


def hetero_mask(per_node):
    if per_node:
        return torch.rand(3, sum(DIMS), generator=gen(5)) < 0.5
    return torch.tensor([True, False, True]).unsqueeze(1).expand(3, sum(DIMS))


@pytest.mark.parametrize(("sym", "bid", "readout"), CONFIGS)
def test_outputs_invariant(sym, bid, readout):
    ws, bs = random_mlp()
    m = model(sym, bidirectional=bid, readout=readout)
    node_mask = hetero_mask(per_node=True) if sym == "hetero" else None
    kw = {"sign_mask": node_mask} if sym == "hetero" else {}
    out = m(ws, bs, **kw)
    assert out.shape == (3, 3)
    for seed in (1, 2):
        w2, b2, _, perms = group_element(sym, ws, bs, seed, node_mask)
        kw2 = {"sign_mask": permute_mask(node_mask, perms)} if sym == "hetero" else {}
        out2 = m(w2, b2, **kw2)
        # not exact to 1e-15 for "scale": x / (|x| + 1e-10) (the authors' eps)
        assert ((out2 - out).norm() / out.norm()) < 1e-7
        # the transformation is not trivial: the weights did change
        assert any((a - b).abs().max() > 1e-3 for a, b in zip(ws, w2, strict=True))


def test_hetero_per_network_mask():
    ws, bs = random_mlp()
    m = model("hetero")
    net = torch.tensor([True, False, True])
    out = m(ws, bs, sign_mask=net)
    w2, b2, _, _ = group_element("hetero", ws, bs, 3, hetero_mask(per_node=False))
    assert torch.allclose(m(w2, b2, sign_mask=net), out, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize(
    ("sym", "bid"), [("sign", False), ("scale", False), ("sign", True), ("scale", True)]
)
def test_non_invariance_is_detected(sym, bid):
    """A permutation-only GMN changes under sign flips; a sign model changes under positive
    scalings: the invariance tests above could fail."""
    ws, bs = random_mlp()
    gmn = model("permutation", bidirectional=bid)
    w2, b2, _ = S.random_scaling(ws, bs, kind="sign", generator=gen(1))
    out = gmn(ws, bs)
    # untrained outputs move little; any change far above the 1e-7 invariance tolerance counts
    assert ((gmn(w2, b2) - out).norm() / out.norm()) > 1e-4
    # permutations alone leave the GMN unchanged
    w3, b3, _ = S.random_permutation(ws, bs, generator=gen(2))
    assert torch.allclose(gmn(w3, b3), out, rtol=1e-9, atol=1e-12)
    other = "scale" if sym == "sign" else "sign"
    m = model(other, bidirectional=bid)
    kind = "positive" if sym == "scale" else "sign"
    w4, b4, _ = S.random_scaling(ws, bs, kind=kind, generator=gen(4))
    o = m(ws, bs)
    assert ((m(w4, b4) - o).norm() / o.norm()) > 1e-5


@pytest.mark.parametrize(
    ("sym", "bid"), [(s, b) for s in ("sign", "scale", "hetero") for b in (False, True)]
)
def test_node_and_edge_embeddings_equivariant(sym, bid):
    ws, bs = random_mlp()
    m = model(sym, bidirectional=bid, num_layers=3)
    mask = hetero_mask(per_node=True) if sym == "hetero" else None
    kw = {"sign_mask": mask} if sym == "hetero" else {}
    xs = m.node_embeddings(ws, bs, **kw)
    es = m.edge_embeddings(ws, bs, **kw)
    assert [tuple(x.shape) for x in xs] == [(3, d, 8) for d in DIMS]
    assert [tuple(e.shape) for e in es] == [(3, DIMS[l], DIMS[l - 1], 8) for l in range(1, 4)]
    # scaling only: hidden vectors scale by q_i, edges by q_i / q_j, I/O vectors unchanged
    _, _, q, _ = group_element(sym, ws, bs, 7, mask)
    w2, b2 = S.apply_scaling(ws, bs, q)
    xs2 = m.node_embeddings(w2, b2, **kw)
    es2 = m.edge_embeddings(w2, b2, **kw)
    ones = [
        torch.ones(3, DIMS[0], dtype=torch.float64),
        *q,
        torch.ones(3, DIMS[-1], dtype=torch.float64),
    ]
    for l in range(len(DIMS)):
        assert torch.allclose(xs2[l], ones[l].unsqueeze(-1) * xs[l], rtol=1e-6, atol=1e-9)
    for l in range(1, len(DIMS)):
        ratio = ones[l].unsqueeze(-1) / ones[l - 1].unsqueeze(-2)
        # eps 1e-10 of x / (|x| + eps) limits "scale" to ~1e-8 relative
        assert torch.allclose(es2[l - 1], ratio.unsqueeze(-1) * es[l - 1], rtol=1e-6, atol=1e-9)
    # permutations: new hidden neuron k carries old neuron perm[k]'s vector
    w3, b3, perms = S.random_permutation(ws, bs, generator=gen(8))
    kw3 = {"sign_mask": permute_mask(mask, perms)} if sym == "hetero" else kw
    xs3 = m.node_embeddings(w3, b3, **kw3)
    for l, p in enumerate(perms, start=1):
        want = torch.gather(xs[l], 1, p.unsqueeze(-1).expand_as(xs[l]))
        assert torch.allclose(xs3[l], want, rtol=1e-9, atol=1e-12)
    assert torch.allclose(xs3[0], xs[0], rtol=1e-9, atol=1e-12)
    assert torch.allclose(xs3[-1], xs[-1], rtol=1e-9, atol=1e-12)


def _naive_embeddings(m, ws, bs, sign_mask=None):
    """Message passing by loops over the nodes and edges of mlp_to_graph (one network)."""
    g = S.mlp_to_graph(ws, bs, num_hidden=m.num_hidden)
    V, E = g.num_nodes, g.edge_index.shape[1]
    L = len(g.layer_dims) - 1
    perm = m.symmetry == "permutation"
    sg = [None] * V if sign_mask is None else [sign_mask[v : v + 1] for v in range(V)]
    hidden = [bool(h) for h in g.hidden_mask]
    x = []
    for v in range(V):
        h = m.proj_node(g.x[v])
        pe = m.node_pe[g.node_type[v]]
        x.append(h * pe if (hidden[v] and not perm) else h + pe)
    e, bw = [], []
    for k in range(E):
        h = m.proj_edge(g.edge_attr[k])
        pe = m.edge_pe[g.edge_type[k]]
        e.append(h + pe if perm else h * pe)
        if m.reciprocal:
            bw.append(m.proj_bw_edge(1.0 / g.edge_attr[k]) * m.bw_edge_pe[g.edge_type[k]])
    if not m.reciprocal:
        bw = e
    src = g.edge_index[0].tolist()
    dst = g.edge_index[1].tolist()
    for layer, skip in zip(m.layers, m.skips, strict=True):
        agg = [torch.zeros_like(x[0]) for _ in range(V)]
        bagg = [torch.zeros_like(x[0]) for _ in range(V)]
        for k in range(E):
            i, j = dst[k], src[k]
            agg[i] = agg[i] + layer.message(e[k], x[j], hidden=hidden[i], sign_mask=sg[i])
            if m.bidirectional:
                bagg[j] = bagg[j] + layer.bw_message(bw[k], x[i], hidden=hidden[j], sign_mask=sg[j])
        parts = [[x[v], agg[v]] + ([bagg[v]] if m.bidirectional else []) for v in range(V)]
        new = [
            layer.update_node(torch.cat(parts[v]), hidden=hidden[v], sign_mask=sg[v])
            for v in range(V)
        ]
        if layer.update_edges:
            ne = [
                layer.edge_update(
                    e[k], x[src[k]], x[dst[k]], src_sign=sg[src[k]], dst_sign=sg[dst[k]]
                )
                for k in range(E)
            ]
            if m.bidirectional and hasattr(layer, "bw_edge_update"):
                bw = [
                    layer.bw_edge_update(
                        bw[k], x[dst[k]], x[src[k]], src_sign=sg[dst[k]], dst_sign=sg[src[k]]
                    )
                    for k in range(E)
                ]
            elif m.bidirectional:
                bw = ne
            e = ne
        x = [skip(x[v]) + new[v] for v in range(V)]
    return torch.stack(x), L


@pytest.mark.parametrize(
    ("sym", "bid"),
    [
        ("sign", False),
        ("scale", True),
        ("hetero", True),
        ("permutation", False),
        ("permutation", True),
    ],
)
def test_dense_layers_match_naive_edge_loop(sym, bid):
    ws, bs = random_mlp(batch=1, seed=4)
    m = model(sym, bidirectional=bid, num_layers=3)
    one_w, one_b = [w[0] for w in ws], [b[0] for b in bs]
    mask = torch.rand(sum(DIMS), generator=gen(9)) < 0.5
    kw = {"sign_mask": mask.unsqueeze(0)} if sym == "hetero" else {}
    naive, _ = _naive_embeddings(m, one_w, one_b, mask if sym == "hetero" else None)
    dense = torch.cat(m.node_embeddings(ws, bs, **kw), dim=1)[0]
    assert torch.allclose(dense, naive, rtol=1e-10, atol=1e-12)


def test_forward_is_readout_of_node_embeddings():
    ws, bs = random_mlp()
    for ro in ("last_layer", "full_graph"):
        m = model("sign", readout=ro)
        xs = m.node_embeddings(ws, bs)
        assert torch.allclose(m(ws, bs), m.readout_fn(xs), atol=1e-12)
        # last_layer readout: an MLP of the flattened output-neuron vectors
        if ro == "last_layer":
            assert torch.allclose(m(ws, bs), m.head(xs[-1].reshape(3, -1)), atol=1e-12)


def test_unbatched_input_and_float32():
    ws, bs = random_mlp(dtype=torch.float32)
    torch.manual_seed(0)
    m = S.ScaleGMN(DIMS, out_dim=2, d_hidden=8, num_layers=2)
    out = m([w[0] for w in ws], [b[0] for b in bs])
    assert out.shape == (1, 2)
    assert torch.allclose(out[0], m(ws, bs)[0], atol=1e-5)
    assert sum(p.numel() for p in m.parameters()) > 0


def test_gradients_flow_to_every_parameter():
    ws, bs = random_mlp()
    # full_graph readout: with last_layer, the last layer's hidden-node branch feeds nothing
    m = model("sign", bidirectional=True, readout="full_graph")
    m(ws, bs).sum().backward()
    unused = [n for n, p in m.named_parameters() if p.grad is None]
    assert unused == []


# ---------------------------------------------------------------- mixed layouts in one batch
LAYOUTS = [(2, 4, 3, 1), (2, 5, 1), (2, 3, 2, 3, 1)]


def mixed_networks(seed=0):
    """Five networks of three layouts, some batched, some unbatched."""
    nets = []
    for k, (dims, batch) in enumerate(
        [(LAYOUTS[0], 2), (LAYOUTS[1], None), (LAYOUTS[2], 3), (LAYOUTS[0], None), (LAYOUTS[1], 2)]
    ):
        ws, bs = random_mlp(dims, batch=batch or 1, seed=seed + k)
        if batch is None:
            ws, bs = [w[0] for w in ws], [b[0] for b in bs]
        nets.append((ws, bs))
    return [n[0] for n in nets], [n[1] for n in nets]


def _batched(ws, bs):
    if ws[0].ndim == 2:
        return [w.unsqueeze(0) for w in ws], [b.unsqueeze(0) for b in bs]
    return ws, bs


def _mixed_group(sym, ws, bs, seed, mask):
    """group_element for any layout: scaling of the symmetry group, then permutations."""
    kind = {"sign": "sign", "scale": "positive"}.get(sym)
    if kind is not None:
        _, _, q = S.random_scaling(ws, bs, kind=kind, generator=gen(seed))
    else:
        _, _, qs = S.random_scaling(ws, bs, kind="sign", generator=gen(seed))
        _, _, qp = S.random_scaling(ws, bs, kind="positive", generator=gen(seed + 1))
        dims = [ws[0].shape[-1], *(w.shape[-2] for w in ws)]
        masks = torch.split(mask, dims, dim=1)[1:-1]
        q = [torch.where(mk, a, b) for mk, a, b in zip(masks, qs, qp, strict=True)]
    w2, b2 = S.apply_scaling(ws, bs, q)
    w3, b3, perms = S.random_permutation(w2, b2, generator=gen(seed + 2))
    new_mask = None
    if mask is not None:
        dims = [ws[0].shape[-1], *(w.shape[-2] for w in ws)]
        parts = list(torch.split(mask, dims, dim=1))
        for l, p in enumerate(perms, start=1):
            parts[l] = torch.gather(parts[l], 1, p)
        new_mask = torch.cat(parts, dim=1)
    return w3, b3, q, new_mask


def _masks(ws_list):
    out = []
    for k, ws in enumerate(ws_list):
        b = ws[0].shape[0] if ws[0].ndim == 3 else 1
        V = ws[0].shape[-1] + sum(w.shape[-2] for w in ws)
        out.append(torch.rand(b, V, generator=gen(20 + k)) < 0.5)
    return out


@pytest.mark.parametrize(
    ("sym", "bid", "readout"),
    [("sign", False, "last_layer"), ("scale", True, "full_graph"), ("hetero", False, "full_graph")],
)
def test_mixed_layouts_match_networks_alone_and_are_invariant(sym, bid, readout):
    ws_list, bs_list = mixed_networks()
    m = model(sym, dims=LAYOUTS, bidirectional=bid, readout=readout)
    assert m.layouts == tuple(LAYOUTS) and m.num_hidden == 3
    masks = _masks(ws_list) if sym == "hetero" else None
    kw = {"sign_mask": masks} if masks is not None else {}
    out = m(ws_list, bs_list, **kw)
    assert out.shape == (2 + 1 + 3 + 1 + 2, 3)
    # every network's rows are what the network gets alone (grouping changes nothing)
    start = 0
    for k, (ws, bs) in enumerate(zip(ws_list, bs_list, strict=True)):
        w1, b1 = _batched(ws, bs)
        kw1 = {"sign_mask": masks[k]} if masks is not None else {}
        alone = m(w1, b1, **kw1)
        assert torch.allclose(out[start : start + len(alone)], alone, rtol=1e-10, atol=1e-12)
        start += len(alone)
    # invariance: each network transformed by its own group element
    new_w, new_b, new_m = [], [], []
    for k, (ws, bs) in enumerate(zip(ws_list, bs_list, strict=True)):
        w1, b1 = _batched(ws, bs)
        w3, b3, _, mk = _mixed_group(sym, w1, b1, 30 + k, None if masks is None else masks[k])
        new_w.append(w3)
        new_b.append(b3)
        new_m.append(mk)
    kw2 = {"sign_mask": new_m} if masks is not None else {}
    out2 = m(new_w, new_b, **kw2)
    assert ((out2 - out).norm() / out.norm()) < 1e-7
    # and a permutation-only GMN on the same mixed batch is not sign invariant
    if sym == "sign":
        gmn = model("permutation", dims=LAYOUTS)
        flips = [
            S.random_scaling(*_batched(w, b), kind="sign", generator=gen(40 + k))[:2]
            for k, (w, b) in enumerate(zip(ws_list, bs_list, strict=True))
        ]
        o = gmn(ws_list, bs_list)
        o2 = gmn([f[0] for f in flips], [f[1] for f in flips])
        assert ((o2 - o).norm() / o.norm()) > 1e-4


# "hetero" covers the sign path (symmetrisation) and the positive-scale path per neuron
@pytest.mark.parametrize("sym", ["scale", "hetero"])
def test_mixed_layouts_naive_reference_and_equivariance(sym):
    ws_list, bs_list = mixed_networks(seed=5)
    m = model(sym, dims=LAYOUTS, bidirectional=sym == "scale", num_layers=3)
    masks = _masks(ws_list) if sym == "hetero" else None
    kw = {"sign_mask": masks} if masks is not None else {}
    emb = m.node_embeddings(ws_list, bs_list, **kw)
    assert len(emb) == len(ws_list)
    for k in (1, 2):  # an unbatched 1-hidden-layer net, a batched 3-hidden-layer net
        w1, b1 = _batched(ws_list[k], bs_list[k])
        one_w, one_b = [w[0] for w in w1], [b[0] for b in b1]
        naive, _ = _naive_embeddings(m, one_w, one_b, None if masks is None else masks[k][0])
        assert torch.allclose(torch.cat(emb[k], dim=1)[0], naive, rtol=1e-10, atol=1e-12)
    # hidden-neuron vectors scale by q_i, per network, inside the mixed batch
    scaled_w, scaled_b, qs = [], [], []
    for k, (ws, bs) in enumerate(zip(ws_list, bs_list, strict=True)):
        w1, b1 = _batched(ws, bs)
        _, _, q, _ = _mixed_group(sym, w1, b1, 50 + k, None if masks is None else masks[k])
        w2, b2 = S.apply_scaling(w1, b1, q)
        scaled_w.append(w2)
        scaled_b.append(b2)
        qs.append(q)
    emb2 = m.node_embeddings(scaled_w, scaled_b, **kw)
    for k in range(len(ws_list)):
        L = len(emb[k]) - 1
        for l in range(L + 1):
            f = qs[k][l - 1].unsqueeze(-1) if 0 < l < L else 1.0
            assert torch.allclose(emb2[k][l], f * emb[k][l], rtol=1e-6, atol=1e-9)


def test_single_layout_model_unchanged_by_layout_list():
    """A model built for one layout is a model built for a list holding only it."""
    ws, bs = random_mlp()
    a = model("sign")
    b = model("sign", dims=[DIMS])
    assert a.layer_dims == DIMS and b.layer_dims == DIMS
    assert torch.allclose(a(ws, bs), b(ws, bs), atol=0)
