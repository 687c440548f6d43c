"""Synthetic hierarchies, every one returned transitively closed (adj[u, v] = u above v)."""

from __future__ import annotations

import numpy as np

from ._checks import check_float, check_int, check_rng
from .graph import transitive_closure

__all__ = ["balanced_tree", "enumerate_posets", "ncrp", "num_posets", "price_dag"]


def _tree_closure(parent: np.ndarray) -> np.ndarray:
    """Closure of the tree given by ``parent`` (parent[0] = -1; parents precede children)."""
    n = parent.size
    out = np.zeros((n, n), dtype=bool)
    for v in range(1, n):
        p = parent[v]
        out[:, v] = out[:, p]
        out[p, v] = True
    return out


def balanced_tree(branching, depth) -> np.ndarray:
    """The transitive closure of the balanced tree with ``branching`` children per inner node
    and ``depth`` levels below the root: (b^(depth+1) - 1)/(b - 1) nodes numbered breadth-first
    (root 0, children of i are b*i + 1, ..., b*i + b). ``balanced_tree(2, 10)`` has 2047 nodes.
    Returns bool [n, n]."""
    b = check_int(branching, "branching", minimum=1)
    d = check_int(depth, "depth", minimum=0)
    n = d + 1 if b == 1 else (b ** (d + 1) - 1) // (b - 1)
    if n > 50_000:
        raise ValueError(
            f"depth too large: the tree would have {n} nodes (dense output, max 50000)"
        )
    parent = np.full(n, -1, dtype=np.int64)
    parent[1:] = (np.arange(1, n) - 1) // b
    return _tree_closure(parent)


def _crp(count: int, alpha: float, rng: np.random.Generator) -> list[int]:
    """Seat ``count`` customers by a Chinese restaurant process; table sizes."""
    tables: list[int] = []
    for i in range(count):
        x = rng.random() * (i + alpha)
        acc = 0.0
        for j, size in enumerate(tables):
            acc += size
            if x < acc:
                tables[j] += 1
                break
        else:
            tables.append(1)
    return tables


def ncrp(n, alpha=10.0, *, rng=None) -> np.ndarray:
    """A tree from the nested Chinese restaurant process, closed; exactly ``n`` nodes.

    Node 0 (the root) holds all n nodes of its subtree; a node holding c nodes keeps one and
    seats the other c - 1 among its children by a CRP with concentration ``alpha`` (a new table
    with probability alpha/(i + alpha)); each table becomes a child holding that many nodes.
    Small ``alpha`` gives deep, narrow trees, large ``alpha`` shallow, bushy ones (the paper
    uses alpha = 10, 100, 500). Nodes are numbered breadth-first. This follows the generator of
    the authors' group (iesl graph-modeling), adapted so that the node count is exactly ``n``.
    """
    n = check_int(n, "n", minimum=1)
    alpha = check_float(alpha, "alpha", minimum=0.0, min_inclusive=False)
    gen = check_rng(rng)
    parent = [-1]
    queue = [(0, n)]
    head = 0
    while head < len(queue):
        node, count = queue[head]
        head += 1
        for size in _crp(count - 1, alpha, gen):
            parent.append(node)
            queue.append((len(parent) - 1, size))
    return _tree_closure(np.asarray(parent, dtype=np.int64))


def price_dag(n, m=1, c=0.1, gamma=1.0, *, rng=None) -> np.ndarray:
    """Price's preferential-attachment DAG, closed.

    Nodes arrive in order 0, 1, ...; node t > 0 links to min(m, t) distinct earlier nodes u
    (which become *above* t: adj[u, t]) drawn with probability proportional to k_u^gamma + c,
    k_u = the number of nodes already linked to u (graph-tool's ``price_network``
    parametrisation; the paper uses c in {0.01, 0.1}, gamma = 1, m in {1, 5, 10}). The closure
    of the result is returned.
    """
    n = check_int(n, "n", minimum=1)
    m = check_int(m, "m", minimum=1)
    c = check_float(c, "c", minimum=0.0, min_inclusive=False)
    gamma = check_float(gamma, "gamma", minimum=0.0)
    gen = check_rng(rng)
    adj = np.zeros((n, n), dtype=bool)
    k = np.zeros(n, dtype=np.float64)
    for t in range(1, n):
        w = k[:t] ** gamma + c
        picks = gen.choice(t, size=min(m, t), replace=False, p=w / w.sum())
        adj[picks, t] = True
        k[picks] += 1
    return transitive_closure(adj)


_POSET_COUNTS = (1, 1, 3, 19, 219, 4231, 130023)


def num_posets(n) -> int:
    """The number of labelled posets on n elements (OEIS A001035), for n <= 6."""
    n = check_int(n, "n", minimum=0, maximum=len(_POSET_COUNTS) - 1)
    return _POSET_COUNTS[n]


def enumerate_posets(n) -> np.ndarray:
    """Every labelled strict partial order on ``n`` <= 6 elements, as bool [K, n, n]
    (adj[u, v] = u above v; K = 1, 1, 3, 19, 219, 4231, 130023 for n = 0..6).

    Each poset on n elements is a poset on the first n - 1 plus a new element z with an up-set
    U above it and a down-set D below it such that every element of U is above every element
    of D; each such extension is generated once. Order: deterministic.
    """
    n = check_int(n, "n", minimum=0, maximum=6)
    posets = np.zeros((1, 0, 0), dtype=bool)
    for m in range(n):  # extend posets on m elements by element m
        subsets = np.arange(1 << m)
        member = ((subsets[:, None] >> np.arange(m)) & 1).astype(bool)  # [2^m, m]
        bit = (1 << np.arange(m)).astype(np.int64)
        out = []
        for p in posets:
            pi = p.astype(np.int64)
            # up-sets: closed under "is above" (a in U and a' above a -> a' in U)
            up_ok = ~np.any(((member @ pi.T) > 0) & ~member, axis=1)
            down_ok = ~np.any(((member @ pi) > 0) & ~member, axis=1)
            ups, downs = subsets[up_ok], subsets[down_ok]
            below = (p.astype(np.int64) * bit).sum(axis=1)  # below[a]: bitmask of elements under a
            full = (1 << m) - 1
            common = np.full(ups.size, full, dtype=np.int64)  # AND of below[a] over a in U
            for a in range(m):
                has = (ups >> a) & 1 == 1
                common[has] &= below[a]
            ok = (downs[None, :] & ~common[:, None]) == 0
            iu, idn = np.nonzero(ok)
            k = iu.size
            new = np.zeros((k, m + 1, m + 1), dtype=bool)
            new[:, :m, :m] = p
            new[:, :m, m] = member[ups[iu]]
            new[:, m, :m] = member[downs[idn]]
            out.append(new)
        posets = np.concatenate(out, axis=0)
    return posets
