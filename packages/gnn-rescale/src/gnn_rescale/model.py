"""A pure-PyTorch GATv2 network with one head, shared source/target weights and no biases.

Score of edge u -> v: ``e_uv = a^T LeakyReLU(W h_u + W h_v)``, softmax over the in-neighbours of
``v``, ``h_v' = sum_u alpha_uv W h_u``; ReLU between layers, none after the last (logits). Every
layer is positively homogeneous, hence the rescale invariance of :mod:`gnn_rescale.rescale`.
``edge_index[0]`` are sources, ``edge_index[1]`` targets (PyG's convention).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import torch
from torch import nn

from ._checks import check_bool, check_float, check_int
from ._validation import check_edge_index, check_features

__all__ = ["GATv2Layer", "GATv2Net"]


def _with_self_loops(edge_index: torch.Tensor, num_nodes: int) -> torch.Tensor:
    """Drop existing self-loops and add one per node (as PyG's GATv2Conv does)."""
    keep = edge_index[0] != edge_index[1]
    loops = torch.arange(num_nodes, device=edge_index.device).repeat(2, 1)
    return torch.cat([edge_index[:, keep], loops], dim=1)


class GATv2Layer(nn.Module):
    """One GATv2 layer: ``W`` [out_dim, in_dim], ``a`` [out_dim]."""

    def __init__(
        self, in_dim: int, out_dim: int, *, negative_slope: float = 0.2, add_self_loops: bool = True
    ) -> None:
        super().__init__()
        in_dim = check_int(in_dim, "in_dim", minimum=1)
        out_dim = check_int(out_dim, "out_dim", minimum=1)
        self.negative_slope = check_float(negative_slope, "negative_slope", minimum=0.0)
        self.add_self_loops = check_bool(add_self_loops, "add_self_loops")
        self.W = nn.Parameter(torch.empty(out_dim, in_dim))
        self.a = nn.Parameter(torch.empty(out_dim))
        self.reset_parameters()

    @property
    def in_dim(self) -> int:
        return self.W.shape[1]

    @property
    def out_dim(self) -> int:
        return self.W.shape[0]

    def reset_parameters(self, generator: torch.Generator | None = None) -> None:
        """Xavier-normal ``W`` and ``a`` (the authors' default initialisation)."""
        with torch.no_grad():
            nn.init.xavier_normal_(self.W, generator=generator)
            std = math.sqrt(2.0 / (1 + self.out_dim))  # a as a [1, out_dim] matrix
            self.a.normal_(0.0, std, generator=generator)

    def forward(self, x: torch.Tensor, edge_index: torch.Tensor) -> torch.Tensor:
        n = x.shape[0]
        if self.add_self_loops:
            edge_index = _with_self_loops(edge_index, n)
        src, dst = edge_index[0], edge_index[1]
        h = x @ self.W.t()
        z = nn.functional.leaky_relu(h[src] + h[dst], self.negative_slope)
        e = z @ self.a
        # softmax of e over the in-edges of each target node
        e_max = torch.full((n,), -math.inf, dtype=e.dtype, device=e.device)
        e_max = e_max.scatter_reduce(0, dst, e.detach(), reduce="amax", include_self=True)
        w = torch.exp(e - e_max[dst])
        denom = torch.zeros(n, dtype=e.dtype, device=e.device).index_add(0, dst, w)
        alpha = w / denom[dst]
        out = torch.zeros(n, h.shape[1], dtype=h.dtype, device=h.device)
        return out.index_add(0, dst, alpha.unsqueeze(1) * h[src])

    def extra_repr(self) -> str:
        return (
            f"{self.in_dim}, {self.out_dim}, negative_slope={self.negative_slope}, "
            f"add_self_loops={self.add_self_loops}"
        )


class GATv2Net(nn.Module):
    """An L-layer GATv2 network, ``dims = [in, hidden..., out]`` (L = len(dims) - 1).

    ``model.layers[l].W`` is [dims[l+1], dims[l]] and ``model.layers[l].a`` is [dims[l+1]];
    ``forward(x, edge_index)`` maps [N, dims[0]] to logits [N, dims[-1]].
    """

    def __init__(
        self, dims: Sequence[int], *, negative_slope: float = 0.2, add_self_loops: bool = True
    ) -> None:
        super().__init__()
        if isinstance(dims, str | bytes) or not isinstance(dims, Sequence):
            raise TypeError(f"dims must be a sequence of ints, got {type(dims).__name__}")
        if len(dims) < 2:
            raise ValueError(f"dims must list at least 2 sizes (in, out), got {list(dims)}")
        dims = [check_int(d, "dims", minimum=1) for d in dims]
        self.dims = tuple(dims)
        self.layers = nn.ModuleList(
            GATv2Layer(
                dims[i], dims[i + 1], negative_slope=negative_slope, add_self_loops=add_self_loops
            )
            for i in range(len(dims) - 1)
        )

    def reset_parameters(self, generator: torch.Generator | None = None) -> None:
        for layer in self.layers:
            layer.reset_parameters(generator)

    def forward(self, x: torch.Tensor, edge_index: torch.Tensor) -> torch.Tensor:
        check_features(x, "x", dim=self.dims[0])
        check_edge_index(edge_index, "edge_index", num_nodes=x.shape[0])
        h = x
        for i, layer in enumerate(self.layers):
            h = layer(h, edge_index)
            if i < len(self.layers) - 1:
                h = torch.relu(h)
        return h
