"""Initialisations of :class:`gnn_rescale.GATv2Net` (and PyG GATv2 stacks)."""

from __future__ import annotations

import math

import torch
from torch import nn

from ._checks import check_generator
from .rescale import weight_params

__all__ = ["balanced_", "looks_linear_orthogonal_"]


def _orthogonal(rows: int, cols: int, like: torch.Tensor, generator) -> torch.Tensor:
    t = torch.empty(rows, cols, dtype=like.dtype, device=like.device)
    return nn.init.orthogonal_(t, generator=generator)


def looks_linear_orthogonal_(
    model: nn.Module, *, generator: torch.Generator | None = None
) -> nn.Module:
    """The authors' looks-linear orthogonal init with U orthogonal: first layer ``[U; -U]``,
    middle layers ``[[U, -U], [-U, U]]``, last layer ``[U, -U]``; attention vectors Xavier-normal.
    Odd sizes take ``U`` of the rounded-up half and drop the extra row/column. A single-layer
    model gets a plain orthogonal ``W``."""
    generator = check_generator(generator)
    params = weight_params(model)
    L = len(params)
    with torch.no_grad():
        for l, (W, _a_par, a) in enumerate(params):
            d_out, d_in = W.shape
            if L == 1:
                new = _orthogonal(d_out, d_in, W, generator)
            elif l == 0:
                U = _orthogonal(math.ceil(d_out / 2), d_in, W, generator)
                new = torch.cat([U, -U], 0)[:d_out]
            elif l == L - 1:
                U = _orthogonal(d_out, math.ceil(d_in / 2), W, generator)
                new = torch.cat([U, -U], 1)[:, :d_in]
            else:
                U = _orthogonal(math.ceil(d_out / 2), math.ceil(d_in / 2), W, generator)
                U = torch.cat([U, -U], 0)
                new = torch.cat([U, -U], 1)[:d_out, :d_in]
            W.copy_(new)
            std = math.sqrt(2.0 / (1 + a.numel()))
            a.normal_(0.0, std, generator=generator)
    return model


def balanced_(model: nn.Module) -> nn.Module:
    """Balanced initialisation: attention vectors set to 0 and, from the last hidden layer down,
    the rows of ``W_l`` rescaled to the norms of the matching columns of ``W_{l+1}``, so that
    :func:`gnn_rescale.conserved_quantity` is 0 (this changes the network function)."""
    params = weight_params(model)
    with torch.no_grad():
        for _, _, a in params:
            a.zero_()
        for l in range(len(params) - 2, -1, -1):
            W = params[l][0]
            target = params[l + 1][0].norm(dim=0)
            cur = W.norm(dim=1)
            W.mul_(torch.where(cur > 0, target / torch.where(cur > 0, cur, 1.0), 1.0).unsqueeze(1))
    return model
