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
