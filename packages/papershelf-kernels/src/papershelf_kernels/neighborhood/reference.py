"""Neighborhood attention in plain PyTorch: the readable ground truth for the fused kernels.

Faster Neighborhood Attention (Hassani, Hwu, Shi; NeurIPS 2024) - https://arxiv.org/abs/2403.04690
with stride from Generalized Neighborhood Attention (arXiv 2504.16922), semantics of NATTEN 0.21.

Layout is heads-last: query [B, X1..Xn, H, D], key [B, X1..Xn, Hkv, D], value [B, X1..Xn, Hkv, Dv]
(n in 1..3, H % Hkv == 0). The window rule, per axis of length L with kernel k, stride s,
dilation d (NATTEN's, Sec. 3 of the paper and the GNA paper):

* query i belongs to dilation group g = i mod d, with in-group index i' = i div d; the group has
  L_g = ceil((L - g) / d) members and key j is only visible when j mod d == g;
* non-causal: leader = min(s*floor(i'/s) + floor(s/2), L_g - 1),
  start = clamp(leader - floor(k/2), 0, L_g - k), end = start + k (shifted, never truncated);
* causal: leader = min(s*floor(i'/s) + s - 1, L_g - 1), start = max(leader - k + 1, 0),
  end = i' + 1;
* in n-D a key is visible when the rule holds on every axis.

``na_reference`` gathers each query's neighbours (query-chunked: memory O(chunk * prod(k)), never
O(N^2)) and differentiates through torch autograd.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import torch

from .._checks import check_int, check_tensor, describe
from .._validation import scans_values
from .inputs import NAInputs, normalize_args

__all__ = ["axis_windows", "na_reference", "neighbor_indices"]

# Elements of the gathered key tensor allowed per query chunk (fp32: 4 bytes each).
_CHUNK_ELEMS = 1 << 23


def axis_windows(
    length: int,
    kernel_size: int,
    stride: int = 1,
    dilation: int = 1,
    is_causal: bool = False,
    *,
    device: torch.device | str | None = None,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Per-query window on one axis, in dilation-group coordinates.

    Args:
        length: L, tokens on the axis.
        kernel_size, stride, dilation, is_causal: the axis' parameters.
        device: where to build the result.

    Returns:
        ``(start, end)``, two int64 tensors of shape [L]. Query ``i`` attends key ``j`` iff
        ``j % dilation == i % dilation`` and ``start[i] <= j // dilation < end[i]``.

    >>> s, e = axis_windows(7, 3)
    >>> s.tolist(), e.tolist()
    ([0, 0, 1, 2, 3, 4, 4], [3, 3, 4, 5, 6, 7, 7])
    """
    length = check_int(length, "length", minimum=1)
    (k,), (s,), (d,), (c,) = normalize_args((length,), kernel_size, stride, dilation, is_causal)
    return _axis_windows(length, k, s, d, c, device=device)


def _axis_windows(length, k, s, d, is_causal, device=None):
    """:func:`axis_windows` without the checks (arguments already valid)."""
    i = torch.arange(length, device=device)
    g = i % d
    ii = i // d
    lg = (length - g + d - 1) // d  # L_g, members of the query's dilation group
    if is_causal:
        leader = torch.minimum(s * (ii // s) + s - 1, lg - 1)
        start = (leader - k + 1).clamp_min(0)
        end = ii + 1
    else:
        leader = torch.minimum(s * (ii // s) + s // 2, lg - 1)
        start = torch.minimum((leader - k // 2).clamp_min(0), lg - k)
        end = start + k
    return start, end


def neighbor_indices(
    shape: Sequence[int],
    kernel_size: Sequence[int],
    stride: Sequence[int],
    dilation: Sequence[int],
    is_causal: Sequence[bool],
    *,
    queries: torch.Tensor | None = None,
    device: torch.device | str | None = None,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Flat key indices of each query's neighbourhood.

    Args:
        shape: token layout (X1..Xn).
        kernel_size, stride, dilation, is_causal: per-axis n-tuples.
        queries: optional int64 [C] flat query indices (default: all N queries).
        device: where to build the result.

    Returns:
        ``(index, valid)``: int64 [C, prod(k)] flat key indices (always in range) and bool
        [C, prod(k)] telling which slots are real neighbours (all True for non-causal queries).
    """
    if not isinstance(shape, Sequence) or isinstance(shape, str | bytes):
        raise TypeError(f"shape must be a sequence of ints, got {describe(shape)}")
    if not 1 <= len(shape) <= 3:
        raise ValueError(f"shape must have 1 to 3 axes, got {tuple(shape)}")
    shape = tuple(check_int(L, "shape", minimum=1) for L in shape)
    axis = normalize_args(shape, kernel_size, stride, dilation, is_causal)
    if queries is not None:
        queries = check_tensor(queries, "queries", ndim=1, dtype="integer", allow_empty=True)
        if scans_values(queries) and queries.numel():
            lo, hi = int(queries.min()), int(queries.max())
            if lo < 0 or hi >= math.prod(shape):
                raise ValueError(
                    f"queries must be flat indices in [0, {math.prod(shape)}), got [{lo}, {hi}]"
                )
    return _neighbor_indices(shape, *axis, queries=queries, device=device)


def _neighbor_indices(shape, kernel_size, stride, dilation, is_causal, queries=None, device=None):
    """:func:`neighbor_indices` without the checks (arguments already valid)."""
    n = len(shape)
    N = math.prod(shape)
    if queries is None:
        queries = torch.arange(N, device=device)
    # flat query index -> per-axis coordinates (row-major)
    coords = []
    rem = queries
    for a in reversed(range(n)):
        coords.append(rem % shape[a])
        rem = rem // shape[a]
    coords = coords[::-1]
    C = queries.numel()
    index = torch.zeros(C, *([1] * n), dtype=torch.long, device=queries.device)
    valid = torch.ones(C, *([1] * n), dtype=torch.bool, device=queries.device)
    row_stride = 1
    for a in reversed(range(n)):
        L, k, d = shape[a], kernel_size[a], dilation[a]
        start, end = _axis_windows(L, k, stride[a], d, is_causal[a], device=queries.device)
        c = coords[a]
        t = torch.arange(k, device=queries.device)
        jj = start[c][:, None] + t  # [C, k] in-group key index
        ok = jj < end[c][:, None]
        j = (c % d)[:, None] + d * jj  # global key coordinate; jj < L_g so j < L
        view = [C] + [1] * n
        view[1 + a] = k
        index = index + (j * row_stride).view(view)
        valid = valid & ok.view(view)
        row_stride *= L
    return index.reshape(C, -1), valid.reshape(C, -1)


def na_reference(
    query: torch.Tensor,
    key: torch.Tensor,
    value: torch.Tensor,
    kernel_size,
    stride,
    dilation,
    is_causal,
    scale: float | None = None,
    *,
    chunk_size: int | None = None,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Neighborhood attention by gathering neighbours, query chunk by query chunk.

    Args:
        query: [B, X1..Xn, H, D].
        key: [B, X1..Xn, Hkv, D].
        value: [B, X1..Xn, Hkv, Dv].
        kernel_size, stride, dilation, is_causal: int/bool or n-tuples (checked by
            :class:`~papershelf_kernels.neighborhood.NAInputs`, like every argument).
        scale: score scale, default D**-0.5.
        chunk_size: queries per chunk (default: sized to keep the gather near 32 MB).

    Returns:
        ``(out, lse)``: out [B, X1..Xn, H, Dv] in the input dtype and the natural-log
        logsumexp [B, X1..Xn, H] (fp32, or fp64 for fp64 inputs).
    """
    inp = NAInputs(query, key, value, kernel_size, stride, dilation, is_causal, scale)
    if chunk_size is not None:
        chunk_size = check_int(chunk_size, "chunk_size", minimum=1)
    return _reference(inp, chunk_size=chunk_size)


def _reference(
    inp: NAInputs, *, chunk_size: int | None = None
) -> tuple[torch.Tensor, torch.Tensor]:
    """:func:`na_reference` of an already validated :class:`NAInputs` (the backend's entry)."""
    query, key, value = inp.query, inp.key, inp.value
    kernel_size, stride, dilation, is_causal = inp.axis_args
    scale = inp.scale
    B, *shape, H, D = query.shape
    Hkv, Dv = key.shape[-2], value.shape[-1]
    G = H // Hkv
    N = math.prod(shape)
    K = math.prod(kernel_size)
    cdt = torch.float64 if query.dtype == torch.float64 else torch.float32
    qf = query.reshape(B, N, Hkv, G, D).to(cdt)
    kf = key.reshape(B, N, Hkv, D).to(cdt)
    vf = value.reshape(B, N, Hkv, Dv).to(cdt)
    if chunk_size is None:
        chunk_size = max(1, _CHUNK_ELEMS // max(1, B * K * Hkv * max(D, Dv)))
    outs, lses = [], []
    for c0 in range(0, N, chunk_size):
        qs = torch.arange(c0, min(N, c0 + chunk_size), device=query.device)
        idx, valid = _neighbor_indices(shape, kernel_size, stride, dilation, is_causal, queries=qs)
        kn = kf[:, idx]  # [B, C, K, Hkv, D]
        vn = vf[:, idx]  # [B, C, K, Hkv, Dv]
        s = torch.einsum("bchgd,bckhd->bchgk", qf[:, qs], kn) * scale  # [B, C, Hkv, G, K]
        s = s.masked_fill(~valid[None, :, None, None, :], float("-inf"))
        lse = torch.logsumexp(s, dim=-1)  # [B, C, Hkv, G]
        p = torch.exp(s - lse[..., None])
        outs.append(torch.einsum("bchgk,bckhe->bchge", p, vn))
        lses.append(lse)
    out = torch.cat(outs, dim=1).reshape(B, *shape, H, Dv).to(query.dtype)
    lse = torch.cat(lses, dim=1).reshape(B, *shape, H)
    return out, lse
