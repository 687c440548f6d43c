"""Encoders that give patch tokens, and the encoder + decoder segmentation model."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from ._checks import check_float, check_int, check_tensor, describe
from ._validation import check_module
from .decoder import TransformerBlock

__all__ = ["SegmentationModel", "TimmPatchTokens", "TinyViTEncoder"]


def _check_images(images, in_chans):
    images = check_tensor(images, "images", ndim=4)
    if images.shape[1] != in_chans:
        raise ValueError(
            f"images must have {in_chans} channels (shape [B, {in_chans}, H, W]), got shape "
            f"{tuple(images.shape)}"
        )
    return images


class TinyViTEncoder(nn.Module):
    """A small ViT (patch embedding, learned positions, ``depth`` pre-LN blocks, final LN) for
    tests and CPU experiments: ``images`` [B, C, S, S] -> patch tokens [B, (S/p)^2, dim]."""

    def __init__(
        self, *, image_size=32, patch_size=4, in_chans=3, dim=64, depth=2, heads=4, dropout=0.0
    ):
        super().__init__()
        self.image_size = check_int(image_size, "image_size", minimum=1)
        self.patch_size = check_int(patch_size, "patch_size", minimum=1)
        if self.image_size % self.patch_size:
            raise ValueError(
                f"patch_size must divide image_size ({self.image_size}), got {self.patch_size}"
            )
        self.in_chans = check_int(in_chans, "in_chans", minimum=1)
        self.dim = check_int(dim, "dim", minimum=1)
        check_int(depth, "depth", minimum=1)
        check_float(dropout, "dropout", minimum=0.0, maximum=1.0, max_inclusive=False)
        grid = self.image_size // self.patch_size
        self.patch_embed = nn.Conv2d(in_chans, dim, patch_size, stride=patch_size)
        self.pos_embed = nn.Parameter(torch.zeros(1, grid * grid, dim))
        nn.init.trunc_normal_(self.pos_embed, std=0.02)
        self.blocks = nn.ModuleList(
            TransformerBlock(dim, heads=heads, dropout=dropout) for _ in range(depth)
        )
        self.norm = nn.LayerNorm(dim)

    def forward(self, images):
        images = _check_images(images, self.in_chans)
        if tuple(images.shape[2:]) != (self.image_size, self.image_size):
            raise ValueError(
                f"images must be {self.image_size}x{self.image_size}, got shape "
                f"{tuple(images.shape)}"
            )
        x = self.patch_embed(images).flatten(2).transpose(1, 2) + self.pos_embed
        for blk in self.blocks:
            x = blk(x)
        return self.norm(x)


class TimmPatchTokens(nn.Module):
    """Patch tokens [B, N, d] from a timm Vision Transformer (its ``forward_features`` with the
    class/register tokens, ``num_prefix_tokens`` of them, removed).

    ``TimmPatchTokens(model)`` wraps a model you built; ``TimmPatchTokens.from_name(name, ...)``
    creates one with ``timm.create_model`` (the ``timm`` extra; ``pretrained=False`` default).
    """

    def __init__(self, model):
        super().__init__()
        model = check_module(model, "model")
        if not (hasattr(model, "forward_features") and hasattr(model, "patch_embed")):
            raise TypeError(
                "model must be a timm Vision Transformer (with forward_features and "
                f"patch_embed), got {describe(model)}"
            )
        self.model = model
        ps = model.patch_embed.patch_size
        self.patch_size = int(ps[0] if isinstance(ps, tuple | list) else ps)
        self.num_prefix_tokens = int(getattr(model, "num_prefix_tokens", 1))
        self.dim = int(getattr(model, "embed_dim", getattr(model, "num_features", 0)))
        self.in_chans = int(getattr(model.patch_embed.proj, "in_channels", 3))

    @classmethod
    def from_name(cls, name, *, pretrained=False, **kwargs):
        """``timm.create_model(name, pretrained=pretrained, **kwargs)`` wrapped."""
        if not isinstance(name, str):
            raise TypeError(f"name must be a timm model name (str), got {describe(name)}")
        try:
            import timm
        except ImportError as exc:  # pragma: no cover - exercised without the extra only
            raise ImportError(
                "TimmPatchTokens.from_name needs: pip install 'depict-seg[timm]'"
            ) from exc
        return cls(timm.create_model(name, pretrained=pretrained, **kwargs))

    def forward(self, images):
        images = _check_images(images, self.in_chans)
        return self.model.forward_features(images)[:, self.num_prefix_tokens :]


class SegmentationModel(nn.Module):
    """Encoder + mask decoder, Segmenter style: ``images`` [B, C, H, W] -> logits [B, K, H, W].

    The encoder maps images to patch tokens [B, N, d] and has an integer ``patch_size``; the
    images are zero-padded to multiples of it, the decoder's [B, K, H/p, W/p] masks are
    bilinearly upsampled and cropped back to H x W (as the original code).
    """

    def __init__(self, encoder, decoder):
        super().__init__()
        self.encoder = check_module(encoder, "encoder")
        self.decoder = check_module(decoder, "decoder")
        ps = getattr(encoder, "patch_size", None)
        if isinstance(ps, bool) or not isinstance(ps, int):
            raise TypeError(f"encoder must have an integer patch_size attribute, got {ps!r}")
        dec_ps = getattr(decoder, "patch_size", ps)
        if dec_ps != ps:
            raise ValueError(
                f"decoder patch_size ({dec_ps}) must equal the encoder patch_size ({ps})"
            )
        self.patch_size = ps

    def no_weight_decay(self) -> set[str]:
        names = set()
        for prefix, mod in (("encoder.", self.encoder), ("decoder.", self.decoder)):
            if hasattr(mod, "no_weight_decay"):
                names |= {prefix + n for n in mod.no_weight_decay()}
        return names

    def forward(self, images):
        images = check_tensor(images, "images", ndim=4)
        h0, w0 = images.shape[2:]
        p = self.patch_size
        im = F.pad(images, (0, (-w0) % p, 0, (-h0) % p))
        h, w = im.shape[2:]
        masks = self.decoder(self.encoder(im), (h, w))
        masks = F.interpolate(masks, size=(h, w), mode="bilinear")
        return masks[:, :, :h0, :w0]
