"""MSSA (multi-head subspace self-attention, from CRATE) and the MSSA-only transformer.

``MSSA`` has one projection ``proj`` = U in R^{(h d_h) x d} and a step size ``step_size`` = eta.
For an input ``x`` (already layer-normalised by the caller) with ``W = x U^T`` split head-major
into ``h`` heads of width ``d_h``::

    MSSA(x)        = eta * concat_k(softmax(W_k W_k^T / sqrt(d_h)) W_k) U
    MSSA(x, query) = eta * concat_k(softmax(Q_k W_k^T / sqrt(d_h)) W_k) U,  Q = query U^T

so queries, keys and values are one projection and every update lies in the row space of U.
"""

from __future__ import annotations

import math

import torch
from torch import nn

from ._checks import check_float, check_int
from ._validation import check_tokens

__all__ = ["MSSA", "SubspaceTransformer"]


class MSSA(nn.Module):
    """Multi-head subspace self-attention (no LayerNorm, no residual inside).

    Parameters: ``proj`` [heads * dim_head, dim], initialised ``dim**-0.5 * N(0, 1)``, and
    ``step_size`` [1], initialised ``N(0, 1)`` (as the original code).
    """

    def __init__(self, dim, *, heads, dim_head, dropout=0.0):
        super().__init__()
        self.dim = check_int(dim, "dim", minimum=1)
        self.heads = check_int(heads, "heads", minimum=1)
        self.dim_head = check_int(dim_head, "dim_head", minimum=1)
        p = check_float(dropout, "dropout", minimum=0.0, maximum=1.0, max_inclusive=False)
        self.scale = self.dim_head**-0.5
        inner = self.heads * self.dim_head
        self.proj = nn.Parameter(torch.randn(inner, self.dim) / math.sqrt(self.dim))
        self.step_size = nn.Parameter(torch.randn(1))
        self.dropout = nn.Dropout(p)

    def _split(self, t: torch.Tensor) -> torch.Tensor:
        # [B, n, h*d_h] -> [B, h, n, d_h], head-major (head k holds columns k*d_h:(k+1)*d_h)
        return t.unflatten(-1, (self.heads, self.dim_head)).transpose(1, 2)

    def forward(self, x, query=None):
        """``x`` [B, N, dim] -> [B, N, dim]; with ``query`` [B, K, dim] -> [B, K, dim]."""
        x = check_tokens(x, "x", dim=self.dim)
        w = self._split(x @ self.proj.t())
        if query is None:
            q = w
        else:
            query = check_tokens(query, "query", dim=self.dim)
            if query.shape[0] != x.shape[0]:
                raise ValueError(
                    f"query must have the batch size of x ({x.shape[0]}), got shape "
                    f"{tuple(query.shape)}"
                )
            q = self._split(query @ self.proj.t())
        attn = torch.softmax(q @ w.transpose(-1, -2) * self.scale, dim=-1)
        out = self.dropout(attn) @ w
        return self.step_size * (out.transpose(1, 2).flatten(2) @ self.proj)

    def extra_repr(self) -> str:
        return f"dim={self.dim}, heads={self.heads}, dim_head={self.dim_head}"


class _PreNormMSSA(nn.Module):
    def __init__(self, dim, heads, dim_head, dropout):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.attn = MSSA(dim, heads=heads, dim_head=dim_head, dropout=dropout)


class SubspaceTransformer(nn.Module):
    """``depth`` pre-LN MSSA layers with residuals (no MLP).

    ``forward(x)``: ``x <- x + MSSA(LN(x))`` per layer, returns ``x``.
    ``forward(x, query=q)``: ``q <- q + MSSA(LN(x), query=q)`` per layer (``x`` fixed; MSCA),
    returns ``q``.
    """

    def __init__(self, dim, depth, *, heads, dim_head, dropout=0.0):
        super().__init__()
        self.dim = check_int(dim, "dim", minimum=1)
        self.depth = check_int(depth, "depth", minimum=1)
        check_int(heads, "heads", minimum=1)
        check_int(dim_head, "dim_head", minimum=1)
        check_float(dropout, "dropout", minimum=0.0, maximum=1.0, max_inclusive=False)
        self.layers = nn.ModuleList(
            _PreNormMSSA(dim, heads, dim_head, dropout) for _ in range(self.depth)
        )

    def forward(self, x, query=None):
        x = check_tokens(x, "x", dim=self.dim)
        if query is None:
            for layer in self.layers:
                x = x + layer.attn(layer.norm(x))
            return x
        query = check_tokens(query, "query", dim=self.dim)
        for layer in self.layers:
            query = query + layer.attn(layer.norm(x), query=query)
        return query
