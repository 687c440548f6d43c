"""Readable PyTorch reference of attention with per-key column sums (the oracle for the kernels).

``attention_colsum_reference(q, k, v)`` returns the attention output and, per query head, the
probability mass every key received summed over the query rows:

    P[b, h, i, j] = softmax_j(scale * q[b, h, i] . k[b, h // G, j] + mask)     (G = H / Hkv)
    out[b, h, i]  = sum_j P[b, h, i, j] v[b, h // G, j]
    colsum[b, h, j] = sum_i P[b, h, i, j]

This is the statistic H2O (Zhang et al., NeurIPS 2023, https://arxiv.org/abs/2306.14048, Sec. 3
and Alg. 1) accumulates to find heavy hitters. Everything is computed in float32 (float64 if the
inputs are float64) with the key/value heads repeated for GQA: slow and obviously correct.
"""

from __future__ import annotations

import torch

from .inputs import ColsumInputs


def allowed_mask(
    q_len: int,
    k_len: int,
    n_heads: int,
    *,
    attn_mask: torch.Tensor | None,
    causal: bool,
    device: torch.device,
) -> tuple[torch.Tensor | None, torch.Tensor | None]:
    """Boolean "may attend" mask and additive bias, both expanded to (B|1, H, Lq, Lk) or None.

    A mask whose head dimension is ``Hm`` (1, Hkv or H) applies to query head ``h`` through
    ``h // (H // Hm)`` (so a per-KV-head mask serves every query head of its group).
    """
    allowed = None
    bias = None
    if causal:
        # bottom-right aligned: query row i sits at key position k_len - q_len + i (KV-cache decoding)
        i = torch.arange(q_len, device=device)[:, None]
        j = torch.arange(k_len, device=device)[None, :]
        allowed = (j <= i + (k_len - q_len))[None, None]  # (1, 1, Lq, Lk)
    if attn_mask is not None:
        hm = attn_mask.shape[1]
        m = attn_mask.repeat_interleave(n_heads // hm, dim=1) if hm != n_heads else attn_mask
        if m.dtype == torch.bool:
            allowed = m if allowed is None else (allowed & m)
        else:
            bias = m
    return allowed, bias


def attention_colsum_reference(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    *,
    attn_mask: torch.Tensor | None = None,
    causal: bool = False,
    scale: float | None = None,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Attention output and per-key column sums of the probabilities (see the module docstring).

    Args:
        q: (B, H, Lq, D) queries.
        k: (B, Hkv, Lk, D) keys, ``H % Hkv == 0``.
        v: (B, Hkv, Lk, Dv) values.
        attn_mask: optional (B|1, 1|Hkv|H, Lq|1, Lk) boolean (True = attend) or additive float mask.
        causal: bottom-right aligned causal masking (query i sees keys j <= Lk - Lq + i).
        scale: softmax scale, default ``D ** -0.5``.

    Returns:
        ``(out, colsum)``: out (B, H, Lq, Dv) in ``q.dtype``; colsum (B, H, Lk) float32. Rows
        with no allowed key give a zero output and add nothing to the column sums.
    """
    return _reference(ColsumInputs(q, k, v, attn_mask=attn_mask, causal=causal, scale=scale))


def _reference(inp: ColsumInputs) -> tuple[torch.Tensor, torch.Tensor]:
    """:func:`attention_colsum_reference` of validated :class:`ColsumInputs` (the backend)."""
    q, k, v, attn_mask, causal, scale = inp.q, inp.k, inp.v, inp.attn_mask, inp.causal, inp.scale
    B, H, Lq, D = q.shape
    Hkv, Lk = k.shape[1], k.shape[2]
    G = H // Hkv
    acc = torch.float64 if q.dtype == torch.float64 else torch.float32
    kk = k.to(acc).repeat_interleave(G, dim=1)  # (B, H, Lk, D)
    vv = v.to(acc).repeat_interleave(G, dim=1)  # (B, H, Lk, Dv)
    s = torch.matmul(q.to(acc), kk.transpose(-1, -2)) * scale  # (B, H, Lq, Lk)
    allowed, bias = allowed_mask(Lq, Lk, H, attn_mask=attn_mask, causal=causal, device=q.device)
    if bias is not None:
        s = s + bias.to(acc)
    if allowed is not None:
        s = s.masked_fill(~allowed, float("-inf"))
    row_max = s.amax(dim=-1, keepdim=True)  # (B, H, Lq, 1)
    row_max = torch.where(torch.isfinite(row_max), row_max, torch.zeros_like(row_max))
    e = torch.exp(s - row_max)  # masked entries -> 0
    denom = e.sum(dim=-1, keepdim=True)
    p = torch.where(denom > 0, e / denom.clamp_min(torch.finfo(acc).tiny), torch.zeros_like(e))
    out = torch.matmul(p, vv).to(q.dtype)
    colsum = p.sum(dim=2).to(torch.float32)
    return out, colsum
