"""Synthetic node-classification graphs (no downloads): a CSBM with controllable edge homophily
and a "long-range" task whose labels are invisible to the local neighbourhood."""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor

from ._checks import check_float, check_generator, check_int, check_probability

__all__ = ["NodeData", "csbm", "long_range_task", "split_nodes"]


@dataclass(frozen=True)
class NodeData:
    """One graph for node classification: features, edges (both directions), labels, splits."""

    x: Tensor
    edge_index: Tensor
    y: Tensor
    train_idx: Tensor
    val_idx: Tensor
    test_idx: Tensor

    @property
    def num_nodes(self) -> int:
        return int(self.x.shape[0])

    @property
    def num_classes(self) -> int:
        return int(self.y.max()) + 1

    def edge_homophily(self) -> float:
        """Fraction of edges joining two nodes of the same class."""
        s, d = self.edge_index
        return float((self.y[s] == self.y[d]).float().mean())


def split_nodes(num_nodes: int, *, train: float = 0.5, val: float = 0.25, generator=None):
    """A random (train, val, test) split of ``range(num_nodes)`` by fractions."""
    num_nodes = check_int(num_nodes, "num_nodes", minimum=3)
    train = check_probability(train, "train", allow_zero=False, allow_one=False)
    val = check_probability(val, "val", allow_zero=False, allow_one=False)
    if train + val >= 1.0:
        raise ValueError(f"train + val must be < 1, got {train} + {val}")
    perm = torch.randperm(num_nodes, generator=check_generator(generator))
    a, b = int(train * num_nodes), int((train + val) * num_nodes)
    return perm[:a], perm[a:b], perm[b:]


def _features(y: Tensor, num_classes: int, feature_dim: int, signal: float, g) -> Tensor:
    means = torch.randn(num_classes, feature_dim, generator=g)
    means = means / means.norm(dim=1, keepdim=True)
    return signal * means[y] + torch.randn(y.numel(), feature_dim, generator=g) / feature_dim**0.5


def csbm(
    num_nodes: int,
    num_classes: int,
    *,
    homophily: float = 0.3,
    avg_degree: float = 8.0,
    feature_dim: int = 32,
    signal: float = 1.0,
    generator=None,
) -> NodeData:
    """A contextual stochastic block model: balanced random labels; ``num_nodes * avg_degree / 2``
    undirected edges, each joining a uniform node to a node of its own class with probability
    ``homophily`` and of another class otherwise; features ``signal * mu_y + N(0, I/feature_dim)``
    with unit-norm random class means. Splits 50/25/25."""
    n = check_int(num_nodes, "num_nodes", minimum=3)
    c = check_int(num_classes, "num_classes", minimum=2, maximum=n)
    h = check_probability(homophily, "homophily")
    avg_degree = check_float(avg_degree, "avg_degree", minimum=0.0, min_inclusive=False)
    f = check_int(feature_dim, "feature_dim", minimum=1)
    signal = check_float(signal, "signal", minimum=0.0)
    g = check_generator(generator)
    y = torch.randperm(n, generator=g) % c
    members = [torch.nonzero(y == k).flatten() for k in range(c)]
    m = max(1, int(round(n * avg_degree / 2)))
    src = torch.randint(0, n, (m,), generator=g)
    same = torch.rand(m, generator=g) < h
    shift = torch.randint(1, c, (m,), generator=g)
    target_class = torch.where(same, y[src], (y[src] + shift) % c)
    dst = torch.empty(m, dtype=torch.long)
    for k in range(c):
        sel = target_class == k
        pick = torch.randint(0, members[k].numel(), (int(sel.sum()),), generator=g)
        dst[sel] = members[k][pick]
    keep = src != dst
    src, dst = src[keep], dst[keep]
    edge_index = torch.cat([torch.stack([src, dst]), torch.stack([dst, src])], dim=1)
    x = _features(y, c, f, signal, g)
    tr, va, te = split_nodes(n, generator=g)
    return NodeData(x, edge_index, y, tr, va, te)


def long_range_task(
    num_nodes: int,
    num_classes: int = 5,
    *,
    degree: int = 10,
    feature_dim: int = 32,
    signal: float = 1.0,
    generator=None,
) -> NodeData:
    """Labels that the local neighbourhood cannot see: nodes sit on a ring lattice (each joined
    to its ``degree`` nearest ring neighbours) in random order, so every edge is independent of
    the labels (edge homophily ~ 1/num_classes); the class signal is only in each node's own
    features and in the same-class nodes spread over the whole graph. A 2-layer GCN averages
    the signal over ~degree^2 unrelated nodes; the global branch keeps a node-wise path and an
    all-pair view."""
    n = check_int(num_nodes, "num_nodes", minimum=3)
    c = check_int(num_classes, "num_classes", minimum=2, maximum=n)
    degree = check_int(degree, "degree", minimum=2, maximum=n - 1)
    f = check_int(feature_dim, "feature_dim", minimum=1)
    signal = check_float(signal, "signal", minimum=0.0)
    g = check_generator(generator)
    y = torch.randperm(n, generator=g) % c
    order = torch.randperm(n, generator=g)
    pos = torch.arange(n)
    src, dst = [], []
    for off in range(1, degree // 2 + 1):
        src.append(order[pos])
        dst.append(order[(pos + off) % n])
    src, dst = torch.cat(src), torch.cat(dst)
    edge_index = torch.cat([torch.stack([src, dst]), torch.stack([dst, src])], dim=1)
    x = _features(y, c, f, signal, g)
    tr, va, te = split_nodes(n, generator=g)
    return NodeData(x, edge_index, y, tr, va, te)
