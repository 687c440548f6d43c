"""SchurGNN: GIN message passing plus cycle subgraph neurons with Schur (or linmaps) layers."""

from __future__ import annotations

from typing import Any

import torch
from torch import nn

from ._checks import check_bool, check_int, check_tensor
from ._validation import check_edge_index, check_sizes
from .layers import LinmapsLayer, SchurLayer
from .subgraphs import cycle_adjacency, cycle_index

__all__ = ["SchurGNN"]


def _mlp(d_in: int, d_hidden: int, d_out: int) -> nn.Sequential:
    return nn.Sequential(nn.Linear(d_in, d_hidden), nn.ReLU(), nn.Linear(d_hidden, d_out))


class SchurGNN(nn.Module):
    """Graph-level regressor/classifier: node GIN layers, and per layer and cycle size
    node -> cycle gather, a Schur layer (``use_schur=True``) or linmaps layer (``False``) inside
    each cycle, ReLU, and cycle -> node scatter-add. Cycles overlapping in nodes exchange
    information through those nodes from one layer to the next. ``cycle_sizes=()`` is plain GIN.

    ``forward(x, edge_index, batch=None, cycles=None)``: x [N, in_dim], edge_index [2, E]
    (LongTensor, one or both directions), batch [N] graph ids (None: one graph), cycles
    ``{size: LongTensor [K, size]}`` as from ``cycle_index`` (None: found here) -> [G, out_dim].
    """

    def __init__(
        self,
        in_dim: int,
        hidden: int,
        out_dim: int,
        *,
        layers: int = 3,
        cycle_sizes: Any = (5, 6),
        use_schur: bool = True,
    ):
        super().__init__()
        self.in_dim = check_int(in_dim, "in_dim", minimum=1)
        self.hidden = check_int(hidden, "hidden", minimum=1)
        self.out_dim = check_int(out_dim, "out_dim", minimum=1)
        self.num_layers = check_int(layers, "layers", minimum=1)
        self.use_schur = check_bool(use_schur, "use_schur")
        sizes = tuple(cycle_sizes) if hasattr(cycle_sizes, "__iter__") else cycle_sizes
        self.cycle_sizes = check_sizes(sizes, "cycle_sizes") if sizes != () else ()
        h = self.hidden
        self.embed = nn.Linear(self.in_dim, h)
        self.gin = nn.ModuleList([_mlp(h, h, h) for _ in range(self.num_layers)])
        self.eps = nn.Parameter(torch.zeros(self.num_layers))
        self.cycle_layers = nn.ModuleList()
        for _ in range(self.num_layers):
            per = nn.ModuleDict()
            for k in self.cycle_sizes:
                per[str(k)] = (
                    SchurLayer(cycle_adjacency(k), h, h) if self.use_schur else LinmapsLayer(h, h)
                )
            self.cycle_layers.append(per)
        self.mix = nn.ModuleList(
            [_mlp(2 * h if self.cycle_sizes else h, h, h) for _ in range(self.num_layers)]
        )
        self.norms = nn.ModuleList([nn.LayerNorm(h) for _ in range(self.num_layers)])
        self.readout = _mlp(h, h, self.out_dim)

    def forward(
        self,
        x: torch.Tensor,
        edge_index: torch.Tensor,
        batch: torch.Tensor | None = None,
        cycles: dict[int, torch.Tensor] | None = None,
    ) -> torch.Tensor:
        x = check_tensor(x, "x", ndim=2)
        n = int(x.shape[0])
        if x.shape[1] != self.in_dim:
            raise ValueError(f"x must have shape [N, in_dim={self.in_dim}], got {tuple(x.shape)}")
        check_tensor(edge_index, "edge_index", ndim=2, dtype="integer", allow_empty=True)
        ei = torch.as_tensor(check_edge_index(edge_index, "edge_index", n), device=x.device)
        # undirected: use both directions once (duplicates of an edge are kept as given)
        ei = torch.unique(torch.cat([ei, ei.flip(0)], dim=1), dim=1)
        if batch is None:
            batch = torch.zeros(n, dtype=torch.long, device=x.device)
        else:
            batch = check_tensor(batch, "batch", ndim=1, dtype="integer")
            if batch.shape[0] != n:
                raise ValueError(f"batch must have length N={n}, got {batch.shape[0]}")
            if int(batch.min()) < 0:
                raise ValueError("batch must hold non-negative graph ids")
        if self.cycle_sizes:
            if cycles is None:
                cycles = cycle_index(ei, n, sizes=self.cycle_sizes)
            elif not isinstance(cycles, dict):
                raise TypeError(f"cycles must be a dict {{size: LongTensor}}, got {type(cycles)}")
        h = self.embed(x)
        src, dst = ei[0], ei[1]
        for layer in range(self.num_layers):
            agg = torch.zeros_like(h).index_add_(0, dst, h[src])
            parts = [self.gin[layer]((1 + self.eps[layer]) * h + agg)]
            if self.cycle_sizes:
                cyc = torch.zeros_like(h)
                for k in self.cycle_sizes:
                    idx = cycles.get(k) if cycles is not None else None
                    if idx is None or idx.numel() == 0:
                        continue
                    idx = idx.to(x.device)
                    y = torch.relu(self.cycle_layers[layer][str(k)](h[idx]))  # [K, k, h]
                    cyc.index_add_(0, idx.reshape(-1), y.reshape(-1, self.hidden))
                parts.append(cyc)
            h = self.norms[layer](h + self.mix[layer](torch.cat(parts, dim=1)))
        num_graphs = int(batch.max()) + 1
        pooled = torch.zeros(num_graphs, self.hidden, dtype=h.dtype, device=h.device)
        pooled.index_add_(0, batch, h)
        return self.readout(pooled)
