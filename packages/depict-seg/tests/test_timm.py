"""The timm extra on a real timm ViT (random init, no weights): its patch tokens feed DEPICT."""

import depict_seg as ds
import pytest
import torch
import torch.nn.functional as F

from papershelf_harness.testing import assert_close

timm = pytest.importorskip("timm")

KW = dict(pretrained=False, img_size=32, patch_size=8, embed_dim=48, depth=2, num_heads=3)


@pytest.mark.parametrize("reg_tokens", [0, 4])
def test_timm_vit_tokens_feed_depict(reg_tokens):
    torch.manual_seed(0)
    enc = ds.TimmPatchTokens.from_name("vit_tiny_patch16_224", reg_tokens=reg_tokens, **KW)
    assert (enc.patch_size, enc.dim, enc.num_prefix_tokens) == (8, 48, 1 + reg_tokens)
    im = torch.randn(2, 3, 32, 32)
    tokens = enc(im)
    assert tokens.shape == (2, 16, 48)  # class and register tokens dropped
    assert_close(tokens, enc.model.forward_features(im)[:, 1 + reg_tokens :])
    for mode in ("sa", "ca"):
        dec = ds.DepictDecoder(5, patch_size=enc.patch_size, d_model=enc.dim, mode=mode)
        model = ds.SegmentationModel(enc, dec)
        out = model(im)
        assert out.shape == (2, 5, 32, 32)
        F.cross_entropy(out, torch.randint(0, 5, (2, 32, 32))).backward()
        assert enc.model.patch_embed.proj.weight.grad is not None
        enc.zero_grad()


def test_wrapping_a_built_timm_model():
    model = timm.create_model("vit_tiny_patch16_224", **KW)
    enc = ds.TimmPatchTokens(model)
    assert enc(torch.randn(1, 3, 32, 32)).shape == (1, 16, 48)


def test_baseline_block_matches_timm_block():
    """The Segmenter baseline's block equals timm's ViT Block given the same weights."""
    from timm.models.vision_transformer import Block

    torch.manual_seed(1)
    d, h = 24, 3
    # Segmenter (and this package) use torch's LayerNorm eps 1e-5; timm's default is 1e-6
    ref = Block(d, h, mlp_ratio=4.0, qkv_bias=True, norm_layer=torch.nn.LayerNorm).eval()
    ours = ds.TransformerBlock(d, heads=h).eval()
    with torch.no_grad():
        for mod in (ref.norm1, ref.norm2):
            mod.weight.uniform_(0.5, 1.5)
            mod.bias.normal_()
        ours.norm1.load_state_dict(ref.norm1.state_dict())
        ours.norm2.load_state_dict(ref.norm2.state_dict())
        ours.attn.q.weight.copy_(ref.attn.qkv.weight[:d])
        ours.attn.q.bias.copy_(ref.attn.qkv.bias[:d])
        ours.attn.kv.weight.copy_(ref.attn.qkv.weight[d:])
        ours.attn.kv.bias.copy_(ref.attn.qkv.bias[d:])
        ours.attn.proj.load_state_dict(ref.attn.proj.state_dict())
        ours.mlp[0].load_state_dict(ref.mlp.fc1.state_dict())
        ours.mlp[3].load_state_dict(ref.mlp.fc2.state_dict())
        x = torch.randn(2, 10, d, dtype=torch.float64)
        assert_close(ours.double()(x), ref.double()(x), rtol=1e-10, atol=1e-12)
