"""Neighborhood attention layers (NATTEN 0.21's ``NeighborhoodAttention1D/2D/3D``).

Faster Neighborhood Attention (NeurIPS 2024) - https://arxiv.org/abs/2403.04690. A fused qkv
``Linear(C, 3C)``, neighborhood attention, and an output ``Linear(C, C)``, as NATTEN's modules.
"""

from __future__ import annotations

import torch
from torch import nn

from papershelf_kernels.neighborhood import normalize_args

from .functional import _na

__all__ = ["NeighborhoodAttention1D", "NeighborhoodAttention2D", "NeighborhoodAttention3D"]


class _NeighborhoodAttention(nn.Module):
    na_dim = 0

    def __init__(
        self,
        embed_dim: int,
        num_heads: int,
        kernel_size,
        stride=1,
        dilation=1,
        is_causal=False,
        qkv_bias: bool = True,
        qk_scale: float | None = None,
        proj_drop: float = 0.0,
    ):
        super().__init__()
        if not isinstance(embed_dim, int) or not isinstance(num_heads, int) or num_heads < 1:
            raise ValueError(
                f"`embed_dim` and `num_heads` must be positive ints, got {embed_dim}, {num_heads}"
            )
        if embed_dim % num_heads:
            raise ValueError(f"`num_heads` ({num_heads}) must divide `embed_dim` ({embed_dim})")
        # validate the per-axis arguments now (sizes are checked against the input in forward)
        big = (1 << 30,) * self.na_dim
        self.kernel_size, self.stride, self.dilation, self.is_causal = normalize_args(
            big, kernel_size, stride, dilation, is_causal
        )
        self.embed_dim, self.num_heads = embed_dim, num_heads
        self.head_dim = embed_dim // num_heads
        self.scale = qk_scale or self.head_dim**-0.5
        self.qkv = nn.Linear(embed_dim, 3 * embed_dim, bias=qkv_bias)
        self.proj = nn.Linear(embed_dim, embed_dim)
        self.proj_drop = nn.Dropout(proj_drop)

    def forward(self, x: torch.Tensor, *, backend: str | None = None) -> torch.Tensor:
        """x [B, X.., C] -> [B, X.., C]."""
        if not isinstance(x, torch.Tensor) or x.dim() != self.na_dim + 2:
            raise ValueError(
                f"{type(self).__name__} expects x of rank {self.na_dim + 2} [B, X.., C], got "
                f"{tuple(x.shape) if isinstance(x, torch.Tensor) else type(x).__name__}"
            )
        B, *shape, C = x.shape
        if C != self.embed_dim:
            raise ValueError(f"x has {C} channels, expected embed_dim={self.embed_dim}")
        qkv = self.qkv(x).reshape(B, *shape, 3, self.num_heads, self.head_dim)
        q, k, v = qkv.unbind(dim=-3)  # each [B, X.., H, D]
        out = _na(
            self.na_dim, q, k, v, self.kernel_size, self.stride, self.dilation, self.is_causal,
            self.scale, None, None, backend, False, None, None,
        )  # fmt: skip
        return self.proj_drop(self.proj(out.reshape(B, *shape, C)))

    def extra_repr(self) -> str:
        return (
            f"embed_dim={self.embed_dim}, num_heads={self.num_heads}, kernel_size={self.kernel_size}, "
            f"stride={self.stride}, dilation={self.dilation}, is_causal={self.is_causal}"
        )


class NeighborhoodAttention1D(_NeighborhoodAttention):
    """1-D neighborhood attention layer: x [B, L, C] -> [B, L, C].

    >>> layer = NeighborhoodAttention1D(embed_dim=16, num_heads=2, kernel_size=3)
    >>> layer(torch.randn(2, 10, 16)).shape
    torch.Size([2, 10, 16])
    """

    na_dim = 1


class NeighborhoodAttention2D(_NeighborhoodAttention):
    """2-D neighborhood attention layer: x [B, X, Y, C] -> [B, X, Y, C].

    >>> layer = NeighborhoodAttention2D(embed_dim=16, num_heads=2, kernel_size=3, dilation=2)
    >>> layer(torch.randn(1, 8, 8, 16)).shape
    torch.Size([1, 8, 8, 16])
    """

    na_dim = 2


class NeighborhoodAttention3D(_NeighborhoodAttention):
    """3-D neighborhood attention layer: x [B, X, Y, Z, C] -> [B, X, Y, Z, C].

    >>> layer = NeighborhoodAttention3D(embed_dim=8, num_heads=1, kernel_size=(2, 3, 3))
    >>> layer(torch.randn(1, 4, 5, 5, 8)).shape
    torch.Size([1, 4, 5, 5, 8])
    """

    na_dim = 3
