"""Synthetic ring molecules (generated on the fly) and batching."""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
import torch

from ._checks import check_int, check_rng
from ._validation import check_sizes
from .subgraphs import cycle_index

__all__ = ["ATOM_TYPES", "TARGETS", "GraphBatch", "Molecule", "batch_graphs", "synthetic_molecules"]

ATOM_TYPES = ("ring", "linker", "substituent")
TARGETS = ("para_meta", "alternating")


class Molecule(NamedTuple):
    """One graph: ``x`` [N, 3] one-hot atom type (ring, linker, substituent), with a 4th column
    of atom values for ``target="alternating"``; ``edge_index`` LongTensor [2, E] (both
    directions), ``y`` [1] the target, and the substituent-pair counts on its 6-rings."""

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
    target: str = "para_meta",
) -> list[Molecule]:
    """Random ring molecules: 1..``max_rings`` rings of 5 or 6 atoms joined by a linker atom,
    each free ring atom carrying a substituent atom with probability ``substituent_prob``.

    ``target="para_meta"`` (the para/meta/ortho task of the brief): ``y = #para - 0.5 * #meta``
    over the 6-rings, a ring atom counting as substituted when it has a neighbour outside its
    ring (substituent or linker). A para pair (ring distance 3) is an antipodal pair of the
    6-cycle. ``x`` is [N, 3].

    ``target="alternating"``: every atom also carries a value v ~ N(0, 1) (``x[:, 3]``), and
    ``y = sum over 6-rings of (v_0 - v_1 + v_2 - v_3 + v_4 - v_5)^2 / 6`` (ring atoms in cyclic
    order): the energy of the ring's values in the eigenspace of the 6-cycle Laplacian's top
    eigenvalue 4, ``||P_4 v||^2``. A Schur layer has P_4 in one layer; linmaps (identity and
    mean) and GIN must compose it from 3-hop products. ``x`` is [N, 4].
    """
    from ._checks import check_option, check_probability

    n_graphs = check_int(n_graphs, "n_graphs", minimum=1)
    max_rings = check_int(max_rings, "max_rings", minimum=1)
    p = check_probability(substituent_prob, "substituent_prob")
    target = check_option(target, "target", TARGETS)
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
        dtype = torch.get_default_dtype()
        x = torch.nn.functional.one_hot(torch.tensor(types), len(ATOM_TYPES)).to(dtype)
        if target == "para_meta":
            y = torch.tensor([para - 0.5 * meta], dtype=dtype)
        else:
            v = gen.standard_normal(len(types))
            energy = sum(
                float(np.dot(v[ring], [1.0, -1.0] * 3)) ** 2 / 6.0
                for ring in rings
                if len(ring) == 6
            )
            x = torch.cat([x, torch.as_tensor(v, dtype=dtype)[:, None]], dim=1)
            y = torch.tensor([energy], dtype=dtype)
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
