"""Tile-work simulator (pure Python, no torch): how much of dense attention a tiled kernel visits.

Faster Neighborhood Attention (NeurIPS 2024) - https://arxiv.org/abs/2403.04690, Sec. 4, and the
"speed-of-light" analysis of Generalized Neighborhood Attention (arXiv 2504.16922, NATTEN Sim).

A fused kernel gives each query tile the KV box spanned by the windows of its first and last query
and visits every KV tile that the box touches. ``tile_work`` counts those (Q-tile, KV-tile) pairs,
either with multi-dimensional tiles (the paper's kernels) or with 1-D blocks of the row-major
flattened sequence (what FlexAttention does with a plain NA mask), and compares the work with dense
attention and with the FLOP minimum (each query against exactly its own window).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from ._checks import check_bool
from ._validation import check_na_args, check_per_axis, check_shape
from .masks import _window

__all__ = ["TileWork", "tile_work"]


@dataclass(frozen=True)
class TileWork:
    """What ``tile_work`` counted.

    ``visited_pairs``: (Q tile, KV tile) pairs the kernel visits; ``total_pairs``: all pairs
    (dense); ``visited_work``: score entries computed, padding included; ``dense_work``: N^2;
    ``min_work``: the sum of window sizes (each query against exactly its own window);
    ``speedup_bound`` = dense_work / visited_work; ``flop_bound`` = dense_work / min_work.
    """

    visited_pairs: int
    total_pairs: int
    visited_work: int
    dense_work: int
    min_work: int
    speedup_bound: float
    flop_bound: float


def _axis_windows(L, k, s, d, c):
    """[(start, end)] in dilation-group coordinates, per group: {g: [(start, end) per i']}."""
    groups = {}
    for g in range(d):
        lg = (L - g + d - 1) // d
        rows = []
        for ii in range(lg):
            r = _window(g + d * ii, L, k, s, d, c)
            rows.append(((r.start - g) // d, (r.start - g) // d + len(r)))
        groups[g] = rows
    return groups


def tile_work(
    shape: Sequence[int],
    kernel_size,
    *,
    stride=1,
    dilation=1,
    is_causal=False,
    q_tile_shape: Sequence[int] | int = 64,
    kv_tile_shape: Sequence[int] | int | None = None,
    flatten: bool = False,
) -> TileWork:
    """Count the tile pairs a fused neighborhood-attention kernel visits.

    Args:
        shape: token layout (X1..Xn).
        kernel_size, stride, dilation, is_causal: int/bool or n-tuples (NATTEN semantics).
        q_tile_shape, kv_tile_shape: tile shapes (n-tuples), or with ``flatten=True`` block sizes
            in tokens (ints; default kv = q).
        flatten: use 1-D blocks of the row-major flattened sequence (FlexAttention's default)
            instead of multi-dimensional tiles. Dilation groups are then not separated.

    Returns:
        :class:`TileWork` (frozen dataclass).

    >>> r = tile_work((32,), 8, stride=8, q_tile_shape=(8,))  # blocked attention
    >>> r.speedup_bound, r.flop_bound
    (4.0, 4.0)
    """
    shape = check_shape(shape)
    n = len(shape)
    ks, st, di, ca = check_na_args(shape, kernel_size, stride, dilation, is_causal)
    flatten = check_bool(flatten, "flatten")
    if kv_tile_shape is None:
        kv_tile_shape = q_tile_shape
    if flatten:  # 1-D blocks of the flattened sequence: ints, or tuples counted by their product
        qt = math.prod(check_per_axis(q_tile_shape, "q_tile_shape", _len(q_tile_shape)))
        kt = math.prod(check_per_axis(kv_tile_shape, "kv_tile_shape", _len(kv_tile_shape)))
    else:
        qt = check_per_axis(q_tile_shape, "q_tile_shape", n)
        kt = check_per_axis(kv_tile_shape, "kv_tile_shape", n)
    N = math.prod(shape)
    wins = [_axis_windows(shape[a], ks[a], st[a], di[a], ca[a]) for a in range(n)]
    min_work = math.prod(sum(e - s for rows in wins[a].values() for s, e in rows) for a in range(n))
    if not flatten:
        visited = 1
        q_tiles = 1
        kv_tiles = 1
        for a in range(n):
            pairs_a = 0
            nq_a = nk_a = 0
            for rows in wins[a].values():
                lg = len(rows)
                nq = -(-lg // qt[a])
                nq_a += nq
                nk_a += -(-lg // kt[a])
                for t in range(nq):
                    lo = rows[t * qt[a]][0]
                    hi = rows[min(lg, (t + 1) * qt[a]) - 1][1]
                    pairs_a += (hi - 1) // kt[a] - lo // kt[a] + 1
            visited *= pairs_a
            q_tiles *= nq_a
            kv_tiles *= nk_a
        tq, tk = math.prod(qt), math.prod(kt)
    else:
        tq, tk = qt, kt
        q_tiles, kv_tiles = -(-N // tq), -(-N // tk)
        visited = _flattened_pairs(shape, wins, di, tq, tk)
    return TileWork(
        visited_pairs=visited,
        total_pairs=q_tiles * kv_tiles,
        visited_work=visited * tq * tk,
        dense_work=N * N,
        min_work=min_work,
        speedup_bound=N * N / (visited * tq * tk),
        flop_bound=N * N / min_work,
    )


def _len(value) -> int:
    return len(value) if isinstance(value, Sequence) and not isinstance(value, str | bytes) else 1


def _flattened_pairs(shape, wins, di, tq, tk) -> int:
    """KV blocks touched by each 1-D query block of the flattened sequence."""
    n = len(shape)
    N = math.prod(shape)
    strides = [math.prod(shape[a + 1 :]) for a in range(n)]
    last = shape[-1]
    total = 0
    for q0 in range(0, N, tq):
        q1 = min(N, q0 + tq)
        blocks = set()
        # split the block into runs along the last axis (same leading coordinates)
        f = q0
        while f < q1:
            lead = f // last
            c0 = f % last
            c1 = min(last, c0 + (q1 - f))
            coords = []
            rem = lead
            for a in reversed(range(n - 1)):
                coords.append(rem % shape[a])
                rem //= shape[a]
            coords = coords[::-1]
            # union of last-axis windows over the run (contiguous in group space, per group)
            d = di[-1]
            spans = {}
            for c in range(c0, c1):
                g = c % d
                s, e = wins[-1][g][c // d]
                lo, hi = spans.get(g, (s, e))
                spans[g] = (min(lo, s), max(hi, e))
            lead_ranges = []
            for a in range(n - 1):
                i = coords[a]
                g = i % di[a]
                s, e = wins[a][g][i // di[a]]
                lead_ranges.append([g + di[a] * j for j in range(s, e)])
            for prefix in _product(lead_ranges):
                base = sum(p * strides[a] for a, p in enumerate(prefix))
                for g, (s, e) in spans.items():
                    if d == 1:
                        blocks.update(range((base + s) // tk, (base + e - 1) // tk + 1))
                    else:
                        blocks.update((base + g + d * j) // tk for j in range(s, e))
            f += c1 - c0
        total += len(blocks)
    return total


def _product(lists):
    if not lists:
        yield ()
        return
    for x in lists[0]:
        for rest in _product(lists[1:]):
            yield (x,) + rest
