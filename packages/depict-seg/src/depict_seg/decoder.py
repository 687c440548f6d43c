"""Segmentation decoders on ViT patch tokens: DEPICT (white box) and Segmenter (black box).

Both map patch tokens [B, N, d] to mask logits [B, K, H/p, W/p]: the refined patch tokens and
the K class embeddings are L2-normalised per token, their cosines (in [-1, 1]) form the masks,
and a LayerNorm over the K classes gives the logits (the Segmenter recipe, kept by DEPICT).
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn

from ._checks import check_float, check_int, check_option
from ._validation import check_size_pair, check_tokens
from .attention import SubspaceTransformer

__all__ = ["DepictDecoder", "SegmenterMaskTransformer", "TransformerBlock"]


class _MaskDecoder(nn.Module):
    """Shared part: class embeddings, cosine masks, mask LayerNorm, reshape to the patch grid."""

    def _init_common(self, n_cls, patch_size, d_model, mode):
        self.n_cls = check_int(n_cls, "n_cls", minimum=1)
        self.patch_size = check_int(patch_size, "patch_size", minimum=1)
        self.d_model = check_int(d_model, "d_model", minimum=1)
        self.mode = check_option(mode, "mode", ("sa", "ca"))
        self.cls_emb = nn.Parameter(torch.zeros(1, self.n_cls, self.d_model))
        self.mask_norm = nn.LayerNorm(self.n_cls)

    def _init_cls_emb(self):
        nn.init.trunc_normal_(self.cls_emb, std=0.02)

    def no_weight_decay(self) -> set[str]:
        """Parameter names to exclude from weight decay (the class embeddings)."""
        return {"cls_emb"}

    def _grid(self, n_tokens: int, im_size) -> tuple[int, int]:
        if im_size is None:
            side = math.isqrt(n_tokens)
            if side * side != n_tokens:
                raise ValueError(
                    f"im_size must be given when the {n_tokens} tokens are not a square grid"
                )
            return side, side
        h, w = check_size_pair(im_size, "im_size")
        gh, gw = h // self.patch_size, w // self.patch_size
        if gh * gw != n_tokens:
            raise ValueError(
                f"im_size {(h, w)} with patch_size {self.patch_size} gives a {gh}x{gw} grid of "
                f"{gh * gw} patches, but tokens has {n_tokens}"
            )
        return gh, gw

    def forward_features(self, tokens):
        """(patch features [B, N, d], class features [B, K, d]) before L2 normalisation."""
        raise NotImplementedError

    def cosine_masks(self, tokens):
        """Cosines between refined patch tokens and class embeddings, [B, N, K] in [-1, 1]."""
        patches, classes = self.forward_features(tokens)
        patches = F.normalize(patches, dim=-1)
        classes = F.normalize(classes, dim=-1)
        return patches @ classes.transpose(1, 2)

    def forward(self, tokens, im_size=None):
        """``tokens`` [B, N, d_model], ``im_size`` (H, W) -> mask logits [B, K, H/p, W/p]."""
        tokens = check_tokens(tokens, "tokens", dim=self.d_model)
        gh, gw = self._grid(tokens.shape[1], im_size)
        masks = self.mask_norm(self.cosine_masks(tokens))
        return masks.transpose(1, 2).reshape(tokens.shape[0], self.n_cls, gh, gw)


class DepictDecoder(_MaskDecoder):
    """DEPICT decoder: MSSA-only layers on the patch tokens (white box).

    ``mode="sa"``: the K class embeddings are appended to the patch tokens and ``n_layers`` MSSA
    layers (``n_heads`` x ``dim_head``) refine them jointly, then one LayerNorm.
    ``mode="ca"``: ``n_layers`` MSSA layers on the patch tokens, a LayerNorm, then ``ca_layers``
    MSCA layers (``n_heads`` x ``ca_dim_head``) update the class embeddings as queries from the
    refined tokens, and a LayerNorm on the class embeddings.

    Parameters: exactly ``L(h d_h d + 2d + 1) + 2d + K d + 2K``, plus
    ``ca_layers(h ca_d_h d + 2d + 1) + 2d`` for ``"ca"``.
    """

    def __init__(
        self,
        n_cls,
        *,
        patch_size,
        d_model,
        n_layers=3,
        n_heads=3,
        dim_head=100,
        mode="sa",
        ca_layers=3,
        ca_dim_head=50,
        dropout=0.0,
    ):
        super().__init__()
        self._init_common(n_cls, patch_size, d_model, mode)
        self.n_layers = check_int(n_layers, "n_layers", minimum=1)
        self.n_heads = check_int(n_heads, "n_heads", minimum=1)
        self.dim_head = check_int(dim_head, "dim_head", minimum=1)
        self.ca_layers = check_int(ca_layers, "ca_layers", minimum=1)
        self.ca_dim_head = check_int(ca_dim_head, "ca_dim_head", minimum=1)
        p = check_float(dropout, "dropout", minimum=0.0, maximum=1.0, max_inclusive=False)
        d = self.d_model
        if self.mode == "sa":
            self.net = SubspaceTransformer(
                d, self.n_layers, heads=self.n_heads, dim_head=self.dim_head, dropout=p
            )
            self.decoder_norm = nn.LayerNorm(d)
        else:
            self.snet = SubspaceTransformer(
                d, self.n_layers, heads=self.n_heads, dim_head=self.dim_head, dropout=p
            )
            self.cnet = SubspaceTransformer(
                d, self.ca_layers, heads=self.n_heads, dim_head=self.ca_dim_head, dropout=p
            )
            self.snorm = nn.LayerNorm(d)
            self.cnorm = nn.LayerNorm(d)
        self._init_cls_emb()

    def forward_features(self, tokens):
        tokens = check_tokens(tokens, "tokens", dim=self.d_model)
        cls_emb = self.cls_emb.expand(tokens.shape[0], -1, -1)
        if self.mode == "sa":
            x = self.decoder_norm(self.net(torch.cat((tokens, cls_emb), dim=1)))
            return x[:, : -self.n_cls], x[:, -self.n_cls :]
        x = self.snorm(self.snet(tokens))
        return x, self.cnorm(self.cnet(x, query=cls_emb))


class _Attention(nn.Module):
    """Standard multi-head attention (separate q, k, v from one Linear, output Linear)."""

    def __init__(self, dim, heads, dim_head, dropout):
        super().__init__()
        self.heads, self.dim_head = heads, dim_head
        inner = heads * dim_head
        self.q = nn.Linear(dim, inner)
        self.kv = nn.Linear(dim, 2 * inner)
        self.proj = nn.Linear(inner, dim)
        self.dropout = nn.Dropout(dropout)

    def _split(self, t):
        return t.unflatten(-1, (self.heads, self.dim_head)).transpose(1, 2)

    def forward(self, x, context=None):
        context = x if context is None else context
        q = self._split(self.q(x))
        k, v = (self._split(t) for t in self.kv(context).chunk(2, dim=-1))
        attn = torch.softmax(q @ k.transpose(-1, -2) * self.dim_head**-0.5, dim=-1)
        out = (self.dropout(attn) @ v).transpose(1, 2).flatten(2)
        return self.dropout(self.proj(out))


class TransformerBlock(nn.Module):
    """Pre-LN ViT block: ``x + MHA(LN(x))`` then ``x + MLP(LN(x))`` (GELU, width ``d_ff``).

    With ``context``: cross-attention ``x + MHA(LN(x), LN(context))`` (a black-box MSCA).
    """

    def __init__(self, dim, *, heads, dim_head=None, d_ff=None, dropout=0.0):
        super().__init__()
        dim = check_int(dim, "dim", minimum=1)
        heads = check_int(heads, "heads", minimum=1)
        if dim_head is None:
            if heads > dim:
                raise ValueError(f"heads must be <= dim ({dim}) when dim_head is None, got {heads}")
            dim_head = dim // heads
        dim_head = check_int(dim_head, "dim_head", minimum=1)
        d_ff = 4 * dim if d_ff is None else check_int(d_ff, "d_ff", minimum=1)
        p = check_float(dropout, "dropout", minimum=0.0, maximum=1.0, max_inclusive=False)
        self.dim = dim
        self.norm1 = nn.LayerNorm(dim)
        self.attn = _Attention(dim, heads, dim_head, p)
        self.norm2 = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(
            nn.Linear(dim, d_ff), nn.GELU(), nn.Dropout(p), nn.Linear(d_ff, dim), nn.Dropout(p)
        )

    def forward(self, x, context=None):
        x = check_tokens(x, "x", dim=self.dim)
        if context is None:
            x = x + self.attn(self.norm1(x))
        else:
            context = check_tokens(context, "context", dim=self.dim)
            x = x + self.attn(self.norm1(x), self.norm1(context))
        return x + self.mlp(self.norm2(x))


def _init_linear_ln(m):
    if isinstance(m, nn.Linear):
        nn.init.trunc_normal_(m.weight, std=0.02)
        if m.bias is not None:
            nn.init.zeros_(m.bias)
    elif isinstance(m, nn.LayerNorm):
        nn.init.ones_(m.weight)
        nn.init.zeros_(m.bias)


class SegmenterMaskTransformer(_MaskDecoder):
    """Segmenter's mask transformer (Strudel et al., 2021): the black-box baseline.

    Same arguments as :class:`DepictDecoder`. ``mode="sa"`` is Segmenter: a Linear on the tokens,
    class embeddings appended, ``n_layers`` standard ViT blocks (multi-head attention with
    ``n_heads`` heads of width ``dim_head`` plus a 4d GELU MLP), LayerNorm, and the two learned
    d x d projections of patches and classes before the cosine masks. ``mode="ca"`` is its
    cross-attention counterpart of DEPICT-CA: ``n_layers`` blocks on the tokens, then
    ``ca_layers`` cross-attention blocks (width ``ca_dim_head``) update the class embeddings.
    ``dim_head=None`` / ``ca_dim_head=None`` mean ``d_model // n_heads`` (Segmenter's heads).
    """

    def __init__(
        self,
        n_cls,
        *,
        patch_size,
        d_model,
        n_layers=3,
        n_heads=3,
        dim_head=None,
        mode="sa",
        ca_layers=3,
        ca_dim_head=None,
        dropout=0.0,
        d_ff=None,
    ):
        super().__init__()
        self._init_common(n_cls, patch_size, d_model, mode)
        self.n_layers = check_int(n_layers, "n_layers", minimum=1)
        self.n_heads = check_int(n_heads, "n_heads", minimum=1)
        self.ca_layers = check_int(ca_layers, "ca_layers", minimum=1)
        d = self.d_model
        if dim_head is None or ca_dim_head is None:
            if self.n_heads > d:
                raise ValueError(
                    f"n_heads must be <= d_model ({d}) when dim_head is None, got {self.n_heads}"
                )
        dim_head = (
            d // self.n_heads if dim_head is None else check_int(dim_head, "dim_head", minimum=1)
        )
        ca_dim_head = (
            d // self.n_heads
            if ca_dim_head is None
            else check_int(ca_dim_head, "ca_dim_head", minimum=1)
        )
        self.dim_head, self.ca_dim_head = dim_head, ca_dim_head
        kw = dict(heads=self.n_heads, d_ff=d_ff, dropout=dropout)
        self.proj_dec = nn.Linear(d, d)
        self.blocks = nn.ModuleList(
            TransformerBlock(d, dim_head=dim_head, **kw) for _ in range(self.n_layers)
        )
        if self.mode == "ca":
            self.snorm = nn.LayerNorm(d)
            self.cblocks = nn.ModuleList(
                TransformerBlock(d, dim_head=ca_dim_head, **kw) for _ in range(self.ca_layers)
            )
        self.decoder_norm = nn.LayerNorm(d)
        self.proj_patch = nn.Parameter(torch.randn(d, d) * d**-0.5)
        self.proj_classes = nn.Parameter(torch.randn(d, d) * d**-0.5)
        self.apply(_init_linear_ln)
        self._init_cls_emb()

    def forward_features(self, tokens):
        tokens = check_tokens(tokens, "tokens", dim=self.d_model)
        x = self.proj_dec(tokens)
        cls_emb = self.cls_emb.expand(tokens.shape[0], -1, -1)
        if self.mode == "sa":
            x = torch.cat((x, cls_emb), dim=1)
            for blk in self.blocks:
                x = blk(x)
            x = self.decoder_norm(x)
            patches, classes = x[:, : -self.n_cls], x[:, -self.n_cls :]
        else:
            for blk in self.blocks:
                x = blk(x)
            patches = self.snorm(x)
            q = cls_emb
            for blk in self.cblocks:
                q = blk(q, context=patches)
            classes = self.decoder_norm(q)
        return patches @ self.proj_patch, classes @ self.proj_classes
