"""First-order equivariant layers on subgraph occurrences: SchurLayer and LinmapsLayer."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import torch
from torch import nn

from ._checks import check_bool, check_int, check_tensor
from ._validation import check_adjacency
from .spectral import _eigenspaces, eigenspace_projectors, laplacian_matrix

__all__ = ["LinmapsLayer", "SchurLayer", "SecondOrderSchurLayer"]


def _check_second_order(x: Any, m: int, in_dim: int) -> torch.Tensor:
    x = check_tensor(x, "x", ndim=4, allow_empty=True)
    if tuple(x.shape[1:]) != (m, m, in_dim):
        raise ValueError(
            f"x must have shape [K, m={m}, m={m}, in_dim={in_dim}], got shape {tuple(x.shape)}"
        )
    return x


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

    def __init__(self, num_maps: int | tuple[int, ...], in_dim: int, out_dim: int, bias: Any):
        super().__init__()
        self.in_dim = check_int(in_dim, "in_dim", minimum=1)
        self.out_dim = check_int(out_dim, "out_dim", minimum=1)
        bias = check_bool(bias, "bias")
        maps = tuple(num_maps) if isinstance(num_maps, tuple) else (int(num_maps),)
        self.num_maps = math.prod(maps)
        self.weight = nn.Parameter(torch.empty(*maps, self.in_dim, self.out_dim))
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


class _TemplateLayer(_WeightedLayer):
    """A layer built on one template's Laplacian eigenbasis (buffers shared by both orders)."""

    def __init__(self, template_adj: Any, order: int, in_dim: int, out_dim: int, bias: Any):
        template_adj = check_adjacency(template_adj, "template_adj")  # errors name the argument
        vals, proj = eigenspace_projectors(template_adj)
        _, vecs, groups = _eigenspaces(laplacian_matrix(template_adj), 1e-6)
        super().__init__((len(vals),) * order, in_dim, out_dim, bias)
        self.m = int(proj.shape[1])
        dtype = torch.get_default_dtype()
        self.register_buffer("eigenvalues", torch.as_tensor(vals, dtype=dtype))
        self.register_buffer("projectors", torch.as_tensor(proj, dtype=dtype))
        self.register_buffer("_basis", torch.as_tensor(np.ascontiguousarray(vecs), dtype=dtype))
        self.register_buffer("_groups", torch.as_tensor(groups, dtype=torch.long))

    def extra_repr(self) -> str:
        return f"m={self.m}, " + super().extra_repr()


class SchurLayer(_TemplateLayer):
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
        super().__init__(template_adj, 1, in_dim, out_dim, bias)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = _check_occurrences(x, self.m, self.in_dim)
        u = self._basis.to(x.dtype)
        # spectral coefficients, one row per eigenvector: [m, K, in] (einsum picks a single
        # GEMM over the flattened K x in axis; an explicit transpose + reshape copies twice)
        xh = torch.einsum("ba,kbc->akc", u, x)
        w = self.weight.to(x.dtype)[self._groups]  # [m, in, out]: W_j of each eigenvector
        yh = torch.bmm(xh, w)  # [m, K, out]
        y = torch.einsum("ab,bko->kao", u, yh)
        if self.bias is not None:
            y = y + self.bias.to(x.dtype)
        return y


class SecondOrderSchurLayer(_TemplateLayer):
    """Second-order Schur layer of one template: ``Y = sum_{i,j} P_i X P_j W_ij + b``.

    The paper's second-order form (theory there, not used in its experiments): each occurrence
    carries a second-order tensor X [m, m, in] (e.g. edge features of the subgraph, rows and
    columns in the template's node order), and Y(sigma X sigma^T) = sigma Y(X) sigma^T for every
    automorphism sigma. The J^2 maps X -> P_i X P_j are linearly independent; they span a
    subspace of the group-theoretic second-order maps (which also include, e.g., transposes and
    diagonal extraction).

    Parameters are those of :class:`SchurLayer`. Attributes: ``eigenvalues`` [J],
    ``projectors`` [J, m, m], ``weight`` [J, J, in_dim, out_dim] (``weight[i, j]`` = W_ij,
    eigenvalue order on both axes), ``bias`` [out_dim] (the same on every entry) or None.

    ``forward(x)``: x [K, m, m, in_dim] -> [K, m, m, out_dim], computed in the eigenbasis
    (U^T X U, one weight per pair of eigenvectors, then U Y U^T).
    """

    def __init__(self, template_adj: Any, in_dim: int, out_dim: int, *, bias: bool = True):
        super().__init__(template_adj, 2, in_dim, out_dim, bias)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = _check_second_order(x, self.m, self.in_dim)
        u = self._basis.to(x.dtype)
        g = self._groups
        xh = torch.einsum("ba,kbcf,cd->kadf", u, x, u)  # U^T X U per channel
        w = self.weight.to(x.dtype)[g[:, None], g[None, :]]  # [m, m, in, out]
        yh = torch.einsum("kadf,adfo->kado", xh, w)
        y = torch.einsum("ab,kbco,dc->kado", u, yh, u)  # U Y U^T
        if self.bias is not None:
            y = y + self.bias.to(x.dtype)
        return y


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
