"""Neighborhood attention layers (NATTEN 0.21's ``NeighborhoodAttention1D/2D/3D``).

Faster Neighborhood Attention (NeurIPS 2024) - https://arxiv.org/abs/2403.04690. A fused qkv
``Linear(C, 3C)``, neighborhood attention, and an output ``Linear(C, C)``, as NATTEN's modules.
"""

from __future__ import annotations

import torch
from torch import nn

from ._checks import check_bool, check_float, check_int, check_probability, check_tensor
from ._validation import check_per_axis
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
        embed_dim = check_int(embed_dim, "embed_dim", minimum=1)
        num_heads = check_int(num_heads, "num_heads", minimum=1)
        if embed_dim % num_heads:
            raise ValueError(f"num_heads ({num_heads}) must divide embed_dim ({embed_dim})")
        n = self.na_dim
        # the per-axis arguments now; their sizes against the input in forward (as NATTEN)
        self.kernel_size = check_per_axis(kernel_size, "kernel_size", n, minimum=2)
        self.stride = check_per_axis(1 if stride is None else stride, "stride", n)
        self.dilation = check_per_axis(1 if dilation is None else dilation, "dilation", n)
        self.is_causal = check_per_axis(
            False if is_causal is None else is_causal, "is_causal", n, kind="bool"
        )
        if any(s > k for s, k in zip(self.stride, self.kernel_size)):
            raise ValueError(
                f"stride must be <= kernel_size on every axis, got {self.stride} and "
                f"{self.kernel_size}"
            )
        qkv_bias = check_bool(qkv_bias, "qkv_bias")
        if qk_scale is not None:
            qk_scale = check_float(qk_scale, "qk_scale")
        self.embed_dim, self.num_heads = embed_dim, num_heads
        self.head_dim = embed_dim // num_heads
        self.scale = qk_scale or self.head_dim**-0.5  # NATTEN: None and 0.0 are the default
        self.qkv = nn.Linear(embed_dim, 3 * embed_dim, bias=qkv_bias)
        self.proj = nn.Linear(embed_dim, embed_dim)
        self.proj_drop = nn.Dropout(check_probability(proj_drop, "proj_drop"))

    def forward(self, x: torch.Tensor, *, backend: str | None = None) -> torch.Tensor:
        """x [B, X.., C] -> [B, X.., C]; ``backend`` as in ``na1d`` (default: automatic)."""
        # NaN/inf in x: named here (a sync-free check on CPU only, like the functional API)
        check_tensor(x, "x", ndim=self.na_dim + 2, finite=x.device.type == "cpu")
        B, *shape, C = x.shape
        if C != self.embed_dim:
            raise ValueError(f"x must have embed_dim={self.embed_dim} channels, got {C}")
        qkv = self.qkv(x).reshape(B, *shape, 3, self.num_heads, self.head_dim)
        q, k, v = qkv.unbind(dim=-3)  # each [B, X.., H, D]
        out = _na(
            self.na_dim, q, k, v, self.kernel_size, self.stride, self.dilation, self.is_causal,
            self.scale, backend=backend,
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
