"""Synthetic node-classification graphs (contextual stochastic block models)."""

from __future__ import annotations

from typing import NamedTuple

import torch

from ._checks import check_float, check_generator, check_int, check_option

__all__ = ["NodeData", "csbm", "random_split"]


class NodeData(NamedTuple):
    """``x`` [N, F] float, ``edge_index`` [2, E] (both directions), ``y`` [N] int labels."""

    x: torch.Tensor
    edge_index: torch.Tensor
    y: torch.Tensor


def csbm(
    n: int,
    num_classes: int,
    *,
    homophily: float = 0.5,
    avg_degree: float = 10.0,
    feat_dim: int = 16,
    signal: float = 1.0,
    mixing: str = "uniform",
    generator: torch.Generator | None = None,
) -> NodeData:
    """A CSBM graph: balanced random labels; each node draws about ``avg_degree / 2`` edges, a
    fraction ``homophily`` of them to its own class and the rest to other classes (so the edge
    homophily is about ``homophily``); duplicates and self-loops removed, both directions
    stored. ``mixing`` says where the other-class edges go: ``"uniform"`` over the other classes,
    or ``"paired"`` to one partner class (``c xor 1``; needs an even ``num_classes``), which
    makes a heterophilic neighbourhood informative about the node's class, as in heterophilic
    benchmarks such as roman-empire. Features: class mean (unit vectors times ``signal``) plus
    standard normal noise."""
    n = check_int(n, "n", minimum=2)
    num_classes = check_int(num_classes, "num_classes", minimum=2, maximum=n)
    homophily = check_float(homophily, "homophily", minimum=0.0, maximum=1.0)
    avg_degree = check_float(avg_degree, "avg_degree", minimum=0.0, min_inclusive=False)
    feat_dim = check_int(feat_dim, "feat_dim", minimum=1)
    signal = check_float(signal, "signal", minimum=0.0)
    mixing = check_option(mixing, "mixing", ("uniform", "paired"))
    if mixing == "paired" and num_classes % 2:
        raise ValueError(f'mixing="paired" needs an even num_classes, got {num_classes}')
    generator = check_generator(generator)
    y = torch.randperm(n, generator=generator) % num_classes
    m = max(1, round(n * avg_degree / 2))
    src = torch.randint(0, n, (m,), generator=generator)
    same = torch.rand(m, generator=generator) < homophily
    by_class = [torch.nonzero(y == c).view(-1) for c in range(num_classes)]
    dst = torch.empty(m, dtype=torch.long)
    for i in range(m):
        c = int(y[src[i]])
        if same[i]:
            pool = by_class[c]
        elif mixing == "paired":
            pool = by_class[c ^ 1]
        else:
            other = int(torch.randint(0, num_classes - 1, (1,), generator=generator))
            pool = by_class[other + (other >= c)]
        dst[i] = pool[int(torch.randint(0, len(pool), (1,), generator=generator))]
    e = torch.stack([src, dst])
    e = e[:, e[0] != e[1]]
    e = torch.cat([e, e.flip(0)], 1)
    e = torch.unique(e, dim=1)
    means = torch.randn(num_classes, feat_dim, generator=generator)
    means = signal * means / means.norm(dim=1, keepdim=True)
    x = means[y] + torch.randn(n, feat_dim, generator=generator)
    return NodeData(x, e, y)


def random_split(
    n: int, *, train: float = 0.5, val: float = 0.25, generator: torch.Generator | None = None
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Boolean masks (train, val, test) of a random split of ``n`` nodes."""
    n = check_int(n, "n", minimum=3)
    train = check_float(train, "train", minimum=0.0, maximum=1.0, min_inclusive=False)
    val = check_float(val, "val", minimum=0.0, maximum=1.0)
    if train + val >= 1.0:
        raise ValueError(f"train + val must be < 1, got train={train}, val={val}")
    generator = check_generator(generator)
    perm = torch.randperm(n, generator=generator)
    n_tr, n_va = max(1, int(train * n)), int(val * n)
    masks = []
    for lo, hi in ((0, n_tr), (n_tr, n_tr + n_va), (n_tr + n_va, n)):
        m = torch.zeros(n, dtype=torch.bool)
        m[perm[lo:hi]] = True
        masks.append(m)
    return masks[0], masks[1], masks[2]
