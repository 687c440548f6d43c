"""Tiled neighborhood attention in torch ops: the paper's fused algorithm for CPUs.

Faster Neighborhood Attention (NeurIPS 2024) - https://arxiv.org/abs/2403.04690, Sec. 4 (FNA).

The fused kernel gives each multi-dimensional query tile the KV box spanned by the windows of its
first and last query (both window bounds are monotone in the query index). Here every tile's box is
gathered at once and attended with a tile-local mask through batched matmuls (or SDPA), so the work
is O(N * box) instead of O(N^2) and no N x N object ever exists. Boxes are padded to one size per
axis (slid inwards at the borders) so that all tiles form one batch; the last tile on an axis is
slid inwards too, so no padding of the input is needed. Dilation runs as the paper describes: each
dilation group is an undilated sub-problem on the strided sub-grid.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Sequence

import torch
import torch.nn.functional as F

from .._checks import check_int
from .inputs import NAInputs
from .reference import _axis_windows

__all__ = ["default_tile_shape", "na_tiled"]


def default_tile_shape(n: int, kernel_size: Sequence[int]) -> tuple[int, ...]:
    """A CPU query tile: about 64 queries, a little wider along large kernels."""
    n = check_int(n, "n", minimum=1, maximum=3)
    if n == 1:
        return (64 if kernel_size[0] < 64 else 128,)
    if n == 2:
        return (8, 8)
    return (4, 4, 4)


def _axis_plan(L: int, k: int, s: int, causal: bool, T: int, device):
    """Query tiles, KV boxes and the tile-local mask on one (undilated) axis."""
    T = min(T, L)
    nt = -(-L // T)
    start, end = _axis_windows(L, k, s, 1, causal, device=device)
    q0 = torch.clamp(torch.arange(nt, device=device) * T, max=L - T)  # last tile slides inwards
    lo = start[q0]
    hi = end[q0 + T - 1]
    box = min(L, int((hi - lo).max()))
    b0 = torch.minimum(lo, torch.full_like(lo, L - box))  # box slides inwards at the border
    qidx = q0[:, None] + torch.arange(T, device=device)  # [nt, T]
    kidx = b0[:, None] + torch.arange(box, device=device)  # [nt, box]
    qs, qe = start[qidx], end[qidx]  # [nt, T]
    mask = (kidx[:, None, :] >= qs[:, :, None]) & (kidx[:, None, :] < qe[:, :, None])  # [nt,T,box]
    # each query's slot (tile * T + position) for reading the result back exactly once
    i = torch.arange(L, device=device)
    tile_of = torch.clamp(i // T, max=nt - 1)
    slot = tile_of * T + i - q0[tile_of]
    return T, nt, box, qidx, kidx, mask, slot


def _flat(shape: Sequence[int], idx: list[torch.Tensor]) -> torch.Tensor:
    """Per-axis [nt_a, T_a] coordinates -> flat token indices, tile-major: [prod nt * prod T]."""
    n = len(idx)
    flat = None
    mult = 1
    for a in reversed(range(n)):
        view = [1] * (2 * n)
        view[a], view[n + a] = idx[a].shape
        term = (idx[a] * mult).view(view)
        flat = term if flat is None else flat + term
        mult *= shape[a]
    return flat.reshape(-1)


@functools.lru_cache(maxsize=16)  # masks are O(N * box): keep few
def _plan(shape, kernel_size, stride, is_causal, tile, G, dtype, device):
    """Everything about the tiling that depends only on the problem's parameters (cached)."""
    n = len(shape)
    plans = [
        _axis_plan(shape[a], kernel_size[a], stride[a], is_causal[a], tile[a], device)
        for a in range(n)
    ]
    Ts = [p[0] for p in plans]
    nts = [p[1] for p in plans]
    boxes = [p[2] for p in plans]
    NT, TQ, BK = math.prod(nts), math.prod(Ts), math.prod(boxes)
    q_flat = _flat(shape, [p[3] for p in plans])  # [NT * TQ]
    kv_flat = _flat(shape, [p[4] for p in plans])  # [NT * BK]
    # query -> slot in the tile-major output [NT * TQ]
    slots = [p[6] for p in plans]
    tile_idx, pos_idx = None, None
    for a in range(n):
        view = [1] * n
        view[a] = shape[a]
        t_a = (slots[a] // Ts[a]).view(view)
        p_a = (slots[a] % Ts[a]).view(view)
        tile_idx = t_a if tile_idx is None else tile_idx * nts[a] + t_a
        pos_idx = p_a if pos_idx is None else pos_idx * Ts[a] + p_a
    out_slot = (tile_idx * TQ + pos_idx).reshape(-1)  # [N]
    # additive tile-local mask [NT, 1, G*TQ, BK] = sum over axes of 0/-inf [nt_a, T_a, box_a]
    mask = None
    for a, p in enumerate(plans):
        view = [1] * (3 * n)
        view[a], view[n + a], view[2 * n + a] = nts[a], Ts[a], boxes[a]
        m = torch.zeros(p[5].shape, dtype=dtype, device=device)
        m = m.masked_fill_(~p[5], float("-inf")).view(view)
        mask = m if mask is None else mask + m
    mask = mask.reshape(NT, 1, 1, TQ, BK).expand(NT, 1, G, TQ, BK).reshape(NT, 1, G * TQ, BK)
    return NT, TQ, BK, q_flat, kv_flat, out_slot, mask


def _attend(q, k, v, mask, scale, need_lse):
    """q [NT, BH, M, D], k/v [NT, BH, BK, D|Dv], additive mask [NT, 1, M, BK] -> (o, lse|None)."""
    grad = torch.is_grad_enabled() and any(t.requires_grad for t in (q, k, v))
    if not need_lse:
        return F.scaled_dot_product_attention(q, k, v, attn_mask=mask, scale=scale), None
    if (
        not grad
        and q.device.type == "cpu"
        and hasattr(torch.ops.aten, "_scaled_dot_product_flash_attention_for_cpu")
    ):
        try:
            o, lse = torch.ops.aten._scaled_dot_product_flash_attention_for_cpu(
                q, k, v, 0.0, False, attn_mask=mask, scale=scale
            )
            return o, lse
        except (RuntimeError, TypeError):  # older torch: no mask support in the CPU flash op
            pass
    s = torch.matmul(q, k.transpose(-1, -2)) * scale + mask  # [NT, BH, M, BK]
    lse = torch.logsumexp(s, dim=-1)
    return torch.matmul(torch.exp(s - lse[..., None]), v), lse


def _tiled_undilated(q, k, v, kernel_size, stride, is_causal, scale, tile, need_lse):
    B, *shape, H, D = q.shape
    Hkv, Dv = k.shape[-2], v.shape[-1]
    G = H // Hkv
    N = math.prod(shape)
    key = (tuple(shape), tuple(kernel_size), tuple(stride), tuple(is_causal), tuple(tile), G)
    NT, TQ, BK, q_flat, kv_flat, out_slot, mask = _plan(*key, q.dtype, q.device)
    # one gather per tensor; tiles then batch as [B*NT, heads, tokens, D] strided views
    kt = k.reshape(B, N, Hkv, D).index_select(1, kv_flat).view(B * NT, BK, Hkv, D).transpose(1, 2)
    vt = v.reshape(B, N, Hkv, Dv).index_select(1, kv_flat).view(B * NT, BK, Hkv, Dv).transpose(1, 2)
    qt = q.reshape(B, N, H, D).index_select(1, q_flat)
    if G == 1:
        qt = qt.view(B * NT, TQ, H, D).transpose(1, 2)
    else:  # GQA: the G query heads of a kv head become G*TQ rows against the same box
        qt = qt.view(B * NT, TQ, Hkv, G, D).permute(0, 2, 3, 1, 4).reshape(B * NT, Hkv, G * TQ, D)
    if B > 1:
        mask = mask.expand(B, *mask.shape).reshape(B * NT, *mask.shape[1:])
    o, lse = _attend(qt, kt, vt, mask, scale, need_lse)  # [B*NT, Hkv, G*TQ, Dv], [B*NT, Hkv, G*TQ]
    if G == 1:
        o = o.transpose(1, 2).reshape(B, NT * TQ, H, Dv)
    else:
        o = o.view(B * NT, Hkv, G, TQ, Dv).permute(0, 3, 1, 2, 4).reshape(B, NT * TQ, H, Dv)
    o = o.index_select(1, out_slot).view(B, *shape, H, Dv)
    if lse is not None:
        lse = lse.view(B * NT, Hkv, G, TQ).permute(0, 3, 1, 2).reshape(B, NT * TQ, H)
        lse = lse.index_select(1, out_slot).view(B, *shape, H)
    return o, lse


def na_tiled(
    query: torch.Tensor,
    key: torch.Tensor,
    value: torch.Tensor,
    kernel_size,
    stride,
    dilation,
    is_causal,
    scale: float | None = None,
    *,
    q_tile_shape: Sequence[int] | None = None,
    need_lse: bool = True,
) -> tuple[torch.Tensor, torch.Tensor | None]:
    """Neighborhood attention by query tiles and their KV boxes (torch ops, any device).

    Args:
        query: [B, X1..Xn, H, D]; key [B, X1..Xn, Hkv, D]; value [B, X1..Xn, Hkv, Dv].
        kernel_size, stride, dilation, is_causal: int/bool or n-tuples (checked by
            :class:`~papershelf_kernels.neighborhood.NAInputs`, like every argument).
        scale: score scale, default D**-0.5.
        q_tile_shape: query tile per axis (default ``default_tile_shape``).
        need_lse: also return the logsumexp (otherwise SDPA runs each tile and lse is None).

    Returns:
        ``(out, lse)`` as ``na_reference``: out [B, X.., H, Dv], lse [B, X.., H] fp32 (fp64 for
        fp64 inputs) or None.
    """
    inp = NAInputs(
        query, key, value, kernel_size, stride, dilation, is_causal, scale,
        q_tile_shape=q_tile_shape, need_lse=need_lse,
    )  # fmt: skip
    return _tiled(inp)


def _tiled(inp: NAInputs) -> tuple[torch.Tensor, torch.Tensor | None]:
    """:func:`na_tiled` of an already validated :class:`NAInputs` (the backend's entry)."""
    query, key, value = inp.query, inp.key, inp.value
    kernel_size, stride, dilation, is_causal = inp.axis_args
    scale, q_tile_shape, need_lse = inp.scale, inp.q_tile_shape, inp.need_lse
    n = inp.n
    tile = tuple(q_tile_shape) if q_tile_shape is not None else default_tile_shape(n, kernel_size)
    cdt = torch.float64 if query.dtype == torch.float64 else torch.float32
    low = query.dtype not in (torch.float32, torch.float64) and query.device.type == "cpu"
    q, k, v = (t.to(cdt) for t in (query, key, value)) if (low or need_lse) else (query, key, value)
    if all(d == 1 for d in dilation):
        out, lse = _tiled_undilated(q, k, v, kernel_size, stride, is_causal, scale, tile, need_lse)
        return out.to(query.dtype), lse
    out = q.new_empty(*query.shape[:-1], value.shape[-1])
    lse = q.new_empty(query.shape[:-1]) if need_lse else None
    for g in itertools.product(*(range(d) for d in dilation)):
        sl = (slice(None), *(slice(ga, None, d) for ga, d in zip(g, dilation)))
        o_g, l_g = _tiled_undilated(
            q[sl], k[sl], v[sl], kernel_size, stride, is_causal, scale, tile, need_lse
        )
        out[sl] = o_g
        if need_lse:
            lse[sl] = l_g
    return out.to(query.dtype), lse
