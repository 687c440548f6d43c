"""Triton kernels: attention forward + per-key column sums of the probabilities (two passes).

Column sums of a softmax need each row's final max and normaliser, which a single streaming pass
over the keys does not know until it has seen them all. We therefore run two deterministic passes
(no atomics):

1. ``_fwd_kernel`` - a FlashAttention-style forward. One program owns a block of query rows of one
   KV head; the rows of all G query heads of the GQA group are stacked (row m = g * Lq + i), so each
   key/value tile is loaded once per group (decode steps then fill the tile with G rows instead of
   one). It streams over the keys with the online softmax and writes the output and the row
   log-sum-exp (base 2).
2. ``_colsum_kernel`` - one program owns a block of keys of one query head, recomputes the scores
   of every query row against it, turns them into probabilities with the stored LSE and sums them
   over the rows. Under causal masking it starts at the first query row that can see the block.

Masks: an optional 4-D boolean (True = attend) or additive mask read through its strides
(broadcast dimensions have stride 0; head ``h`` reads mask head ``h // (H // Hm)``), plus
bottom-right aligned causal masking. Rows with no allowed key produce zeros.
"""

from __future__ import annotations

import torch

from .._dispatch import has_triton

LOG2E = 1.4426950408889634

if has_triton():
    import triton
    import triton.language as tl

    @triton.jit
    def _fwd_kernel(
        Q, K, V, M, O, LSE,
        sqb, sqh, sqm, sqd,
        skb, skh, skn, skd,
        svb, svh, svn, svd,
        smb, smh, smm, smn,
        sob, soh, som, sod,
        slb, slh, slm,
        H, HKV, HM, Lq, Lk, qk_scale,
        G: tl.constexpr,
        HAS_MASK: tl.constexpr, BOOL_MASK: tl.constexpr, CAUSAL: tl.constexpr,
        IEEE: tl.constexpr,
        BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_D: tl.constexpr, BLOCK_DV: tl.constexpr,
        D: tl.constexpr, DV: tl.constexpr,
    ):  # fmt: skip
        pid_m = tl.program_id(0)
        pid_bh = tl.program_id(1)
        b = pid_bh // HKV
        hkv = pid_bh % HKV
        rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)  # m = g * Lq + i
        row_ok = rows < G * Lq
        g = rows // Lq
        qi = rows % Lq
        h = hkv * G + g  # query head of each row
        offs_d = tl.arange(0, BLOCK_D)
        offs_dv = tl.arange(0, BLOCK_DV)
        q_ptrs = Q + b * sqb + h[:, None] * sqh + qi[:, None] * sqm + offs_d[None, :] * sqd
        q = tl.load(q_ptrs, mask=row_ok[:, None] & (offs_d[None, :] < D), other=0.0)
        m_i = tl.full([BLOCK_M], float("-inf"), tl.float32)
        l_i = tl.zeros([BLOCK_M], tl.float32)
        acc = tl.zeros([BLOCK_M, BLOCK_DV], tl.float32)
        hm = h // (H // HM)
        n_end = Lk
        if CAUSAL:
            # the last row of this block sees keys up to (max i) + Lk - Lq
            n_end = tl.minimum(Lk, tl.max(tl.where(row_ok, qi, 0)) + (Lk - Lq) + 1)
        for n0 in range(0, n_end, BLOCK_N):
            offs_n = n0 + tl.arange(0, BLOCK_N)
            n_ok = offs_n < Lk
            k_ptrs = K + b * skb + hkv * skh + offs_n[:, None] * skn + offs_d[None, :] * skd
            k = tl.load(k_ptrs, mask=n_ok[:, None] & (offs_d[None, :] < D), other=0.0)
            if IEEE:
                s = tl.dot(q, tl.trans(k), input_precision="ieee")
            else:
                s = tl.dot(q, tl.trans(k))
            s = s * qk_scale  # base-2 logits
            ok = row_ok[:, None] & n_ok[None, :]
            if CAUSAL:
                ok = ok & (offs_n[None, :] <= qi[:, None] + (Lk - Lq))
            if HAS_MASK:
                m_ptrs = M + b * smb + hm[:, None] * smh + qi[:, None] * smm + offs_n[None, :] * smn
                if BOOL_MASK:
                    mv = tl.load(m_ptrs, mask=ok, other=0)
                    ok = ok & (mv != 0)
                else:
                    mv = tl.load(m_ptrs, mask=ok, other=0.0).to(tl.float32)
                    s = s + mv * 1.4426950408889634
            s = tl.where(ok, s, float("-inf"))
            m_new = tl.maximum(m_i, tl.max(s, axis=1))
            m_safe = tl.where(m_new == float("-inf"), 0.0, m_new)
            p = tl.exp2(s - m_safe[:, None])
            alpha = tl.exp2(m_i - m_safe)
            l_i = l_i * alpha + tl.sum(p, axis=1)
            acc = acc * alpha[:, None]
            v_ptrs = V + b * svb + hkv * svh + offs_n[:, None] * svn + offs_dv[None, :] * svd
            v = tl.load(v_ptrs, mask=n_ok[:, None] & (offs_dv[None, :] < DV), other=0.0)
            if IEEE:
                acc += tl.dot(p.to(v.dtype), v, input_precision="ieee")
            else:
                acc += tl.dot(p.to(v.dtype), v)
            m_i = m_new
        has = l_i > 0
        out = acc / tl.where(has, l_i, 1.0)[:, None]
        lse = tl.where(has, m_i + tl.log2(tl.where(has, l_i, 1.0)), float("inf"))
        o_ptrs = O + b * sob + h[:, None] * soh + qi[:, None] * som + offs_dv[None, :] * sod
        tl.store(o_ptrs, out.to(O.dtype.element_ty), mask=row_ok[:, None] & (offs_dv[None, :] < DV))
        tl.store(LSE + b * slb + h * slh + qi * slm, lse, mask=row_ok)

    @triton.jit
    def _colsum_kernel(
        Q, K, M, LSE, C,
        sqb, sqh, sqm, sqd,
        skb, skh, skn, skd,
        smb, smh, smm, smn,
        slb, slh, slm,
        scb, sch, scn,
        H, HM, Lq, Lk, qk_scale,
        G: tl.constexpr,
        HAS_MASK: tl.constexpr, BOOL_MASK: tl.constexpr, CAUSAL: tl.constexpr,
        IEEE: tl.constexpr,
        BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_D: tl.constexpr, D: tl.constexpr,
    ):  # fmt: skip
        pid_n = tl.program_id(0)
        pid_bh = tl.program_id(1)
        b = pid_bh // H
        h = pid_bh % H
        hkv = h // G
        hm = h // (H // HM)
        offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
        n_ok = offs_n < Lk
        offs_d = tl.arange(0, BLOCK_D)
        k_ptrs = K + b * skb + hkv * skh + offs_n[:, None] * skn + offs_d[None, :] * skd
        k = tl.load(k_ptrs, mask=n_ok[:, None] & (offs_d[None, :] < D), other=0.0)
        csum = tl.zeros([BLOCK_N], tl.float32)
        m_start = 0
        if CAUSAL:
            # rows i < n0 - (Lk - Lq) cannot see any key of this block
            m_start = tl.maximum(0, pid_n * BLOCK_N - (Lk - Lq))
            m_start = (m_start // BLOCK_M) * BLOCK_M
        for m0 in range(m_start, Lq, BLOCK_M):
            offs_m = m0 + tl.arange(0, BLOCK_M)
            m_ok = offs_m < Lq
            q_ptrs = Q + b * sqb + h * sqh + offs_m[:, None] * sqm + offs_d[None, :] * sqd
            q = tl.load(q_ptrs, mask=m_ok[:, None] & (offs_d[None, :] < D), other=0.0)
            if IEEE:
                s = tl.dot(q, tl.trans(k), input_precision="ieee")
            else:
                s = tl.dot(q, tl.trans(k))
            s = s * qk_scale
            ok = m_ok[:, None] & n_ok[None, :]
            if CAUSAL:
                ok = ok & (offs_n[None, :] <= offs_m[:, None] + (Lk - Lq))
            if HAS_MASK:
                m_ptrs = M + b * smb + hm * smh + offs_m[:, None] * smm + offs_n[None, :] * smn
                if BOOL_MASK:
                    mv = tl.load(m_ptrs, mask=ok, other=0)
                    ok = ok & (mv != 0)
                else:
                    mv = tl.load(m_ptrs, mask=ok, other=0.0).to(tl.float32)
                    s = s + mv * 1.4426950408889634
            lse = tl.load(LSE + b * slb + h * slh + offs_m * slm, mask=m_ok, other=float("inf"))
            p = tl.exp2(s - lse[:, None])
            p = tl.where(ok & (s > float("-inf")), p, 0.0)
            csum += tl.sum(p, axis=0)
        tl.store(C + b * scb + h * sch + offs_n * scn, csum, mask=n_ok)


def _mask_args(attn_mask: torch.Tensor | None, device: torch.device):
    """(tensor, strides, Hm, has, is_bool) with broadcast dimensions given stride 0."""
    if attn_mask is None:
        return torch.empty(1, device=device), (0, 0, 0, 0), 1, False, False
    m = attn_mask.view(torch.uint8) if attn_mask.dtype == torch.bool else attn_mask
    strides = tuple(0 if m.shape[d] == 1 else m.stride(d) for d in range(4))
    return m, strides, m.shape[1], True, attn_mask.dtype == torch.bool


def attention_colsum_triton(
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
    qk_scale = scale * LOG2E
    out = torch.empty(B, H, Lq, Dv, dtype=q.dtype, device=q.device)
    lse = torch.empty(B, H, Lq, dtype=torch.float32, device=q.device)
    colsum = torch.empty(B, H, Lk, dtype=torch.float32, device=q.device)
    m, ms, Hm, has_mask, bool_mask = _mask_args(attn_mask, q.device)
    ieee = q.dtype == torch.float32
    BLOCK_D = max(16, triton.next_power_of_2(D))
    BLOCK_DV = max(16, triton.next_power_of_2(Dv))
    big = BLOCK_D > 64 or BLOCK_DV > 64
    BLOCK_M = 64 if (G * Lq >= 64 and not (ieee or big)) else (32 if G * Lq > 16 else 16)
    BLOCK_N = 32 if (ieee or big) else 64
    grid = (triton.cdiv(G * Lq, BLOCK_M), B * Hkv)
    _fwd_kernel[grid](
        q, k, v, m, out, lse,
        *q.stride(), *k.stride(), *v.stride(), *ms, *out.stride(), *lse.stride(),
        H, Hkv, Hm, Lq, Lk, qk_scale,
        G=G, HAS_MASK=has_mask, BOOL_MASK=bool_mask, CAUSAL=causal, IEEE=ieee,
        BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_D=BLOCK_D, BLOCK_DV=BLOCK_DV, D=D, DV=Dv,
    )  # fmt: skip
    BM2 = 16 if Lq <= 16 else (32 if (ieee or big) else 64)
    BN2 = 32 if (ieee or big) else 64
    grid2 = (triton.cdiv(Lk, BN2), B * H)
    _colsum_kernel[grid2](
        q, k, m, lse, colsum,
        *q.stride(), *k.stride(), *ms, *lse.stride(), *colsum.stride(),
        H, Hm, Lq, Lk, qk_scale,
        G=G, HAS_MASK=has_mask, BOOL_MASK=bool_mask, CAUSAL=causal, IEEE=ieee,
        BLOCK_M=BM2, BLOCK_N=BN2, BLOCK_D=BLOCK_D, D=D,
    )  # fmt: skip
    return out, colsum
