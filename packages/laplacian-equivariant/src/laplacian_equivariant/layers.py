"""First-order equivariant layers on subgraph occurrences: SchurLayer and LinmapsLayer."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import torch
from torch import nn

from ._checks import check_bool, check_int, check_tensor
from .spectral import _eigenspaces, eigenspace_projectors, laplacian_matrix

__all__ = ["LinmapsLayer", "SchurLayer"]


def _check_occurrences(x: Any, m: int | None, in_dim: int) -> torch.Tensor:
    x = check_tensor(x, "x", ndim=3, allow_empty=True)
    if x.shape[2] != in_dim:
        raise ValueError(f"x must have shape [K, m, in_dim={in_dim}], got shape {tuple(x.shape)}")
    if m is not None and x.shape[1] != m:
        raise ValueError(
            f"x must have shape [K, m={m}, in_dim] (the template's size), got shape "
            f"{tuple(x.shape)}"
        )
    if x.shape[1] == 0:
        raise ValueError(f"x must have at least one node per occurrence, got {tuple(x.shape)}")
    return x


class _WeightedLayer(nn.Module):
    """Shared parameters of both layers: ``weight [num_maps, in_dim, out_dim]`` and ``bias``."""

    def __init__(self, num_maps: int, in_dim: int, out_dim: int, bias: Any):
        super().__init__()
        self.in_dim = check_int(in_dim, "in_dim", minimum=1)
        self.out_dim = check_int(out_dim, "out_dim", minimum=1)
        bias = check_bool(bias, "bias")
        self.num_maps = int(num_maps)
        self.weight = nn.Parameter(torch.empty(self.num_maps, self.in_dim, self.out_dim))
        self.bias = nn.Parameter(torch.empty(self.out_dim)) if bias else None
        self.reset_parameters()

    def reset_parameters(self) -> None:
        bound = 1.0 / math.sqrt(self.in_dim)
        nn.init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            nn.init.uniform_(self.bias, -bound, bound)

    def extra_repr(self) -> str:
        return (
            f"in_dim={self.in_dim}, out_dim={self.out_dim}, num_maps={self.num_maps}, "
            f"bias={self.bias is not None}"
        )


class SchurLayer(_WeightedLayer):
    """Schur layer of one template: ``Y = sum_j P_j X W_j + b`` for every occurrence.

    Parameters
    ----------
    template_adj
        Adjacency [m, m] of the template subgraph, in the node order of the occurrences'
        rows (e.g. ``cycle_adjacency(6)`` for cycles from ``find_cycles``).
    in_dim, out_dim
        Channels in and out.
    bias
        Add a learnable per-channel bias b [out_dim] (the same on every node: equivariant).

    Attributes
    ----------
    eigenvalues : Tensor [J]
        Distinct Laplacian eigenvalues, ascending; ``weight[j]`` belongs to ``eigenvalues[j]``.
    projectors : Tensor [J, m, m]
        The eigenspace projectors P_j (buffer).
    weight : Parameter [J, in_dim, out_dim]
        W_j in eigenvalue order.
    bias : Parameter [out_dim] or None

    ``forward(x)``: x [K, m, in_dim] (K occurrences) -> [K, m, out_dim]. Computed in the
    eigenbasis (U^T X, one matmul per eigenvector with its eigenspace's W_j, then U), so the
    cost is that of one dense layer plus two m x m transforms.
    """

    def __init__(self, template_adj: Any, in_dim: int, out_dim: int, *, bias: bool = True):
        vals, proj = eigenspace_projectors(template_adj)
        _, vecs, groups = _eigenspaces(laplacian_matrix(template_adj), 1e-6)
        super().__init__(len(vals), in_dim, out_dim, bias)
        self.m = int(proj.shape[1])
        dtype = torch.get_default_dtype()
        self.register_buffer("eigenvalues", torch.as_tensor(vals, dtype=dtype))
        self.register_buffer("projectors", torch.as_tensor(proj, dtype=dtype))
        self.register_buffer("_basis", torch.as_tensor(np.ascontiguousarray(vecs), dtype=dtype))
        self.register_buffer("_groups", torch.as_tensor(groups, dtype=torch.long))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = _check_occurrences(x, self.m, self.in_dim)
        k, m, c = x.shape
        u = self._basis.to(x.dtype)
        # spectral coefficients, one row per eigenvector: [m, K, in]
        xh = (u.T @ x.transpose(0, 1).reshape(m, k * c)).reshape(m, k, c)
        w = self.weight.to(x.dtype)[self._groups]  # [m, in, out]: W_j of each eigenvector
        yh = torch.bmm(xh, w)  # [m, K, out]
        y = (u @ yh.reshape(m, k * self.out_dim)).reshape(m, k, self.out_dim).transpose(0, 1)
        if self.bias is not None:
            y = y + self.bias.to(x.dtype)
        return y

    def extra_repr(self) -> str:
        return f"m={self.m}, " + super().extra_repr()


class LinmapsLayer(_WeightedLayer):
    """First-order P-tensor "linmaps" baseline: ``Y = X W_1 + (1/m) 1 1^T X W_2 + b``.

    Equivariant to all of S_m (it ignores the subgraph's structure). ``forward(x)``:
    x [K, m, in_dim] -> [K, m, out_dim]; m may differ between calls.
    """

    def __init__(self, in_dim: int, out_dim: int, *, bias: bool = True):
        super().__init__(2, in_dim, out_dim, bias)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = _check_occurrences(x, None, self.in_dim)
        w = self.weight.to(x.dtype)
        y = x @ w[0] + x.mean(dim=1, keepdim=True) @ w[1]
        if self.bias is not None:
            y = y + self.bias.to(x.dtype)
        return y
