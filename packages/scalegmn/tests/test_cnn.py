"""CNN inputs: the CNN's function against a naive convolution loop, channel symmetries by brute
force, the kernel graph, and ScaleGMN invariance / equivariance on CNNs."""

import itertools

import numpy as np
import pytest
import scalegmn as S
import torch
from conftest import gen
from test_model import _naive_embeddings

# conv 3x3 (c0=2 -> 3), conv 1x1 (3 -> 4), GAP, linear (4 -> 3), linear (3 -> 2)
SHAPES = [(3, 2, 3, 3), (4, 3, 1, 1), (3, 4), (2, 3)]
CH = (2, 3, 4, 3, 2)


def random_cnn(shapes=SHAPES, batch=3, seed=0):
    g = gen(seed)
    ws = [torch.randn(batch, *s, generator=g, dtype=torch.float64) for s in shapes]
    bs = [torch.randn(batch, s[0], generator=g, dtype=torch.float64) for s in shapes]
    return ws, bs


def brute_group(ws, bs, kind, seed):
    """Random per-channel factors q (sign or log-uniform positive) and permutations, applied
    by explicit loops over (output channel, input channel) pairs."""
    g = gen(seed)
    B = ws[0].shape[0]
    hidden = [w.shape[1] for w in ws[:-1]]
    if kind == "sign":
        q = [torch.randint(0, 2, (B, d), generator=g).double() * 2 - 1 for d in hidden]
    else:
        q = [
            torch.exp(torch.empty(B, d, dtype=torch.float64).uniform_(-2.3, 2.3, generator=g))
            for d in hidden
        ]
    perms = [torch.stack([torch.randperm(d, generator=g) for _ in range(B)]) for d in hidden]
    ones = lambda d: torch.ones(B, d, dtype=torch.float64)  # noqa: E731
    qa = [ones(ws[0].shape[2]), *q, ones(ws[-1].shape[1])]
    pa = [
        torch.arange(ws[0].shape[2]).expand(B, -1),
        *perms,
        torch.arange(ws[-1].shape[1]).expand(B, -1),
    ]
    new_w, new_b = [], []
    for l, (w, b) in enumerate(zip(ws, bs, strict=True)):
        w2, b2 = torch.empty_like(w), torch.empty_like(b)
        for n in range(B):
            for i in range(w.shape[1]):
                oi = pa[l + 1][n, i]
                b2[n, i] = qa[l + 1][n, oi] * b[n, oi]
                for j in range(w.shape[2]):
                    oj = pa[l][n, j]
                    w2[n, i, j] = qa[l + 1][n, oi] * w[n, oi, oj] / qa[l][n, oj]
        new_w.append(w2)
        new_b.append(b2)
    return new_w, new_b, q, perms


def naive_cnn(ws, bs, x, act, stride=1):
    """One network, one image, numpy loops: stride 1 with 'same' zero padding (stride s > 1:
    padding k // 2 each side), GAP, linear."""
    h = x.numpy()
    for l, (w, b) in enumerate(zip(ws, bs, strict=True)):
        w, b = w.numpy(), b.numpy()
        if w.ndim == 4:
            co, ci, kh, kw = w.shape
            H, W = h.shape[1:]
            pt, pl = ((kh - 1) // 2, (kw - 1) // 2) if stride == 1 else (kh // 2, kw // 2)
            ph, pw = (kh - 1, kw - 1) if stride == 1 else (2 * pt, 2 * pl)
            pad = np.zeros((ci, H + ph, W + pw))
            pad[:, pt : pt + H, pl : pl + W] = h
            Ho, Wo = (H + ph - kh) // stride + 1, (W + pw - kw) // stride + 1
            out = np.zeros((co, Ho, Wo))
            for o, r, c in itertools.product(range(co), range(Ho), range(Wo)):
                r0, c0 = r * stride, c * stride
                out[o, r, c] = (w[o] * pad[:, r0 : r0 + kh, c0 : c0 + kw]).sum() + b[o]
            h = act(out)
        else:
            if h.ndim == 3:
                h = h.mean(axis=(1, 2))
            h = w @ h + b
            if l < len(ws) - 1:
                h = act(h)
    return h


def test_forward_cnn_matches_naive_loops():
    ws, bs = random_cnn(batch=2)
    x = torch.randn(2, 2, 5, 4, generator=gen(1), dtype=torch.float64)
    out = S.forward_cnn(ws, bs, x, activation="tanh")
    assert out.shape == (2, 2, 2)
    for n in range(2):
        for k in range(2):
            ref = naive_cnn([w[n] for w in ws], [b[n] for b in bs], x[k], np.tanh)
            np.testing.assert_allclose(out[n, k].numpy(), ref, rtol=1e-10, atol=1e-12)
    one = S.forward_cnn([w[0] for w in ws], [b[0] for b in bs], x, activation="tanh")
    assert torch.allclose(one, out[0], atol=1e-14)


@pytest.mark.parametrize(("kind", "act"), [("sign", "tanh"), ("positive", "relu")])
def test_channel_symmetries_keep_the_function(kind, act):
    ws, bs = random_cnn()
    x = torch.randn(4, 2, 5, 5, generator=gen(2), dtype=torch.float64)
    w2, b2, q, perms = brute_group(ws, bs, "sign" if kind == "sign" else "scale", 3)
    assert any((a - b).abs().max() > 1e-2 for a, b in zip(ws, w2, strict=True))
    f, f2 = S.forward_cnn(ws, bs, x, activation=act), S.forward_cnn(w2, b2, x, activation=act)
    assert torch.allclose(f, f2, rtol=1e-9, atol=1e-11)
    # the package's transforms give the brute-force result (scale, then permute)
    w3, b3 = S.cnn_apply_scaling(ws, bs, q)
    w3, b3 = S.cnn_apply_permutation(w3, b3, perms)
    for a, b in zip(w2 + b2, w3 + b3, strict=True):
        assert torch.allclose(a, b, rtol=1e-12, atol=1e-14)
    # the wrong symmetry does change the function: sign flips of a ReLU CNN
    if act == "relu":
        w4, b4, _, _ = brute_group(ws, bs, "sign", 4)
        assert (S.forward_cnn(w4, b4, x, activation="relu") - f).abs().max() > 1e-3


def test_cnn_to_graph_kernels_as_edge_features():
    ws, bs = random_cnn(batch=1)
    g = S.cnn_to_graph([w[0] for w in ws], [b[0] for b in bs])
    assert g.layer_dims == CH and g.kernel_size == (3, 3) and g.edge_attr.shape[1] == 9
    V = sum(CH)
    offsets = np.cumsum([0, *CH])
    assert g.num_nodes == V and g.edge_index.shape[1] == sum(a * b for a, b in zip(CH, CH[1:]))
    found = 0
    for k in range(g.edge_index.shape[1]):
        j, i = g.edge_index[:, k].tolist()
        l = int(np.searchsorted(offsets, i, side="right")) - 1
        oi, oj = i - offsets[l], j - offsets[l - 1]
        w = ws[l - 1][0, oi, oj]
        want = torch.zeros(3, 3, dtype=torch.float64)
        if w.ndim == 2 and w.shape == (3, 3):
            want = w
        elif w.ndim == 2:  # 1x1 kernel: centre
            want[1, 1] = w[0, 0]
        else:  # linear weight: centre
            want[1, 1] = w
        assert torch.equal(g.edge_attr[k], want.reshape(-1))
        found += 1
    assert found == g.edge_index.shape[1]
    assert torch.equal(g.x[CH[0] :, 0], torch.cat([b[0] for b in bs]))
    with pytest.raises(ValueError, match="graph"):
        S.graph_to_mlp(g)


def cnn_model(sym, seed=0, **kw):
    torch.manual_seed(seed)
    kw.setdefault("num_layers", 2)
    return S.ScaleGMN(CH, out_dim=3, d_hidden=8, symmetry=sym, kernel_size=3, **kw).double().eval()


@pytest.mark.parametrize(
    ("sym", "bid", "readout"),
    [("sign", False, "last_layer"), ("sign", True, "full_graph"), ("scale", False, "full_graph")],
)
def test_scalegmn_on_cnns_invariant(sym, bid, readout):
    ws, bs = random_cnn()
    m = cnn_model(sym, bidirectional=bid, readout=readout)
    out = m(ws, bs)
    assert out.shape == (3, 3)
    w2, b2, _, _ = brute_group(ws, bs, sym, 5)
    assert ((m(w2, b2) - out).norm() / out.norm()) < 1e-7
    # the permutation-only GMN is not sign invariant on CNNs
    gmn = cnn_model("permutation")
    w3, b3, _, _ = brute_group(ws, bs, "sign", 6)
    o = gmn(ws, bs)
    assert ((gmn(w3, b3) - o).norm() / o.norm()) > 1e-4


@pytest.mark.parametrize("sym", ["scale", "hetero"])  # hetero covers the sign path
def test_cnn_embeddings_equivariant_and_match_naive_loop(sym):
    ws, bs = random_cnn(seed=3)
    m = cnn_model(sym, num_layers=3)
    V = sum(CH)
    mask = torch.rand(3, V, generator=gen(9)) < 0.5 if sym == "hetero" else None
    kw = {"sign_mask": mask} if mask is not None else {}
    xs = m.node_embeddings(ws, bs, **kw)
    naive, _ = _naive_embeddings_cnn(m, ws, bs, mask)
    assert torch.allclose(torch.cat(xs, dim=1)[0], naive, rtol=1e-10, atol=1e-12)
    # channel scalings (no permutation): hidden channels' vectors scale by q_i
    kind = "scale" if sym == "scale" else "sign"
    _, _, q, _ = brute_group(ws, bs, kind, 11)
    if sym == "hetero":
        _, _, qp, _ = brute_group(ws, bs, "scale", 12)
        parts = torch.split(mask, list(CH), dim=1)[1:-1]
        q = [torch.where(p, a, b) for p, a, b in zip(parts, q, qp, strict=True)]
    w2, b2 = S.cnn_apply_scaling(ws, bs, q)
    xs2 = m.node_embeddings(w2, b2, **kw)
    for l in range(len(CH)):
        f = q[l - 1].unsqueeze(-1) if 0 < l < len(CH) - 1 else 1.0
        assert torch.allclose(xs2[l], f * xs[l], rtol=1e-6, atol=1e-9)


def _naive_embeddings_cnn(m, ws, bs, mask):
    """The naive edge loop of test_model on cnn_to_graph of the first network."""
    g = S.cnn_to_graph([w[0] for w in ws], [b[0] for b in bs], kernel_size=3)
    orig = S.mlp_to_graph
    S.mlp_to_graph = lambda *a, **k: g  # the loop reads the graph through mlp_to_graph
    try:
        return _naive_embeddings(m, None, None, None if mask is None else mask[0])
    finally:
        S.mlp_to_graph = orig


def test_mixed_cnns_and_mlps_in_one_batch():
    """CNNs of two kernel sizes and channel counts, and an MLP (1 x 1 kernels), one model."""
    ws1, bs1 = random_cnn(batch=2, seed=1)
    shapes2 = [(5, 2, 1, 1), (3, 5), (2, 3)]  # 1x1 conv, wider; same depth as SHAPES minus one
    ws2, bs2 = random_cnn(shapes2, batch=1, seed=2)
    mw = [torch.randn(3, 2, dtype=torch.float64), torch.randn(2, 3, dtype=torch.float64)]
    mb = [torch.randn(3, dtype=torch.float64), torch.randn(2, dtype=torch.float64)]
    torch.manual_seed(0)
    m = (
        S.ScaleGMN(
            [CH, (2, 5, 3, 2), (2, 3, 2)], out_dim=3, d_hidden=8, num_layers=2, kernel_size=3
        )
        .double()
        .eval()
    )
    out = m([ws1, ws2, mw], [bs1, bs2, mb])
    assert out.shape == (4, 3)
    assert torch.allclose(out[:2], m(ws1, bs1), atol=1e-12)
    assert torch.allclose(out[3:], m(mw, mb), atol=1e-12)
    # each CNN transformed by its own channel sign flips and permutations: invariant
    w2, b2, _, _ = brute_group(ws1, bs1, "sign", 7)
    w3, b3, _, _ = brute_group(ws2, bs2, "sign", 8)
    out2 = m([w2, w3, mw], [b2, b3, mb])
    assert ((out2 - out).norm() / out.norm()) < 1e-7
