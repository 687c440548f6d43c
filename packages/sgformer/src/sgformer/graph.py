"""Graph utilities: symmetric GCN normalisation, propagation, node blocks, induced subgraphs."""

from __future__ import annotations

import torch
from torch import Tensor

from ._checks import check_bool, check_generator, check_int
from ._validation import as_edge_index, as_index_tensor

__all__ = ["gcn_norm", "induced_subgraph", "propagate", "random_node_blocks"]


def _infer_num_nodes(ei: Tensor, num_nodes, *extra: Tensor) -> int:
    if num_nodes is not None:
        return check_int(num_nodes, "num_nodes", minimum=1)
    hi = -1
    for t in (ei, *extra):
        if t.numel():
            hi = max(hi, int(t.max()))
    if hi < 0:
        raise ValueError("num_nodes must be given when edge_index is empty")
    return hi + 1


def gcn_norm(edge_index, num_nodes: int, *, add_self_loops: bool = True):
    """The symmetric-normalised adjacency D^{-1/2} (A [+ I]) D^{-1/2} of the undirected graph,
    as ``(index [2, E'], weight [E'])`` (row = target, col = source). ``edge_index`` may hold
    one or both directions of each edge; duplicates and given self-loops are merged."""
    num_nodes = check_int(num_nodes, "num_nodes", minimum=1)
    check_bool(add_self_loops, "add_self_loops")
    ei = as_edge_index(edge_index, num_nodes=num_nodes)
    row, col = ei
    keep = row != col
    row, col = row[keep], col[keep]
    und = torch.cat([torch.stack([row, col]), torch.stack([col, row])], dim=1)
    if add_self_loops:
        loop = torch.arange(num_nodes, device=ei.device)
        und = torch.cat([und, torch.stack([loop, loop])], dim=1)
    und = torch.unique(und[0] * num_nodes + und[1])
    row, col = und // num_nodes, und % num_nodes
    deg = torch.zeros(num_nodes, dtype=torch.float64, device=ei.device)
    deg.index_add_(0, row, torch.ones_like(row, dtype=torch.float64))
    dinv = deg.pow(-0.5)
    dinv[deg == 0] = 0.0
    return torch.stack([row, col]), (dinv[row] * dinv[col])


def propagate(x: Tensor, norm_index: Tensor, norm_weight: Tensor) -> Tensor:
    """out[i] = sum_j w_ij x[j] for the (index, weight) pair from :func:`gcn_norm`."""
    row, col = norm_index
    out = torch.zeros_like(x)
    out.index_add_(0, row, x[col] * norm_weight.to(x.dtype).unsqueeze(-1))
    return out


def random_node_blocks(num_nodes: int, batch_size: int, *, generator=None) -> list[Tensor]:
    """Shuffle ``range(num_nodes)`` and cut it into consecutive blocks of ``batch_size`` nodes
    (the last one may be smaller): a partition of the nodes, as the paper's mini-batching does
    every epoch. Returns a list of int64 tensors."""
    num_nodes = check_int(num_nodes, "num_nodes", minimum=1)
    batch_size = check_int(batch_size, "batch_size", minimum=1)
    generator = check_generator(generator)
    perm = torch.randperm(num_nodes, generator=generator)
    return list(torch.split(perm, batch_size))


def induced_subgraph(edge_index, nodes, *, num_nodes: int | None = None) -> Tensor:
    """The edges of ``edge_index`` with both ends in ``nodes``, relabelled so that local node i
    is ``nodes[i]`` (deterministic: the edges keep their original order). ``nodes`` must be
    distinct. Returns an int64 [2, E'] tensor."""
    ei = as_edge_index(edge_index)
    nodes = as_index_tensor(nodes, "nodes", ndim=1, allow_empty=False)
    n = _infer_num_nodes(ei, num_nodes, nodes)
    if int(nodes.min()) < 0 or int(nodes.max()) >= n:
        raise ValueError(
            f"nodes must lie in [0, {n}), got values in [{int(nodes.min())}, {int(nodes.max())}]"
        )
    if ei.numel() and int(ei.max()) >= n:
        raise ValueError(
            f"edge_index holds node index {int(ei.max())}, out of range for num_nodes={n}"
        )
    local = torch.full((n,), -1, dtype=torch.long, device=ei.device)
    local[nodes] = torch.arange(nodes.numel(), device=ei.device)
    if int((local >= 0).sum()) != nodes.numel():
        raise ValueError("nodes must be distinct, got repeated node ids")
    src, dst = local[ei[0]], local[ei[1]]
    keep = (src >= 0) & (dst >= 0)
    return torch.stack([src[keep], dst[keep]])
