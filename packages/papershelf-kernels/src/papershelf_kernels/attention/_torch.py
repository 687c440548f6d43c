"""CPU-friendly PyTorch path for attention with column sums.

Same contract as :func:`reference.attention_colsum_reference`, but without materialising the
repeated GQA key/value heads (the query heads of a group are stacked as extra rows against their
shared KV head) and processed in chunks of query rows so the score matrix stays within a memory
budget during long prefills. Softmax is always taken in float32 (float64 for float64 inputs).
"""

from __future__ import annotations

import torch

# bytes of float32 scores materialised at once (per chunk of query rows)
SCORE_BYTES = 64 * 2**20


def _group_mask(m: torch.Tensor, Hkv: int, G: int) -> torch.Tensor:
    """(Bm, Hm, Lqm, Lk) -> (Bm, Hkv|1, G|1, Lqm, Lk), broadcastable against (B, Hkv, G, Lq, Lk)."""
    Bm, Hm, Lqm, Lk = m.shape
    if Hm == 1:
        return m[:, :, None]  # (Bm, 1, 1, Lqm, Lk)
    if Hm == Hkv:
        return m[:, :, None]  # (Bm, Hkv, 1, Lqm, Lk)
    return m.reshape(Bm, Hkv, G, Lqm, Lk)  # Hm == H


def attention_colsum_torch(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    *,
    attn_mask: torch.Tensor | None = None,
    causal: bool = False,
    scale: float | None = None,
) -> tuple[torch.Tensor, torch.Tensor]:
    B, H, Lq, D = q.shape
    Hkv, Lk, Dv = k.shape[1], k.shape[2], v.shape[3]
    G = H // Hkv
    scale = D**-0.5 if scale is None else scale
    acc = torch.float64 if q.dtype == torch.float64 else torch.float32
    # matmuls in the input dtype on GPUs (tensor cores, fp32 accumulation), in float32 on CPU
    mm = q.dtype if q.is_cuda else acc
    qg = q.to(mm).view(B, Hkv, G, Lq, D)  # the group's query heads, stacked against their KV head
    kt = k.to(mm).transpose(-1, -2)  # (B, Hkv, D, Lk)
    vv = v.to(mm)
    mask = None if attn_mask is None else _group_mask(attn_mask, Hkv, G)
    out = torch.empty(B, Hkv, G, Lq, Dv, dtype=q.dtype, device=q.device)
    colsum = torch.zeros(B, Hkv, G, Lk, dtype=acc, device=q.device)
    rows = max(1, SCORE_BYTES // max(1, 4 * B * H * Lk))
    masked = causal or attn_mask is not None
    for r0 in range(0, Lq, rows):
        r1 = min(Lq, r0 + rows)
        r = r1 - r0
        # plain 4-D matmul: (B, Hkv, G*r, D) @ (B, Hkv, D, Lk) -> (B, Hkv, G, r, Lk) scores
        qc = qg[:, :, :, r0:r1].reshape(B, Hkv, G * r, D)
        s = torch.matmul(qc, kt).view(B, Hkv, G, r, Lk).to(acc) * scale
        if mask is not None:
            mc = mask if mask.shape[3] == 1 else mask[:, :, :, r0:r1]
            if mc.dtype == torch.bool:
                s = s.masked_fill(~mc, float("-inf"))
            else:
                s = s + mc.to(acc)
        if causal:
            i = torch.arange(r0, r1, device=q.device)[:, None]
            j = torch.arange(Lk, device=q.device)[None, :]
            s = s.masked_fill(j > i + (Lk - Lq), float("-inf"))
        p = torch.softmax(s, dim=-1)
        if masked:
            p = torch.nan_to_num_(p, nan=0.0)  # rows with no allowed key
        colsum += p.sum(dim=3)
        o = torch.matmul(p.to(mm).view(B, Hkv, G * r, Lk), vv)  # (B, Hkv, G*r, Dv)
        out[:, :, :, r0:r1] = o.view(B, Hkv, G, r, Dv).to(q.dtype)
    return out.reshape(B, H, Lq, Dv), colsum.reshape(B, H, Lk).to(torch.float32)
