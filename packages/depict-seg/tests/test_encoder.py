"""TinyViTEncoder and SegmentationModel (padding, upsampling, cropping)."""

import depict_seg as ds
import torch
import torch.nn.functional as F

from papershelf_harness.testing import assert_close


class ConvEncoder(torch.nn.Module):
    """Any module with a patch_size that maps images to patch tokens."""

    patch_size = 4

    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 8, 4, stride=4)

    def forward(self, im):
        return self.conv(im).flatten(2).transpose(1, 2)


def test_tiny_vit_tokens():
    torch.manual_seed(0)
    enc = ds.TinyViTEncoder(image_size=16, patch_size=4, dim=24, depth=1, heads=2)
    assert enc(torch.randn(2, 3, 16, 16)).shape == (2, 16, 24)


def test_segmentation_model_upsamples_and_crops():
    torch.manual_seed(1)
    enc = ConvEncoder()
    dec = ds.DepictDecoder(3, patch_size=4, d_model=8, n_heads=2, dim_head=4)
    model = ds.SegmentationModel(enc, dec)
    im = torch.randn(2, 3, 10, 13)  # padded to 12 x 16: a 3 x 4 grid
    out = model(im)
    assert out.shape == (2, 3, 10, 13)
    padded = F.pad(im, (0, 3, 0, 2))
    ref = F.interpolate(dec(enc(padded), (12, 16)), size=(12, 16), mode="bilinear")
    assert_close(out, ref[:, :, :10, :13], rtol=1e-6, atol=1e-7)
    assert model.no_weight_decay() == {"decoder.cls_emb"}


def test_end_to_end_backward_reaches_encoder():
    torch.manual_seed(2)
    enc = ds.TinyViTEncoder(image_size=8, patch_size=4, dim=16, depth=1, heads=2)
    model = ds.SegmentationModel(
        enc, ds.SegmenterMaskTransformer(2, patch_size=4, d_model=16, n_heads=2)
    )
    loss = F.cross_entropy(model(torch.randn(2, 3, 8, 8)), torch.randint(0, 2, (2, 8, 8)))
    loss.backward()
    assert enc.patch_embed.weight.grad.abs().sum() > 0
