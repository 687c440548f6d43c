"""PyTorch models (extra ``torch``): a sum-aggregation GraphConv network and EGONN.

No torch-geometric needed: message passing is ``index_add_`` over ``edge_index``. As in
torch-geometric, messages flow along the given directions (``edge_index[0] -> edge_index[1]``),
so pass both directions of an undirected graph (as ``gnn_individualize.data`` returns them).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

try:
    import torch
    from torch import nn
except ImportError as e:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        "gnn_individualize.models needs PyTorch: pip install 'gnn-individualize[torch]'"
    ) from e

from ._checks import check_array, check_int, check_option, check_tensor
from .ego import SCHEMES, EgoBatch, ego_batch
from .schemes import MAX_BITS

__all__ = ["EgoNN", "GraphConv", "GraphConvNet", "to_batch"]


def _check_inputs(
    x: Any, edge_index: Any, batch: Any, in_dim: int
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, int]:
    x = check_tensor(x, "x", ndim=2, dtype="floating")
    if x.shape[1] != in_dim:
        raise ValueError(f"x must have shape (N, {in_dim}), got shape {tuple(x.shape)}")
    n = x.shape[0]
    edge_index = check_tensor(edge_index, "edge_index", ndim=2, dtype="integer", allow_empty=True)
    if edge_index.shape[0] != 2:
        raise ValueError(f"edge_index must have shape (2, E), got shape {tuple(edge_index.shape)}")
    if edge_index.numel() and (int(edge_index.min()) < 0 or int(edge_index.max()) >= n):
        raise ValueError(
            f"edge_index must hold node indices in [0, N={n}), got values in "
            f"[{int(edge_index.min())}, {int(edge_index.max())}]"
        )
    if batch is None:
        batch = torch.zeros(n, dtype=torch.long, device=x.device)
    else:
        batch = check_tensor(batch, "batch", ndim=1, dtype="integer")
        if batch.shape[0] != n:
            raise ValueError(f"batch has {batch.shape[0]} entries but x has {n} rows")
        if int(batch.min()) < 0:
            raise ValueError(f"batch must hold non-negative graph indices, got {int(batch.min())}")
    return x, edge_index.long(), batch.long(), int(batch.max()) + 1


def _dims(**dims: Any) -> tuple[int, ...]:
    """Layer widths: positive integers, checked in order (errors name the argument)."""
    return tuple(check_int(v, k, minimum=1) for k, v in dims.items())


class GraphConv(nn.Module):
    """``h_v' = W_rel (sum of h_u over edges u -> v) + b + W_root h_v`` (torch-geometric's
    GraphConv with ``aggr="add"``: ``lin_rel`` has the bias, ``lin_root`` none)."""

    def __init__(self, in_dim: int, out_dim: int) -> None:
        super().__init__()
        self.lin_rel = nn.Linear(in_dim, out_dim, bias=True)
        self.lin_root = nn.Linear(in_dim, out_dim, bias=False)

    def forward(self, x: torch.Tensor, edge_index: torch.Tensor) -> torch.Tensor:
        agg = torch.zeros_like(x).index_add_(0, edge_index[1], x[edge_index[0]])
        return self.lin_rel(agg) + self.lin_root(x)


def _pool(h: torch.Tensor, batch: torch.Tensor, num_graphs: int, pool: str) -> torch.Tensor:
    out = h.new_zeros((num_graphs, h.shape[1]))
    if pool == "sum":
        return out.index_add_(0, batch, h)
    idx = batch[:, None].expand_as(h)
    return out.scatter_reduce(0, idx, h, reduce="amax", include_self=False)


class GraphConvNet(nn.Module):
    """``layers`` GraphConv layers with ReLU, sum (or max) pooling per graph, and an MLP head
    ``hidden -> hidden -> out_dim`` (ReLU between): the paper's individualized MPNN.

    ``forward(x [N, in_dim], edge_index [2, E], batch [N] | None) -> logits [G, out_dim]``
    with G = ``batch.max() + 1`` (1 without ``batch``). ``layers=0`` pools the input features.
    """

    def __init__(
        self, in_dim: int, hidden: int, out_dim: int, *, layers: int = 4, pool: str = "sum"
    ) -> None:
        super().__init__()
        self.in_dim, hidden, out_dim = _dims(in_dim=in_dim, hidden=hidden, out_dim=out_dim)
        layers = check_int(layers, "layers", minimum=0)
        self.pool = check_option(pool, "pool", ("sum", "max"))
        dims = [self.in_dim] + [hidden] * layers
        self.convs = nn.ModuleList(GraphConv(a, b) for a, b in zip(dims[:-1], dims[1:]))
        self.mlp = nn.Sequential(nn.Linear(dims[-1], hidden), nn.ReLU(), nn.Linear(hidden, out_dim))

    def embed(self, x: Any, edge_index: Any, batch: Any = None) -> torch.Tensor:
        """Pooled graph embeddings [G, hidden] (before the MLP head)."""
        x, edge_index, batch, num_graphs = _check_inputs(x, edge_index, batch, self.in_dim)
        for conv in self.convs:
            x = conv(x, edge_index).relu()
        return _pool(x, batch, num_graphs, self.pool)

    def forward(self, x: Any, edge_index: Any, batch: Any = None) -> torch.Tensor:
        return self.mlp(self.embed(x, edge_index, batch))


class EgoNN(nn.Module):
    """EGONN (substructure identification): every node's ``radius``-hop induced ego-net is
    individualized on its own (``scheme``, ``bits`` identifiers appended to the features), a
    ``layers``-deep GraphConv network runs on each ego-net, its nodes are summed into
    ``pattern_channels`` values per ego-net, the ego-nets of a graph are combined by softmax
    aggregation (temperature 1, weights without gradient, a smooth max), and an MLP
    ``pattern_channels -> 2 out_dim -> out_dim`` gives the logits. ``radius`` defaults to
    ``layers``.

    ``forward(x [N, in_dim], edge_index [2, E], batch [N] | None, *, egos=None) -> [G, out_dim]``;
    pass ``egos=gnn_individualize.ego_batch(...)`` (same radius, scheme and bits) to compute the
    ego-nets once per dataset instead of on every call (and to seed RP/RNI identifiers).
    """

    def __init__(
        self,
        in_dim: int,
        hidden: int,
        pattern_channels: int,
        out_dim: int,
        *,
        layers: int = 1,
        radius: int | None = None,
        scheme: str = "tinhofer",
        bits: int = 6,
        k_weak: int = 0,
    ) -> None:
        super().__init__()
        self.in_dim, hidden, pattern_channels, out_dim = _dims(
            in_dim=in_dim, hidden=hidden, pattern_channels=pattern_channels, out_dim=out_dim
        )
        self.layers = check_int(layers, "layers", minimum=1)
        self.radius = self.layers if radius is None else check_int(radius, "radius", minimum=0)
        self.scheme = check_option(scheme, "scheme", SCHEMES)
        self.bits = check_int(bits, "bits", minimum=1, maximum=MAX_BITS)
        self.k_weak = check_int(k_weak, "k_weak", minimum=0)
        width = self.in_dim + (0 if self.scheme == "none" else self.bits)
        dims = [width] + [hidden] * self.layers
        self.convs = nn.ModuleList(GraphConv(a, b) for a, b in zip(dims[:-1], dims[1:]))
        self.down = nn.Linear(hidden, pattern_channels, bias=False)
        self.mlp = nn.Sequential(
            nn.Linear(pattern_channels, 2 * out_dim), nn.ReLU(), nn.Linear(2 * out_dim, out_dim)
        )

    def egos(
        self, edge_index: Any, num_nodes: int, batch: Any = None, *, rng: Any = None
    ) -> EgoBatch:
        """The ``EgoBatch`` this model expects for a (batch of) graph(s)."""
        ei = (
            edge_index.detach().cpu().numpy()
            if isinstance(edge_index, torch.Tensor)
            else edge_index
        )
        b = batch.detach().cpu().numpy() if isinstance(batch, torch.Tensor) else batch
        return ego_batch(
            ei,
            num_nodes,
            radius=self.radius,
            scheme=self.scheme,
            bits=self.bits,
            k_weak=self.k_weak,
            batch=b,
            rng=rng,
        )

    def forward(
        self, x: Any, edge_index: Any, batch: Any = None, *, egos: EgoBatch | None = None
    ) -> torch.Tensor:
        x, edge_index, batch, num_graphs = _check_inputs(x, edge_index, batch, self.in_dim)
        n = x.shape[0]
        if egos is None:
            egos = self.egos(edge_index, n, batch)
        elif not isinstance(egos, EgoBatch):
            raise TypeError(f"egos must be an EgoBatch or None, got {type(egos).__name__}")
        if egos.num_egos != n or egos.ids.shape[1] != (0 if self.scheme == "none" else self.bits):
            raise ValueError(
                f"egos does not fit: {egos.num_egos} ego-nets with {egos.ids.shape[1]} identifier "
                f"columns for {n} nodes and bits={self.bits}, scheme={self.scheme!r}"
            )
        dev = x.device
        node = torch.as_tensor(egos.node, device=dev)
        ego = torch.as_tensor(egos.ego, device=dev)
        eei = torch.as_tensor(egos.edge_index, device=dev)
        ids = torch.as_tensor(egos.ids, dtype=x.dtype, device=dev)
        h = torch.cat([x[node], ids], dim=1)
        for conv in self.convs:
            h = conv(h, eei).relu()
        h = self.down(h)
        z = h.new_zeros((n, h.shape[1])).index_add_(0, ego, h)  # one vector per ego-net
        # softmax aggregation over the ego-nets of each graph (weights without gradient)
        w = z.detach()
        idx = batch[:, None].expand_as(w)
        gmax = w.new_full((num_graphs, w.shape[1]), -torch.inf)
        gmax = gmax.scatter_reduce(0, idx, w, reduce="amax", include_self=True)
        e = torch.exp(w - gmax[batch])
        alpha = e / e.new_zeros((num_graphs, w.shape[1])).index_add_(0, batch, e)[batch]
        pooled = z.new_zeros((num_graphs, z.shape[1])).index_add_(0, batch, alpha * z)
        return self.mlp(pooled)


def to_batch(
    graphs: Sequence[tuple[Any, Any]],
    features: Sequence[Any] | None = None,
    *,
    dtype: torch.dtype = torch.float32,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """``(x, edge_index, batch)`` tensors of a list of ``(edge_index, num_nodes)`` graphs and
    their node features (``features[i]`` [n_i, F]; None: one constant feature 1 per node)."""
    from .data import disjoint_union

    ei, n, batch = disjoint_union(graphs)
    if features is None:
        x = np.ones((n, 1))
    else:
        if len(features) != len(graphs):
            raise ValueError(f"features has {len(features)} entries but graphs has {len(graphs)}")
        xs = [check_array(f, f"features[{i}]", ndim=2) for i, f in enumerate(features)]
        for i, (f, (_, ni)) in enumerate(zip(xs, graphs)):
            if f.shape[0] != ni:
                raise ValueError(
                    f"features[{i}] has {f.shape[0]} rows but graph {i} has {ni} nodes"
                )
        x = np.concatenate(xs)
    return (
        torch.as_tensor(x, dtype=dtype),
        torch.as_tensor(ei, dtype=torch.long),
        torch.as_tensor(batch, dtype=torch.long),
    )
