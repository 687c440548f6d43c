"""Node individualization schemes: identifiers to concatenate to the node features.

* ``tinhofer_order``: refine to the stable 1-WL colouring; while a colour class has more than one
  node, individualize one node of the non-singleton class with the smallest colour and refine
  again; the final discrete colouring is a total order (a permutation of 0..n-1). The node
  individualized is the one with the smallest index in that class: for graphs where the choice
  does not matter (discrete colourings, trees, cycles, ... where the classes are orbits), the
  identified graph is the same for every numbering of the nodes; elsewhere (e.g. random
  3-regular graphs) it depends on the numbering. Colour ids are canonical (see ``wl``), so the
  result is deterministic across runs and machines.
* ``tinhofer``: the binary code of that rank; ``tinhofer_w``: the binary code of the node's rank
  *within its colour class after k_weak refinement rounds* (k_weak = 0: within its initial-label
  class), so small edits of a graph change few identifiers.
* ``relational_pooling``: the binary code of a uniformly random permutation; ``rni``: i.i.d.
  U(0, 1) values.

Every scheme returns a float64 array [n, bits] (``rni``: [n, dim]).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._checks import check_int, check_rng
from ._validation import Graph, check_graph, check_int_array, check_labels
from .wl import _compress, _refine

__all__ = [
    "binary_code",
    "relational_pooling",
    "rni",
    "tinhofer",
    "tinhofer_order",
    "tinhofer_w",
]

MAX_BITS = 63


def binary_code(ranks: Any, bits: Any) -> np.ndarray:
    """Binary codes [n, bits] (float64 0/1) of ``ranks mod 2**bits``, most significant bit first.

    >>> binary_code([0, 1, 5, 9], 3).tolist()
    [[0.0, 0.0, 0.0], [0.0, 0.0, 1.0], [1.0, 0.0, 1.0], [0.0, 0.0, 1.0]]
    """
    r = check_int_array(ranks, "ranks", ndim=1)
    bits = check_int(bits, "bits", minimum=1, maximum=MAX_BITS)
    if r.min() < 0:
        raise ValueError(f"ranks must be non-negative integers, got minimum {int(r.min())}")
    r = r.astype(np.int64) & ((1 << bits) - 1)
    shifts = np.arange(bits - 1, -1, -1, dtype=np.int64)
    return ((r[:, None] >> shifts) & 1).astype(np.float64)


def _tinhofer_colors(colors: np.ndarray, g: Graph, comp: np.ndarray) -> np.ndarray:
    """Discrete colouring per component (``comp``: component id per node, nodes of a component
    numbered in their own order). Returns union colours whose restriction to each component is
    an order-preserving relabelling of that component's own Tinhofer colouring."""
    colors = _refine(colors, g)
    while True:
        key = _compress(comp, colors)
        ambiguous = np.flatnonzero(np.bincount(key)[key] > 1)
        if len(ambiguous) == 0:
            return colors
        # per component: the smallest ambiguous colour, then the smallest node index
        order = np.lexsort((ambiguous, colors[ambiguous], comp[ambiguous]))
        cand = ambiguous[order]
        first = np.ones(len(cand), dtype=bool)
        first[1:] = comp[cand][1:] != comp[cand][:-1]
        chosen = cand[first]
        colors = 2 * colors + 1
        colors[chosen] -= 1  # a fresh colour just before the rest of its class
        colors = _refine(colors, g)


def _rank_within(groups: np.ndarray, colors: np.ndarray) -> np.ndarray:
    """Rank of each node's colour among the nodes of its group (colours distinct per group)."""
    ranks = _compress(groups, colors)
    # _compress orders by group first, so a group's ranks start at the size of the groups before
    g_rank = _compress(groups)
    offset = np.zeros(int(g_rank.max()) + 1, dtype=np.int64)
    offset[1:] = np.cumsum(np.bincount(g_rank))[:-1]
    return ranks - offset[g_rank]


def _tinhofer_batch(
    g: Graph, labels: np.ndarray, comp: np.ndarray, k_weak: int | None = None
) -> np.ndarray:
    """Tinhofer ranks within each component (``k_weak`` None) or Tinhofer_W ranks within each
    component's colour classes after ``k_weak`` rounds."""
    final = _tinhofer_colors(labels, g, comp)
    if k_weak is None:
        return _rank_within(comp, final)
    weak = _refine(labels, g, k_weak)
    return _rank_within(_compress(comp, weak), final)


def tinhofer_order(edge_index: Any, num_nodes: Any, *, labels: Any = None) -> np.ndarray:
    """Tinhofer's canonical order: int64 ranks [n], a permutation of 0..n-1.

    >>> import numpy as np
    >>> tinhofer_order(np.array([[0, 1, 2], [1, 2, 3]]), 4).tolist()
    [0, 2, 3, 1]
    """
    g = check_graph(edge_index, num_nodes)
    labels = check_labels(labels, g.num_nodes)
    return _tinhofer_batch(g, labels, np.zeros(g.num_nodes, dtype=np.int64))


def tinhofer(edge_index: Any, num_nodes: Any, *, labels: Any = None, bits: Any = 6) -> np.ndarray:
    """Binary codes [n, bits] of the Tinhofer ranks (rank mod 2**bits).

    >>> import numpy as np
    >>> tinhofer(np.array([[0, 1, 2], [1, 2, 3]]), 4, bits=2).tolist()
    [[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]]
    """
    bits = check_int(bits, "bits", minimum=1, maximum=MAX_BITS)
    return binary_code(tinhofer_order(edge_index, num_nodes, labels=labels), bits)


def tinhofer_w(
    edge_index: Any, num_nodes: Any, *, labels: Any = None, bits: Any = 6, k_weak: Any = 0
) -> np.ndarray:
    """Tinhofer_W: binary codes [n, bits] of each node's Tinhofer rank within its colour class
    after ``k_weak`` refinement rounds (0: within its initial-label class).

    >>> import numpy as np
    >>> tinhofer_w(np.array([[0, 1, 2], [1, 2, 3]]), 4, bits=2, k_weak=1).tolist()
    [[0.0, 0.0], [0.0, 0.0], [0.0, 1.0], [0.0, 1.0]]
    """
    bits = check_int(bits, "bits", minimum=1, maximum=MAX_BITS)
    k_weak = check_int(k_weak, "k_weak", minimum=0)
    g = check_graph(edge_index, num_nodes)
    labels = check_labels(labels, g.num_nodes)
    ranks = _tinhofer_batch(g, labels, np.zeros(g.num_nodes, dtype=np.int64), k_weak)
    return binary_code(ranks, bits)


def relational_pooling(num_nodes: Any, *, bits: Any = 6, rng: Any = None) -> np.ndarray:
    """Relational-pooling identifiers: binary codes [n, bits] of a uniformly random permutation
    of 0..n-1 (mod 2**bits).

    >>> relational_pooling(4, bits=2, rng=0).sum(axis=0).tolist()
    [2.0, 2.0]
    """
    n = check_int(num_nodes, "num_nodes", minimum=1)
    bits = check_int(bits, "bits", minimum=1, maximum=MAX_BITS)
    gen = check_rng(rng)
    return binary_code(gen.permutation(n), bits)


def rni(num_nodes: Any, *, dim: Any = 6, rng: Any = None) -> np.ndarray:
    """Random node initialization: i.i.d. U(0, 1) values [n, dim].

    >>> rni(3, dim=2, rng=0).shape
    (3, 2)
    """
    n = check_int(num_nodes, "num_nodes", minimum=1)
    dim = check_int(dim, "dim", minimum=1)
    gen = check_rng(rng)
    return gen.random((n, dim))
