"""DepictDecoder / SegmenterMaskTransformer: exact parameter counts, layout, and a naive forward."""

import depict_seg as ds
import pytest
import torch
import torch.nn.functional as F

from papershelf_harness.testing import assert_close


def n_params(m):
    return sum(p.numel() for p in m.parameters())


def depict_count(L, h, dh, d, K, mode="sa", ca_layers=3, ca_dh=50):
    n = L * (h * dh * d + 2 * d + 1) + 2 * d + K * d + 2 * K
    if mode == "ca":
        n += ca_layers * (h * ca_dh * d + 2 * d + 1) + 2 * d
    return n


CONFIGS = [(3, 3, 100, 64, 4), (1, 1, 1, 1, 1), (2, 4, 16, 48, 150), (5, 2, 7, 33, 19)]


@pytest.mark.parametrize("L,h,dh,d,K", CONFIGS)
def test_depict_parameter_count_is_the_closed_form(L, h, dh, d, K):
    sa = ds.DepictDecoder(K, patch_size=16, d_model=d, n_layers=L, n_heads=h, dim_head=dh)
    assert n_params(sa) == depict_count(L, h, dh, d, K)
    for ca_layers, ca_dh in ((3, 50), (2, 9)):
        ca = ds.DepictDecoder(
            K,
            patch_size=16,
            d_model=d,
            n_layers=L,
            n_heads=h,
            dim_head=dh,
            mode="ca",
            ca_layers=ca_layers,
            ca_dim_head=ca_dh,
        )
        assert n_params(ca) == depict_count(L, h, dh, d, K, "ca", ca_layers, ca_dh)


def test_depict_defaults():
    dec = ds.DepictDecoder(150, patch_size=16, d_model=384)
    assert (dec.n_layers, dec.n_heads, dec.dim_head, dec.mode) == (3, 3, 100, "sa")
    assert n_params(dec) == depict_count(3, 3, 100, 384, 150)
    assert dec.no_weight_decay() == {"cls_emb"}
    # class embeddings: trunc_normal_(std=0.02) as the original (timm's cut at +-2, absolute)
    big = ds.DepictDecoder(2000, patch_size=16, d_model=100)
    std = big.cls_emb.detach().double().std().item()
    assert abs(std - 0.02) < 4 * 0.02 / (2 * 200_000) ** 0.5


def segmenter_count(L, h, d, K, d_ff=None):
    d_ff = 4 * d if d_ff is None else d_ff
    inner = h * (d // h)
    attn = d * inner + inner + 2 * d * inner + 2 * inner + inner * d + d
    mlp = d * d_ff + d_ff + d_ff * d + d
    block = attn + mlp + 4 * d
    return L * block + (d * d + d) + 2 * d * d + 2 * d + K * d + 2 * K


@pytest.mark.parametrize("L,h,d,K", [(3, 3, 64, 4), (2, 4, 32, 7), (1, 1, 8, 2)])
def test_segmenter_parameter_count(L, h, d, K):
    seg = ds.SegmenterMaskTransformer(K, patch_size=8, d_model=d, n_layers=L, n_heads=h)
    assert n_params(seg) == segmenter_count(L, h, d, K)


def test_depict_is_smaller_than_segmenter_at_d64():
    sa = ds.DepictDecoder(4, patch_size=4, d_model=64)
    seg = ds.SegmenterMaskTransformer(4, patch_size=4, d_model=64)
    assert n_params(seg) / n_params(sa) >= 2.6  # 12 d^2 vs h d_h d = 300 d per layer


def naive_sa(dec, tokens, gh, gw):
    """The SA decoder written out from the parameters, layer by layer."""
    B, K = tokens.shape[0], dec.n_cls
    x = torch.cat([tokens, dec.cls_emb.expand(B, -1, -1)], 1)
    for layer in dec.net.layers:
        y = F.layer_norm(x, x.shape[-1:], layer.norm.weight, layer.norm.bias)
        x = x + layer.attn(y)
    x = F.layer_norm(x, x.shape[-1:], dec.decoder_norm.weight, dec.decoder_norm.bias)
    p, c = x[:, :-K], x[:, -K:]
    cos = (p / p.norm(dim=-1, keepdim=True)) @ (c / c.norm(dim=-1, keepdim=True)).transpose(1, 2)
    logits = F.layer_norm(cos, (K,), dec.mask_norm.weight, dec.mask_norm.bias)
    out = torch.empty(B, K, gh, gw, dtype=tokens.dtype)
    for r in range(gh):
        for s in range(gw):
            out[:, :, r, s] = logits[:, r * gw + s]  # row-major patch grid
    return out, cos


def naive_ca(dec, tokens):
    x = tokens
    for layer in dec.snet.layers:
        x = x + layer.attn(layer.norm(x))
    x = dec.snorm(x)
    q = dec.cls_emb.expand(tokens.shape[0], -1, -1)
    for layer in dec.cnet.layers:
        q = q + layer.attn(layer.norm(x), query=q)
    q = dec.cnorm(q)
    cos = F.normalize(x, dim=-1) @ F.normalize(q, dim=-1).transpose(1, 2)
    return dec.mask_norm(cos)


def _randomise_norms(dec):
    with torch.no_grad():
        for m in dec.modules():
            if isinstance(m, torch.nn.LayerNorm):
                m.weight.uniform_(0.5, 1.5)
                m.bias.normal_(0, 0.3)


def test_sa_forward_matches_naive_and_grid_layout():
    torch.manual_seed(0)
    dec = ds.DepictDecoder(5, patch_size=4, d_model=12, n_layers=2, n_heads=2, dim_head=6).double()
    _randomise_norms(dec)
    tokens = torch.randn(3, 6, 12, dtype=torch.float64)  # 2 x 3 grid for im_size (8, 12)
    out = dec(tokens, im_size=(8, 12))
    ref, cos = naive_sa(dec, tokens, 2, 3)
    assert out.shape == (3, 5, 2, 3)
    assert_close(out, ref, rtol=1e-10, atol=1e-12)
    assert cos.abs().max() <= 1 + 1e-12
    assert_close(dec.cosine_masks(tokens), cos, rtol=1e-10, atol=1e-12)


def test_ca_forward_matches_naive():
    torch.manual_seed(1)
    dec = ds.DepictDecoder(
        3,
        patch_size=2,
        d_model=10,
        n_layers=2,
        n_heads=2,
        dim_head=5,
        mode="ca",
        ca_layers=2,
        ca_dim_head=3,
    ).double()
    _randomise_norms(dec)
    tokens = torch.randn(2, 16, 10, dtype=torch.float64)
    out = dec(tokens, im_size=(8, 8))
    ref = naive_ca(dec, tokens).transpose(1, 2).reshape(2, 3, 4, 4)
    assert_close(out, ref, rtol=1e-10, atol=1e-12)
    # square grid inferred without im_size
    assert_close(dec(tokens), out)


@pytest.mark.parametrize("mode", ["sa", "ca"])
def test_segmenter_shapes_and_mask_range(mode):
    torch.manual_seed(2)
    seg = ds.SegmenterMaskTransformer(4, patch_size=4, d_model=16, n_heads=2, mode=mode)
    tokens = torch.randn(2, 8, 16)
    assert seg(tokens, im_size=(8, 16)).shape == (2, 4, 2, 4)
    cos = seg.cosine_masks(tokens)
    assert cos.shape == (2, 8, 4) and cos.abs().max() <= 1 + 1e-6
    # the mask LayerNorm over K: each pixel's logits have mean ~0 at init (weight 1, bias 0)
    assert_close(seg(tokens, im_size=(8, 16)).mean(1), torch.zeros(2, 2, 4), atol=1e-5)


def test_grid_mismatch_names_im_size():
    dec = ds.DepictDecoder(2, patch_size=4, d_model=8, dim_head=4)
    with pytest.raises(ValueError, match="im_size"):
        dec(torch.randn(1, 6, 8), im_size=(8, 8))
    with pytest.raises(ValueError, match="im_size"):
        dec(torch.randn(1, 6, 8))


def test_decoder_trains_on_a_toy_problem():
    """Two-class toy: patch tokens carry the class in a random direction; a few Adam steps fit it."""
    from depict_seg._optim import Adam

    torch.manual_seed(3)
    d, n = 16, 16
    direction = torch.randn(d)
    labels = torch.randint(0, 2, (8, n))
    tokens = torch.randn(8, n, d) * 0.3 + (2 * labels[..., None] - 1) * direction
    dec = ds.DepictDecoder(2, patch_size=1, d_model=d, n_layers=1, n_heads=2, dim_head=4)
    opt = Adam(dec.parameters(), lr=1e-2)
    for _ in range(60):
        logits = dec(tokens, im_size=(4, 4)).flatten(2)
        loss = F.cross_entropy(logits, labels)
        opt.zero_grad()
        loss.backward()
        opt.step()
    acc = (dec(tokens, im_size=(4, 4)).flatten(2).argmax(1) == labels).float().mean()
    assert acc > 0.95
