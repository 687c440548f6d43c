"""Ego-nets and their individualization (the input of EGONN), vectorised in numpy."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ._checks import check_int, check_option, check_rng
from ._validation import Graph, check_graph, check_int_array, check_labels, sorted_unique
from .schemes import MAX_BITS, _tinhofer_batch, binary_code
from .wl import _compress

__all__ = ["EgoBatch", "ego_batch", "ego_nets"]

SCHEMES = ("tinhofer", "tinhofer_w", "relational_pooling", "rni", "none")


def _ego_members(g: Graph, radius: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(ego, node, dist)`` of every (centre, member) pair, sorted by (ego, dist, node)."""
    n = g.num_nodes
    ego = np.arange(n, dtype=np.int64)
    node = ego.copy()
    dist = np.zeros(n, dtype=np.int64)
    seen = ego * n + node
    fr_ego, fr_node = ego, node
    for r in range(1, radius + 1):
        deg = g.degree[fr_node]
        starts = g.indptr[fr_node]
        e = np.repeat(fr_ego, deg)
        offs = np.arange(deg.sum()) - np.repeat(np.cumsum(deg) - deg, deg)
        v = g.nbrs[np.repeat(starts, deg) + offs]
        key = sorted_unique(e * n + v)
        key = key[~np.isin(key, seen)]
        if len(key) == 0:
            break
        seen = np.union1d(seen, key)
        fr_ego, fr_node = key // n, key % n
        ego = np.concatenate([ego, fr_ego])
        node = np.concatenate([node, fr_node])
        dist = np.concatenate([dist, np.full(len(key), r, dtype=np.int64)])
    order = np.lexsort((node, dist, ego))
    return ego[order], node[order], dist[order]


def _ego_edges(g: Graph, ego: np.ndarray, node: np.ndarray) -> np.ndarray:
    """Induced edges of every ego-net in member positions (both directions): [2, E']."""
    n = g.num_nodes
    member_key = ego * n + node  # sorted (ego-major, then by dist, node: not by node)
    order = np.argsort(member_key)
    sorted_key = member_key[order]
    deg = g.degree[node]
    src_pos = np.repeat(np.arange(len(node)), deg)
    offs = np.arange(deg.sum()) - np.repeat(np.cumsum(deg) - deg, deg)
    w = g.nbrs[np.repeat(g.indptr[node], deg) + offs]
    want = ego[src_pos] * n + w
    at = np.searchsorted(sorted_key, want)
    at = np.minimum(at, len(sorted_key) - 1)
    ok = sorted_key[at] == want
    return np.stack([src_pos[ok], order[at[ok]]])


def ego_nets(edge_index: Any, num_nodes: Any, radius: Any) -> list[tuple[np.ndarray, np.ndarray]]:
    """The r-hop induced ego-net of every node: a list of ``(nodes, local_edge_index)``.

    ``nodes[0]`` is the centre, then the other members by distance and index; local node i is
    ``nodes[i]``; ``local_edge_index`` [2, E_v] has both directions of each induced edge.

    >>> nodes, ei = ego_nets([[0, 1, 2], [1, 2, 3]], 4, 1)[1]
    >>> nodes.tolist(), ei.shape
    ([1, 0, 2], (2, 4))
    """
    g = check_graph(edge_index, num_nodes)
    radius = check_int(radius, "radius", minimum=0)
    ego, node, _ = _ego_members(g, radius)
    edges = _ego_edges(g, ego, node)
    starts = np.searchsorted(ego, np.arange(g.num_nodes + 1))
    edge_ego = ego[edges[0]]  # non-decreasing: members are grouped by ego-net
    e_starts = np.searchsorted(edge_ego, np.arange(g.num_nodes + 1))
    out = []
    for v in range(g.num_nodes):
        a, b = starts[v], starts[v + 1]
        local = edges[:, e_starts[v] : e_starts[v + 1]] - a
        out.append((node[a:b].copy(), local))
    return out


@dataclass(frozen=True)
class EgoBatch:
    """All ego-nets of a (batch of) graph(s) as one disjoint union, with identifiers.

    Attributes
    ----------
    node : int64 [M]
        The original node of each ego-net member (gather features as ``x[node]``).
    edge_index : int64 [2, E']
        Induced edges of the ego-nets, in member positions 0..M-1 (both directions).
    ego : int64 [M]
        The ego-net (= its centre node) each member belongs to; ego-nets are numbered by centre.
    ids : float64 [M, bits]
        Identifiers of each member computed inside its ego-net (empty second axis for "none").
    graph : int64 [N]
        The graph of each ego-net (``batch`` of its centre).
    """

    node: np.ndarray
    edge_index: np.ndarray
    ego: np.ndarray
    ids: np.ndarray
    graph: np.ndarray

    @property
    def num_egos(self) -> int:
        return len(self.graph)


def ego_batch(
    edge_index: Any,
    num_nodes: Any,
    *,
    radius: Any = 1,
    scheme: Any = "tinhofer",
    bits: Any = 6,
    k_weak: Any = 0,
    labels: Any = None,
    batch: Any = None,
    rng: Any = None,
) -> EgoBatch:
    """Extract every node's ``radius``-hop ego-net and individualize each one separately
    (``scheme``: "tinhofer", "tinhofer_w", "relational_pooling", "rni" or "none"; ``labels``
    are the initial colours for the Tinhofer schemes). ``batch`` [N] (graph of each node) is
    carried to ``EgoBatch.graph``.

    >>> eb = ego_batch([[0, 1, 2], [1, 2, 0]], 3, radius=1, bits=2)
    >>> eb.node.shape, eb.ids.shape, eb.num_egos
    ((9,), (9, 2), 3)
    """
    g = check_graph(edge_index, num_nodes)
    radius = check_int(radius, "radius", minimum=0)
    scheme = check_option(scheme, "scheme", SCHEMES)
    bits = check_int(bits, "bits", minimum=1, maximum=MAX_BITS)
    k_weak = check_int(k_weak, "k_weak", minimum=0)
    lab = check_labels(labels, g.num_nodes)
    gen = check_rng(rng)
    if batch is None:
        graph = np.zeros(g.num_nodes, dtype=np.int64)
    else:
        graph = check_int_array(batch, "batch", ndim=1)
        if len(graph) != g.num_nodes:
            raise ValueError(f"batch has {len(graph)} entries but num_nodes is {g.num_nodes}")
        if graph.min() < 0:
            raise ValueError(f"batch must hold non-negative graph indices, got {int(graph.min())}")
    ego, node, _ = _ego_members(g, radius)
    edges = _ego_edges(g, ego, node)
    m = len(node)
    if scheme in ("tinhofer", "tinhofer_w"):
        from ._validation import to_graph

        union = to_graph(edges, m)
        local_labels = _compress(lab[node])
        ranks = _tinhofer_batch(
            union, local_labels, ego, k_weak if scheme == "tinhofer_w" else None
        )
        ids = binary_code(ranks, bits)
    elif scheme == "relational_pooling":
        # a uniformly random permutation of each ego-net's members
        order = np.lexsort((gen.random(m), ego))
        starts = np.searchsorted(ego, ego)
        ranks = np.empty(m, dtype=np.int64)
        ranks[order] = np.arange(m) - starts[order]
        ids = binary_code(ranks, bits)
    elif scheme == "rni":
        ids = gen.random((m, bits))
    else:
        ids = np.zeros((m, 0))
    return EgoBatch(node=node, edge_index=edges, ego=ego, ids=ids, graph=graph)
