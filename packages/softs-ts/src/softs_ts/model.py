"""SOFTS and the small baselines it is compared with (all take ``x [B, L, C]``)."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from ._checks import (
    check_bool,
    check_float,
    check_generator,
    check_int,
    check_option,
)
from ._validation import as_input
from .star import POOLINGS, STAR

__all__ = ["SOFTS", "ChannelLinear", "ITransformerLite", "SeriesMLP"]

_ACTIVATIONS = {"gelu": F.gelu, "relu": F.relu}


class _TokenMLP(nn.Module):
    """Per-channel two-layer MLP (d -> d -> d): the mixer of SOFTS-without-STAR."""

    def __init__(self, d: int) -> None:
        super().__init__()
        self.hidden = nn.Linear(d, d)
        self.out = nn.Linear(d, d)

    def forward(self, S: Tensor, *, generator: torch.Generator | None = None) -> Tensor:
        return self.out(F.gelu(self.hidden(S)))


class _ChannelAttention(nn.Module):
    """Multi-head self-attention over channel tokens (iTransformer's mixer, O(C^2))."""

    def __init__(self, d: int, n_heads: int) -> None:
        super().__init__()
        self.attn = nn.MultiheadAttention(d, n_heads, batch_first=True)

    def forward(self, S: Tensor, *, generator: torch.Generator | None = None) -> Tensor:
        return self.attn(S, S, S, need_weights=False)[0]


class _EncoderBlock(nn.Module):
    """S <- LN(S + drop(mixer(S))); S <- LN(S + drop(W2 drop(act(W1 S))))  (the authors' layer)."""

    def __init__(self, mixer: nn.Module, d_model: int, d_ff: int, dropout: float, act) -> None:
        super().__init__()
        self.mixer = mixer
        self.ff_in = nn.Linear(d_model, d_ff)
        self.ff_out = nn.Linear(d_ff, d_model)
        self.norm1 = nn.LayerNorm(d_model)
        self.norm2 = nn.LayerNorm(d_model)
        self.dropout = nn.Dropout(dropout)
        self.act = act

    def forward(self, S: Tensor, generator: torch.Generator | None) -> Tensor:
        S = self.norm1(S + self.dropout(self.mixer(S, generator=generator)))
        y = self.dropout(self.act(self.ff_in(S)))
        return self.norm2(S + self.dropout(self.ff_out(y)))


def _check_input(model: nn.Module, x, x_mark):
    like = next(model.parameters())
    x = as_input(x, "x", ndim=3, like=like)
    if x.shape[1] != model.seq_len:
        raise ValueError(
            f"x must have shape [B, seq_len={model.seq_len}, C], got shape {tuple(x.shape)}"
        )
    if x_mark is not None:
        x_mark = as_input(x_mark, "x_mark", ndim=3, like=like)
        if x_mark.shape[:2] != x.shape[:2]:
            raise ValueError(
                f"x_mark must have shape [B={x.shape[0]}, L={x.shape[1]}, F], "
                f"got shape {tuple(x_mark.shape)}"
            )
    return x, x_mark


class _InvertedForecaster(nn.Module):
    """Shared skeleton: instance norm -> series tokens -> encoder blocks -> Linear head."""

    def __init__(
        self,
        seq_len: int,
        pred_len: int,
        d_model: int,
        d_ff: int,
        e_layers: int,
        dropout: float,
        use_norm: bool,
        activation: str,
        make_mixer,
    ) -> None:
        super().__init__()
        self.seq_len = check_int(seq_len, "seq_len", minimum=1)
        self.pred_len = check_int(pred_len, "pred_len", minimum=1)
        self.d_model = check_int(d_model, "d_model", minimum=1)
        self.d_ff = check_int(d_ff, "d_ff", minimum=1)
        self.e_layers = check_int(e_layers, "e_layers", minimum=0)
        self.dropout = _check_dropout(dropout)
        self.use_norm = check_bool(use_norm, "use_norm")
        self.activation = check_option(activation, "activation", tuple(_ACTIVATIONS))
        act = _ACTIVATIONS[self.activation]
        self.embedding = nn.Linear(self.seq_len, self.d_model)
        self.embed_dropout = nn.Dropout(self.dropout)
        self.blocks = nn.ModuleList(
            _EncoderBlock(make_mixer(), self.d_model, self.d_ff, self.dropout, act)
            for _ in range(self.e_layers)
        )
        self.head = nn.Linear(self.d_model, self.pred_len)

    def forward(
        self,
        x: Tensor,
        x_mark: Tensor | None = None,
        *,
        generator: torch.Generator | None = None,
    ) -> Tensor:
        """Forecast ``[B, pred_len, C]`` from ``x [B, seq_len, C]`` and optional covariates
        ``x_mark [B, seq_len, F]`` (extra tokens, dropped at the output)."""
        x, x_mark = _check_input(self, x, x_mark)
        generator = check_generator(generator)
        C = x.shape[2]
        if self.use_norm:
            mean = x.mean(dim=1, keepdim=True).detach()
            x = x - mean
            std = torch.sqrt(torch.var(x, dim=1, keepdim=True, unbiased=False) + 1e-5).detach()
            x = x / std
        tokens = x.transpose(1, 2)
        if x_mark is not None:
            tokens = torch.cat([tokens, x_mark.to(x.dtype).transpose(1, 2)], dim=1)
        S = self.embed_dropout(self.embedding(tokens))
        for block in self.blocks:
            S = block(S, generator)
        out = self.head(S).transpose(1, 2)[:, :, :C]
        if self.use_norm:
            out = out * std + mean
        return out


def _check_dropout(dropout: float) -> float:
    return check_float(dropout, "dropout", minimum=0.0, maximum=1.0, max_inclusive=False)


class SOFTS(_InvertedForecaster):
    """SOFTS (Han et al., NeurIPS 2024): series embedding + ``e_layers`` STAR encoder blocks.

    ``forward(x [B, seq_len, C], x_mark=None, *, generator=None) -> [B, pred_len, C]``; any
    channel count ``C``; covariates ``x_mark [B, seq_len, F]`` become extra tokens. Defaults are
    the authors' ``run.py`` defaults.
    """

    def __init__(
        self,
        seq_len: int,
        pred_len: int,
        *,
        d_model: int = 512,
        d_core: int = 512,
        d_ff: int = 2048,
        e_layers: int = 2,
        dropout: float = 0.0,
        use_norm: bool = True,
        pooling: str = "stochastic",
        activation: str = "gelu",
    ) -> None:
        d_core = check_int(d_core, "d_core", minimum=1)
        pooling = check_option(pooling, "pooling", POOLINGS)
        d = check_int(d_model, "d_model", minimum=1)

        def mixer() -> nn.Module:
            return STAR(d, d_core, pooling=pooling)

        super().__init__(seq_len, pred_len, d, d_ff, e_layers, dropout, use_norm, activation, mixer)
        self.d_core = d_core
        self.pooling = pooling


class SeriesMLP(_InvertedForecaster):
    """SOFTS without STAR: the same network with a per-channel MLP in place of STAR (no mixing)."""

    def __init__(
        self,
        seq_len: int,
        pred_len: int,
        *,
        d_model: int = 512,
        d_ff: int = 2048,
        e_layers: int = 2,
        dropout: float = 0.0,
        use_norm: bool = True,
        activation: str = "gelu",
    ) -> None:
        d = check_int(d_model, "d_model", minimum=1)

        def mixer() -> nn.Module:
            return _TokenMLP(d)

        super().__init__(seq_len, pred_len, d, d_ff, e_layers, dropout, use_norm, activation, mixer)


class ITransformerLite(_InvertedForecaster):
    """iTransformer-lite: the same network with multi-head self-attention over channels."""

    def __init__(
        self,
        seq_len: int,
        pred_len: int,
        *,
        d_model: int = 512,
        n_heads: int = 8,
        d_ff: int = 2048,
        e_layers: int = 2,
        dropout: float = 0.0,
        use_norm: bool = True,
        activation: str = "gelu",
    ) -> None:
        d = check_int(d_model, "d_model", minimum=1)
        heads = check_int(n_heads, "n_heads", minimum=1)
        if d % heads:
            raise ValueError(f"n_heads must divide d_model={d}, got {heads}")

        def mixer() -> nn.Module:
            return _ChannelAttention(d, heads)

        super().__init__(seq_len, pred_len, d, d_ff, e_layers, dropout, use_norm, activation, mixer)
        self.n_heads = heads


class ChannelLinear(nn.Module):
    """Channel-independent linear forecaster (DLinear-style, weights shared by all channels).

    With ``decompose=True`` the input is split into a moving-average trend (window ``kernel``,
    edge-padded) and a remainder, each mapped by its own ``Linear(seq_len -> pred_len)``.
    """

    def __init__(
        self,
        seq_len: int,
        pred_len: int,
        *,
        decompose: bool = True,
        kernel: int = 25,
        use_norm: bool = True,
    ) -> None:
        super().__init__()
        self.seq_len = check_int(seq_len, "seq_len", minimum=1)
        self.pred_len = check_int(pred_len, "pred_len", minimum=1)
        self.decompose = check_bool(decompose, "decompose")
        self.kernel = check_int(kernel, "kernel", minimum=1)
        self.use_norm = check_bool(use_norm, "use_norm")
        self.seasonal = nn.Linear(self.seq_len, self.pred_len)
        self.trend = nn.Linear(self.seq_len, self.pred_len) if self.decompose else None

    def forward(
        self,
        x: Tensor,
        x_mark: Tensor | None = None,
        *,
        generator: torch.Generator | None = None,
    ) -> Tensor:
        """Forecast ``[B, pred_len, C]``; ``x_mark`` is accepted and ignored (no covariates)."""
        x, x_mark = _check_input(self, x, x_mark)
        check_generator(generator)
        if self.use_norm:
            mean = x.mean(dim=1, keepdim=True).detach()
            x = x - mean
        z = x.transpose(1, 2)  # [B, C, L]
        if self.trend is None:
            out = self.seasonal(z)
        else:
            k = self.kernel
            left, right = (k - 1) // 2, k // 2
            padded = torch.cat(
                [z[..., :1].expand(-1, -1, left), z, z[..., -1:].expand(-1, -1, right)], dim=-1
            )
            trend = padded.unfold(-1, k, 1).mean(-1)
            out = self.seasonal(z - trend) + self.trend(trend)
        out = out.transpose(1, 2)
        if self.use_norm:
            out = out + mean
        return out
