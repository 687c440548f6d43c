"""A tiny frozen transformer text encoder with the ``encoder(ctx, classnames)`` protocol."""

from __future__ import annotations

import zlib
from collections.abc import Sequence

import torch
from torch import nn

from ._checks import check_generator, check_int
from ._validation import check_encoder_inputs


class TinyTextEncoder(nn.Module):
    """CLIP-style text encoder over token embeddings: the prompt
    ``[SOS] ctx_1..ctx_M name_1..name_L "." [EOS]`` goes through a causal pre-norm
    transformer; the EOS output, layer-normed and projected, is the text feature [C, d].

    Class-name tokens are fixed random embeddings (std 0.02, like CLIP's token table)
    derived from the name itself, so a class has the same tokens in every bank and order.
    ``encoder(ctx [C, M, token_dim], classnames) -> [C, embed_dim]``.
    """

    def __init__(
        self,
        *,
        token_dim: int = 64,
        embed_dim: int = 32,
        n_layers: int = 2,
        n_heads: int = 4,
        name_tokens: int = 2,
        max_ctx: int = 32,
        generator: torch.Generator | None = None,
    ) -> None:
        super().__init__()
        self.token_dim = check_int(token_dim, "token_dim", minimum=1)
        self.embed_dim = check_int(embed_dim, "embed_dim", minimum=1)
        n_layers = check_int(n_layers, "n_layers", minimum=1)
        n_heads = check_int(n_heads, "n_heads", minimum=1)
        if token_dim % n_heads:
            raise ValueError(f"n_heads must divide token_dim={token_dim}, got {n_heads}")
        self.name_tokens = check_int(name_tokens, "name_tokens", minimum=1)
        self.max_ctx = check_int(max_ctx, "max_ctx", minimum=1)
        generator = check_generator(generator, "generator")
        seed = int(torch.randint(0, 2**62, (1,), generator=generator))
        self._name_seed = seed % (2**31)
        length = self.max_ctx + self.name_tokens + 3
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(seed)
            self.special = nn.Parameter(0.02 * torch.randn(3, token_dim))  # SOS, ".", EOS
            self.positional = nn.Parameter(0.01 * torch.randn(length, token_dim))
            layer = nn.TransformerEncoderLayer(
                token_dim,
                n_heads,
                dim_feedforward=2 * token_dim,
                dropout=0.0,
                batch_first=True,
                norm_first=True,
            )
            self.transformer = nn.TransformerEncoder(layer, n_layers, enable_nested_tensor=False)
            self.ln_final = nn.LayerNorm(token_dim)
            self.projection = nn.Parameter(torch.randn(token_dim, embed_dim) / token_dim**0.5)
        self.requires_grad_(False)

    def name_embedding(self, name: str) -> torch.Tensor:
        """The fixed [name_tokens, token_dim] embedding of a class name."""
        g = torch.Generator().manual_seed(self._name_seed ^ zlib.crc32(name.encode()))
        return 0.02 * torch.randn(self.name_tokens, self.token_dim, generator=g)

    def forward(self, ctx: torch.Tensor, classnames: Sequence[str]) -> torch.Tensor:
        names = check_encoder_inputs(ctx, classnames, self.token_dim)
        C, M, d = ctx.shape
        if M > self.max_ctx:
            raise ValueError(f"ctx has {M} tokens, more than max_ctx={self.max_ctx}")
        dev, dt = ctx.device, ctx.dtype
        sp = self.special.to(dev, dt)
        name_emb = torch.stack([self.name_embedding(n) for n in names]).to(dev, dt)
        x = torch.cat(
            [
                sp[0].expand(C, 1, d),
                ctx,
                name_emb,
                sp[1].expand(C, 1, d),
                sp[2].expand(C, 1, d),
            ],
            dim=1,
        )
        L = x.shape[1]
        x = x + self.positional[:L].to(dev, dt)
        mask = torch.triu(torch.full((L, L), float("-inf"), device=dev, dtype=dt), diagonal=1)
        x = self.transformer(x, mask=mask)
        return self.ln_final(x[:, -1]) @ self.projection.to(dev, dt)
