"""The STAR module (STar Aggregate-Redistribute) of SOFTS."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from ._checks import check_generator, check_int, check_option
from ._validation import as_input

__all__ = ["POOLINGS", "STAR"]

POOLINGS = ("stochastic", "weighted", "mean", "max")


class STAR(nn.Module):
    """STar Aggregate-Redistribute: channel interaction through one pooled "core".

    For series tokens ``S`` of shape ``[B, C, d_series]``:

    1. core candidates ``O = W2 · GELU(W1 · S)`` of shape ``[B, C, d_core]``;
    2. weights ``p = softmax_c(O)``, a distribution over channels per core dimension;
    3. pooling to ``core [B, d_core]``: ``"stochastic"`` draws, in training mode, one channel
       ``c* ~ Categorical(p[b, :, j])`` for every ``(b, j)`` and takes ``O[b, c*, j]``; in eval mode
       it returns the expectation ``Σ_c p·O``. ``"weighted"`` always returns ``Σ_c p·O``,
       ``"mean"`` the channel mean and ``"max"`` the channel max of ``O``;
    4. redistribute: ``F_c = W4 · GELU(W3 · [S_c ; core])`` for every channel.

    The cost is linear in the number of channels ``C``. Parameters follow the authors'
    ``STAR(d_series, d_core)``; the channel count is not fixed at construction.
    """

    def __init__(self, d_series: int, d_core: int, *, pooling: str = "stochastic") -> None:
        super().__init__()
        self.d_series = check_int(d_series, "d_series", minimum=1)
        self.d_core = check_int(d_core, "d_core", minimum=1)
        self.pooling = check_option(pooling, "pooling", POOLINGS)
        self.candidate_hidden = nn.Linear(self.d_series, self.d_series)
        self.candidate_out = nn.Linear(self.d_series, self.d_core)
        self.fuse_hidden = nn.Linear(self.d_series + self.d_core, self.d_series)
        self.fuse_out = nn.Linear(self.d_series, self.d_series)

    def extra_repr(self) -> str:
        return f"d_series={self.d_series}, d_core={self.d_core}, pooling={self.pooling!r}"

    def _check(self, S: Tensor) -> Tensor:
        S = as_input(S, "S", ndim=3, like=self.candidate_out.weight)
        if S.shape[-1] != self.d_series:
            raise ValueError(
                f"S must have shape [B, C, {self.d_series}] (d_series), got shape {tuple(S.shape)}"
            )
        return S

    def _candidates(self, S: Tensor) -> tuple[Tensor, Tensor]:
        O = self.candidate_out(F.gelu(self.candidate_hidden(S)))
        return O, torch.softmax(O, dim=1)

    def candidates(self, S: Tensor) -> tuple[Tensor, Tensor]:
        """Core candidates ``O`` and their channel weights ``p = softmax over channels``.

        Both have shape ``[B, C, d_core]``; ``p[b, :, j]`` sums to 1.
        """
        return self._candidates(self._check(S))

    def _pool(self, O: Tensor, p: Tensor, generator: torch.Generator | None) -> Tensor:
        pooling = self.pooling
        if pooling == "mean":
            return O.mean(dim=1)
        if pooling == "max":
            return O.amax(dim=1)
        if pooling == "weighted" or not self.training:
            return (p * O).sum(dim=1)
        B, C, J = O.shape
        probs = p.detach().transpose(1, 2).reshape(B * J, C)
        idx = torch.multinomial(probs, 1, generator=generator).view(B, J)
        return torch.gather(O, 1, idx.unsqueeze(1)).squeeze(1)

    def core(self, S: Tensor, *, generator: torch.Generator | None = None) -> Tensor:
        """The pooled core ``[B, d_core]`` (a random draw in training mode with stochastic pooling)."""
        S = self._check(S)
        generator = check_generator(generator)
        return self._pool(*self._candidates(S), generator)

    def forward(self, S: Tensor, *, generator: torch.Generator | None = None) -> Tensor:
        """Fused series ``[B, C, d_series]``: every channel's token fused with the shared core."""
        S = self._check(S)
        generator = check_generator(generator)
        core = self._pool(*self._candidates(S), generator)
        core = core.unsqueeze(1).expand(-1, S.shape[1], -1)
        return self.fuse_out(F.gelu(self.fuse_hidden(torch.cat([S, core], dim=-1))))
