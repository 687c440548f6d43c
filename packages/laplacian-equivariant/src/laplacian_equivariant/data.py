"""Synthetic ring molecules (generated on the fly) and batching."""

from __future__ import annotations

from typing import Any, NamedTuple

import torch

from ._checks import check_int, check_rng
from ._validation import check_sizes
from .subgraphs import cycle_index

__all__ = ["ATOM_TYPES", "GraphBatch", "Molecule", "batch_graphs", "synthetic_molecules"]

ATOM_TYPES = ("ring", "linker", "substituent")


class Molecule(NamedTuple):
    """One graph: ``x`` [N, 3] one-hot atom type (ring, linker, substituent), ``edge_index``
    LongTensor [2, E] (both directions), ``y`` [1] the target, and the counts it is made of."""

    x: torch.Tensor
    edge_index: torch.Tensor
    y: torch.Tensor
    num_para: int
    num_meta: int
    num_ortho: int


class GraphBatch(NamedTuple):
    """Disjoint union of graphs: ``batch`` [N] graph id per node; ``cycles`` {size: [K, size]}."""

    x: torch.Tensor
    edge_index: torch.Tensor
    batch: torch.Tensor
    y: torch.Tensor
    cycles: dict[int, torch.Tensor]


def _ring_pairs(ring: list[int], substituted: set[int]) -> tuple[int, int, int]:
    """(para, meta, ortho) substituted pairs on a 6-ring, by ring distance 3, 2, 1."""
    counts = [0, 0, 0, 0]
    k = len(ring)
    for a in range(k):
        for b in range(a + 1, k):
            if ring[a] in substituted and ring[b] in substituted:
                counts[min(b - a, k - (b - a))] += 1
    return counts[3], counts[2], counts[1]


def synthetic_molecules(
    n_graphs: int,
    *,
    rng: Any = None,
    max_rings: int = 3,
    substituent_prob: float = 0.35,
) -> list[Molecule]:
    """Random ring molecules: 1..``max_rings`` rings of 5 or 6 atoms joined by a linker atom,
    each free ring atom carrying a substituent atom with probability ``substituent_prob``.

    Target (the para/meta/ortho task of the brief): ``y = #para - 0.5 * #meta`` over the
    6-rings, a ring atom counting as substituted when it has a neighbour outside its ring
    (substituent or linker). A para pair (ring distance 3) is an antipodal pair of the 6-cycle.
    """
    from ._checks import check_probability

    n_graphs = check_int(n_graphs, "n_graphs", minimum=1)
    max_rings = check_int(max_rings, "max_rings", minimum=1)
    p = check_probability(substituent_prob, "substituent_prob")
    gen = check_rng(rng)
    out = []
    for _ in range(n_graphs):
        types: list[int] = []
        edges: list[tuple[int, int]] = []
        rings: list[list[int]] = []
        for _ in range(int(gen.integers(1, max_rings + 1))):
            size = int(gen.choice([5, 6]))
            ring = list(range(len(types), len(types) + size))
            types += [0] * size
            edges += [(ring[i], ring[(i + 1) % size]) for i in range(size)]
            if rings:  # join to a random atom of a previous ring through a linker atom
                prev = rings[int(gen.integers(len(rings)))]
                a, b = int(gen.choice(prev)), int(gen.choice(ring))
                link = len(types)
                types.append(1)
                edges += [(a, link), (link, b)]
            rings.append(ring)
        outside = {u for u, v in edges if types[v] == 1} | {v for u, v in edges if types[u] == 1}
        for ring in rings:
            for atom in ring:
                if atom not in outside and gen.random() < p:
                    s = len(types)
                    types.append(2)
                    edges.append((atom, s))
        substituted = {u for u, v in edges if types[v] != 0} | {
            v for u, v in edges if types[u] != 0
        }
        para = meta = ortho = 0
        for ring in rings:
            if len(ring) == 6:
                a, b, c = _ring_pairs(ring, substituted)
                para, meta, ortho = para + a, meta + b, ortho + c
        e = torch.tensor(edges, dtype=torch.long).T
        x = torch.nn.functional.one_hot(torch.tensor(types), len(ATOM_TYPES)).float()
        y = torch.tensor([para - 0.5 * meta], dtype=torch.get_default_dtype())
        out.append(Molecule(x, torch.cat([e, e.flip(0)], dim=1), y, para, meta, ortho))
    return out


def batch_graphs(graphs: Any, *, cycle_sizes: Any = (5, 6)) -> GraphBatch:
    """Stack graphs (objects with ``x``, ``edge_index``, ``y``) into one disjoint union, with the
    cycles of ``cycle_sizes`` found once (``cycle_sizes=()`` for none)."""
    graphs = list(graphs)
    if not graphs:
        raise ValueError("graphs must not be empty")
    sizes = check_sizes(cycle_sizes, "cycle_sizes") if len(tuple(cycle_sizes)) else ()
    xs, es, bs, ys = [], [], [], []
    offset = 0
    for i, g in enumerate(graphs):
        n = int(g.x.shape[0])
        xs.append(g.x)
        es.append(g.edge_index + offset)
        bs.append(torch.full((n,), i, dtype=torch.long))
        ys.append(g.y.reshape(-1))
        offset += n
    edge_index = torch.cat(es, dim=1)
    cycles = cycle_index(edge_index, offset, sizes=sizes) if sizes else {}
    return GraphBatch(torch.cat(xs), edge_index, torch.cat(bs), torch.stack(ys), cycles)
