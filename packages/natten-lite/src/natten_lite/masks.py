"""Neighborhood windows and masks (NATTEN 0.21 semantics), for SDPA, FlexAttention and inspection.

Faster Neighborhood Attention (NeurIPS 2024) - https://arxiv.org/abs/2403.04690, Sec. 3; stride
from Generalized Neighborhood Attention (arXiv 2504.16922).

``window_1d`` and ``window_bounds`` are pure Python (no torch). Per axis of length L with kernel k,
stride s, dilation d: query i lives in dilation group g = i mod d at in-group index i' = i div d,
the group has L_g = ceil((L - g)/d) members, and

* non-causal: leader = min(s*floor(i'/s) + floor(s/2), L_g - 1),
  start = clamp(leader - floor(k/2), 0, L_g - k), end = start + k;
* causal: leader = min(s*floor(i'/s) + s - 1, L_g - 1), start = max(leader - k + 1, 0),
  end = i' + 1.

The query attends keys g + d*j' for j' in [start, end); in n-D the rule holds on every axis.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from ._checks import check_int
from ._validation import check_na_args, check_shape, check_tile_shape

__all__ = ["dense_mask", "flex_block_mask", "window_1d", "window_bounds"]


def window_1d(
    i: int,
    length: int,
    kernel_size: int,
    *,
    stride: int = 1,
    dilation: int = 1,
    is_causal: bool = False,
) -> range:
    """Key coordinates that query ``i`` attends on one axis, as a ``range``.

    >>> list(window_1d(0, 7, 3)), list(window_1d(6, 7, 3)), list(window_1d(3, 7, 3))
    ([0, 1, 2], [4, 5, 6], [2, 3, 4])
    >>> list(window_1d(5, 10, 2, dilation=2))  # group 1 is 1, 3, 5, 7, 9; even k: one more left
    [3, 5]
    >>> list(window_1d(4, 10, 3, is_causal=True))
    [2, 3, 4]
    """
    length = check_int(length, "length", minimum=1)
    i = check_int(i, "i", minimum=0, maximum=length - 1)
    (k,), (s,), (d,), (c,) = check_na_args((length,), kernel_size, stride, dilation, is_causal)
    return _window(i, length, k, s, d, c)


def _window(i: int, length: int, k: int, s: int, d: int, is_causal: bool) -> range:
    g, ii = i % d, i // d
    lg = (length - g + d - 1) // d
    if is_causal:
        leader = min(s * (ii // s) + s - 1, lg - 1)
        start, end = max(leader - k + 1, 0), ii + 1
    else:
        leader = min(s * (ii // s) + s // 2, lg - 1)
        start = min(max(leader - k // 2, 0), lg - k)
        end = start + k
    return range(g + d * start, g + d * end, d)


def window_bounds(
    shape: Sequence[int], kernel_size, *, stride=1, dilation=1, is_causal=False
) -> list[list[range]]:
    """Per axis, the window (``range(start, stop, dilation)``) of every query coordinate.

    Args:
        shape: token layout (X1..Xn).
        kernel_size, stride, dilation: int or n-tuple. is_causal: bool or n-tuple.

    Returns:
        ``bounds[a][i]``: the keys query coordinate ``i`` sees on axis ``a``; a query at
        (i1..in) sees the Cartesian product of its axes' ranges.

    >>> [(r.start, r.stop) for r in window_bounds((7,), 3)[0]]
    [(0, 3), (0, 3), (1, 4), (2, 5), (3, 6), (4, 7), (4, 7)]
    """
    shape = check_shape(shape)
    ks, st, di, ca = check_na_args(shape, kernel_size, stride, dilation, is_causal)
    return [
        [_window(i, shape[a], ks[a], st[a], di[a], ca[a]) for i in range(shape[a])]
        for a in range(len(shape))
    ]


def dense_mask(
    shape: Sequence[int], kernel_size, *, stride=1, dilation=1, is_causal=False, device=None
):
    """Boolean [N, N] mask (True = attend) over row-major flattened tokens, for SDPA.

    Memory is N^2 bytes: for small problems and tests only.

    >>> dense_mask((4,), 2).int().tolist()  # even k = 2: the window is {i - 1, i}, shifted at 0
    [[1, 1, 0, 0], [1, 1, 0, 0], [0, 1, 1, 0], [0, 0, 1, 1]]
    """
    import torch

    bounds = window_bounds(
        shape, kernel_size, stride=stride, dilation=dilation, is_causal=is_causal
    )
    shape = tuple(shape)
    n = len(shape)
    N = math.prod(shape)
    mask = None
    for a in range(n):
        L = shape[a]
        m = torch.zeros(L, L, dtype=torch.bool)
        for i, r in enumerate(bounds[a]):
            m[i, r.start : r.stop : r.step] = True
        view = [1] * (2 * n)
        view[a], view[n + a] = L, L
        m = m.view(view)
        mask = m if mask is None else mask & m
    # mask dims are (q1..qn, k1..kn): flatten to [N, N]
    return mask.reshape(N, N).to(device) if device is not None else mask.reshape(N, N)


def _axis_tables(shape, kernel_size, stride, dilation, is_causal, device=None):
    """Per-axis int tensors (start, end, group, dilation) for mask_mods."""
    import torch

    bounds = window_bounds(
        shape, kernel_size, stride=stride, dilation=dilation, is_causal=is_causal
    )
    tables = []
    for a in range(len(shape)):
        start = torch.tensor([r.start for r in bounds[a]], device=device)
        stop = torch.tensor([r.start + r.step * len(r) for r in bounds[a]], device=device)
        tables.append((start, stop, bounds[a][0].step))
    return tables


def na_mask_mod(
    shape: Sequence[int], kernel_size, *, stride=1, dilation=1, is_causal=False, device=None
):
    """A FlexAttention ``mask_mod(b, h, q_idx, kv_idx)`` for row-major flattened tokens."""
    shape = check_shape(shape)
    tables = _axis_tables(shape, kernel_size, stride, dilation, is_causal, device)
    n = len(shape)

    def mask_mod(b, h, q_idx, kv_idx):
        ok = None
        rq, rk = q_idx, kv_idx
        for a in reversed(range(n)):
            qa, ka = rq % shape[a], rk % shape[a]
            rq, rk = rq // shape[a], rk // shape[a]
            start, stop, d = tables[a]
            m = (ka >= start[qa]) & (ka < stop[qa]) & ((ka - qa) % d == 0)
            ok = m if ok is None else ok & m
        return ok

    return mask_mod


def flex_block_mask(
    shape: Sequence[int],
    kernel_size,
    *,
    stride=1,
    dilation=1,
    is_causal=False,
    q_tile_shape: Sequence[int] | None = None,
    kv_tile_shape: Sequence[int] | None = None,
    device="cpu",
):
    """A FlexAttention ``BlockMask`` for neighborhood attention on row-major flattened tokens.

    ``q_tile_shape``/``kv_tile_shape`` set the block sizes to prod(tile) tokens (FlexAttention
    blocks are 1-D runs of the flattened sequence; default 128).
    """
    from torch.nn.attention.flex_attention import create_block_mask

    shape = check_shape(shape)
    q_tile_shape = check_tile_shape(q_tile_shape, "q_tile_shape", len(shape))
    kv_tile_shape = check_tile_shape(kv_tile_shape, "kv_tile_shape", len(shape))
    N = math.prod(shape)
    kw = {}
    if q_tile_shape is not None or kv_tile_shape is not None:
        q_block = math.prod(q_tile_shape or kv_tile_shape)
        kw["BLOCK_SIZE"] = (q_block, math.prod(kv_tile_shape or q_tile_shape))
    mm = na_mask_mod(
        shape, kernel_size, stride=stride, dilation=dilation, is_causal=is_causal, device=device
    )
    # on CUDA build the block mask with a compiled mask_mod: an eager build materialises N x N
    compile_mask = str(device).startswith("cuda")
    return create_block_mask(mm, None, None, N, N, device=device, _compile=compile_mask, **kw)
