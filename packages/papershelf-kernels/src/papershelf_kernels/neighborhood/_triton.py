"""Fused neighborhood attention (FNA) in Triton: forward (out + logsumexp) and backward (dq, dk, dv).

Faster Neighborhood Attention (Hassani, Hwu, Shi; NeurIPS 2024) - https://arxiv.org/abs/2403.04690,
Sec. 4 (fused NA). Every problem is handled as 3-D (missing leading axes have length 1).

* Forward / dQ: one program per (multi-dimensional query tile, dilation group, batch x head). The
  tile's KV box is, per axis, [start(first query), end(last query)) - both window bounds are
  monotone in the in-group index - and it is walked in flat chunks of BLOCK_N keys whose
  coordinates are decoded from the flat index. Scores are masked per row with each query's
  per-axis [start, end), the softmax is online (exp2), nothing of size N x prod(k) is stored.
* Dilation is a strided sub-problem: global coordinate = group + dilation * in-group index.
* dK/dV: one program per (KV tile, dilation group, batch x KV head). Its inverse neighbourhood
  (the queries whose window touches the tile) is again a box per axis, found by binary search on
  the monotone window bounds; the G query heads of a KV head are looped inside the program, so
  GQA needs no KV copies and the backward has no atomics (deterministic).
* The backward takes delta = rowsum(dO * O) - dLSE, so gradients through the LSE are exact.

The ops are registered with ``torch.library`` (``papershelf_kernels::na_fwd`` / ``na_bwd``), so
``torch.compile`` traces through them without graph breaks.

Legend of the kernel symbols (every problem is padded to 3 axes; a suffix 1..3 is the axis):

* ``HEAD_D``: the head dim of q/k/v (``D`` in the launchers and the docs); ``BLOCK_D`` its
  power-of-two padding (>= 16); ``d`` the lane index along it.
* ``D1, D2, D3``: the DILATION per axis, not the head dim. ``g1..g3``: the program's dilation
  group (0 <= g < D); ``lg1..lg3``: that group's length on the axis, ceil((L - g) / D).
* ``L1..L3``: token-grid extents (a missing leading axis has length 1 and stride 0).
* ``K1..K3``, ``S1..S3``, ``C1..C3``: kernel size, stride, causal flag (constexpr) per axis.
* ``H``, ``HKV``, ``G``: query heads, key/value heads, G = H // HKV query heads per KV head.
* ``T1..T3``: the query tile (forward, dQ: BLOCK_M = T1*T2*T3 rows) or the KV tile (dK/dV:
  BLOCK_N = T1*T2*T3 rows); ``NT1..NT3`` tiles per axis; ``t1..t3`` the program's tile.
* ``i1..i3`` / ``c1..c3``: in-group query / key coordinates; the global ones are
  ``x = g + D * i`` (queries) and ``kx = g + D * c`` (keys).
* ``qs, qe``: a query's window [start, end) per axis; ``ws, we`` (``cs, ce`` in dK/dV): the window
  all queries of the tile share; a chunk inside it needs no mask (``SKIP_FULL``).
* ``lo, hi``: the box per axis. Forward and dQ: the tile's KV box, [start of its first query, end
  of its last). dK/dV: the inverse neighbourhood, the queries whose windows reach the KV tile.
* ``B2, B3``: the box extents hi2 - lo2 and hi3 - lo3 (axis 1: hi1 - lo1); ``total`` the box's
  size. The box is walked flat, BLOCK_N keys (dK/dV: BLOCK_M queries) per step, and ``f`` is the
  flat index decoded back to (c1, c2, c3) or (i1, i2, i3).
* ``sqb, sq1..sq3, sqh``: strides (batch, axes, head) of Q (shared by dO and dQ); ``sk``, ``sv``,
  ``so``, ``sl`` the same for K (dK), V (dV), O and the LSE (delta).
* ``qk_scale``: scale * log2(e), scores in base 2 for exp2; the LSE is stored in natural log.
* ``delta``: rowsum(dO * O) - dLSE per query and head (backward).
"""

from __future__ import annotations

import math
import os

import torch

from .._dispatch import has_triton

LOG2E = 1.4426950408889634

__all__ = ["na_triton"]

if has_triton():
    import triton
    import triton.language as tl

    @triton.jit
    def _window(ii, lg, K, S, CAUSAL: tl.constexpr):
        """[start, end) of in-group indices ``ii`` on one axis (NATTEN's rule)."""
        if CAUSAL:
            lead = tl.minimum((ii // S) * S + S - 1, lg - 1)
            start = tl.maximum(lead - K + 1, 0)
            end = ii + 1
        else:
            lead = tl.minimum((ii // S) * S + S // 2, lg - 1)
            start = tl.minimum(tl.maximum(lead - K // 2, 0), lg - K)
            end = start + K
        return start, end

    @triton.jit
    def _first_true_end(c, lg, K, S, CAUSAL: tl.constexpr, NITER: tl.constexpr):
        """Smallest in-group query index whose window end is > c (lg if none)."""
        lo = c * 0
        hi = lg + c * 0
        for _ in range(NITER):
            active = lo < hi
            mid = (lo + hi) // 2
            _, e = _window(mid, lg, K, S, CAUSAL)
            ok = e > c
            hi = tl.where(active & ok, mid, hi)
            lo = tl.where(active & (ok == 0), mid + 1, lo)
        return lo

    @triton.jit
    def _first_start_after(c, lg, K, S, CAUSAL: tl.constexpr, NITER: tl.constexpr):
        """Smallest in-group query index whose window start is > c (lg if none)."""
        lo = c * 0
        hi = lg + c * 0
        for _ in range(NITER):
            active = lo < hi
            mid = (lo + hi) // 2
            s, _ = _window(mid, lg, K, S, CAUSAL)
            ok = s > c
            hi = tl.where(active & ok, mid, hi)
            lo = tl.where(active & (ok == 0), mid + 1, lo)
        return lo

    @triton.jit
    def _common(ok, start, end):
        """Intersection [max start, min end) of the windows of the valid entries."""
        return (
            tl.max(tl.where(ok, start, -1073741824), 0),
            tl.min(tl.where(ok, end, 1073741824), 0),
        )

    @triton.jit
    def _min_of(ok, x):
        return tl.min(tl.where(ok, x, 1073741824), 0)

    @triton.jit
    def _max_of(ok, x):
        return tl.max(tl.where(ok, x, -1073741824), 0)

    @triton.jit
    def _chunk_is_full(
        n0, total, kv_ok, c1, c2, c3, ws1, we1, ws2, we2, ws3, we3, BLOCK_N: tl.constexpr
    ):
        """True when the whole KV chunk lies inside every query's window (fully block-sparse)."""
        full = (n0 + BLOCK_N <= total) & (_min_of(kv_ok, c1) >= ws1) & (_max_of(kv_ok, c1) < we1)
        full = full & (_min_of(kv_ok, c2) >= ws2) & (_max_of(kv_ok, c2) < we2)
        full = full & (_min_of(kv_ok, c3) >= ws3) & (_max_of(kv_ok, c3) < we3)
        return full

    @triton.jit
    def _rows_inside(q_ok, kv_ok, c1, c2, c3, qs1, qe1, qs2, qe2, qs3, qe3):
        """[M, N]: query row m sees key column n (every axis inside its window)."""
        return (
            q_ok[:, None] & kv_ok[None, :]
            & (c1[None, :] >= qs1[:, None]) & (c1[None, :] < qe1[:, None])
            & (c2[None, :] >= qs2[:, None]) & (c2[None, :] < qe2[:, None])
            & (c3[None, :] >= qs3[:, None]) & (c3[None, :] < qe3[:, None])
        )  # fmt: skip

    @triton.jit
    def _cols_inside(q_ok, kv_ok, c1, c2, c3, qs1, qe1, qs2, qe2, qs3, qe3):
        """[N, M]: key row n is seen by query column m."""
        return (
            q_ok[None, :] & kv_ok[:, None]
            & (c1[:, None] >= qs1[None, :]) & (c1[:, None] < qe1[None, :])
            & (c2[:, None] >= qs2[None, :]) & (c2[:, None] < qe2[None, :])
            & (c3[:, None] >= qs3[None, :]) & (c3[:, None] < qe3[None, :])
        )  # fmt: skip

    @triton.jit
    def _decode_program(pid, NT1, NT2, NT3, D1, D2, D3):
        t3 = pid % NT3
        r = pid // NT3
        t2 = r % NT2
        r = r // NT2
        t1 = r % NT1
        r = r // NT1
        g3 = r % D3
        r = r // D3
        g2 = r % D2
        g1 = r // D2
        return t1, t2, t3, g1, g2, g3

    @triton.jit
    def _fwd_kernel(
        Q, K, V, O, LSE,
        sqb, sq1, sq2, sq3, sqh,
        skb, sk1, sk2, sk3, skh,
        svb, sv1, sv2, sv3, svh,
        sob, so1, so2, so3, soh,
        slb, sl1, sl2, sl3, slh,
        L1, L2, L3, K1, K2, K3, S1, S2, S3, D1, D2, D3,
        NT1, NT2, NT3, H, G, qk_scale,
        T1: tl.constexpr, T2: tl.constexpr, T3: tl.constexpr,
        C1: tl.constexpr, C2: tl.constexpr, C3: tl.constexpr,
        BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_D: tl.constexpr, HEAD_D: tl.constexpr,
        IEEE: tl.constexpr, SKIP_FULL: tl.constexpr,
    ):  # fmt: skip
        t1, t2, t3, g1, g2, g3 = _decode_program(tl.program_id(0), NT1, NT2, NT3, D1, D2, D3)
        bh = tl.program_id(1)
        b = (bh // H).to(tl.int64)
        h = bh % H
        hkv = h // G
        lg1 = (L1 - g1 + D1 - 1) // D1
        lg2 = (L2 - g2 + D2 - 1) // D2
        lg3 = (L3 - g3 + D3 - 1) // D3
        m = tl.arange(0, BLOCK_M)
        i1 = t1 * T1 + m // (T2 * T3)
        i2 = t2 * T2 + (m // T3) % T2
        i3 = t3 * T3 + m % T3
        q_ok = (i1 < lg1) & (i2 < lg2) & (i3 < lg3)
        qs1, qe1 = _window(i1, lg1, K1, S1, C1)
        qs2, qe2 = _window(i2, lg2, K2, S2, C2)
        qs3, qe3 = _window(i3, lg3, K3, S3, C3)
        ws1, we1 = _common(q_ok, qs1, qe1)
        ws2, we2 = _common(q_ok, qs2, qe2)
        ws3, we3 = _common(q_ok, qs3, qe3)
        # KV box: start of the first query, end of the last (valid) query, per axis
        lo1, _ = _window(t1 * T1, lg1, K1, S1, C1)
        lo2, _ = _window(t2 * T2, lg2, K2, S2, C2)
        lo3, _ = _window(t3 * T3, lg3, K3, S3, C3)
        _, hi1 = _window(tl.minimum(t1 * T1 + T1 - 1, lg1 - 1), lg1, K1, S1, C1)
        _, hi2 = _window(tl.minimum(t2 * T2 + T2 - 1, lg2 - 1), lg2, K2, S2, C2)
        _, hi3 = _window(tl.minimum(t3 * T3 + T3 - 1, lg3 - 1), lg3, K3, S3, C3)
        B2 = hi2 - lo2
        B3 = hi3 - lo3
        total = (hi1 - lo1) * B2 * B3
        d = tl.arange(0, BLOCK_D)
        d_ok = d < HEAD_D
        x1 = g1 + D1 * i1
        x2 = g2 + D2 * i2
        x3 = g3 + D3 * i3
        q_off = b * sqb + x1 * sq1 + x2 * sq2 + x3 * sq3 + h * sqh
        q = tl.load(Q + q_off[:, None] + d[None, :], mask=q_ok[:, None] & d_ok[None, :], other=0.0)
        m_i = tl.full([BLOCK_M], float("-inf"), tl.float32)
        l_i = tl.zeros([BLOCK_M], tl.float32)
        acc = tl.zeros([BLOCK_M, BLOCK_D], tl.float32)
        for n0 in range(0, total, BLOCK_N):
            f = n0 + tl.arange(0, BLOCK_N)
            kv_ok = f < total
            c1 = lo1 + f // (B2 * B3)
            c2 = lo2 + (f // B3) % B2
            c3 = lo3 + f % B3
            kx1 = g1 + D1 * c1
            kx2 = g2 + D2 * c2
            kx3 = g3 + D3 * c3
            k_off = b * skb + kx1 * sk1 + kx2 * sk2 + kx3 * sk3 + hkv * skh
            v_off = b * svb + kx1 * sv1 + kx2 * sv2 + kx3 * sv3 + hkv * svh
            ld = kv_ok[:, None] & d_ok[None, :]
            k = tl.load(K + k_off[:, None] + d[None, :], mask=ld, other=0.0)
            v = tl.load(V + v_off[:, None] + d[None, :], mask=ld, other=0.0)
            if IEEE:
                s = tl.dot(q, tl.trans(k), input_precision="ieee")
            else:
                s = tl.dot(q, tl.trans(k))
            s = s * qk_scale
            if SKIP_FULL:  # no per-element mask when the chunk is inside every query's window
                full = _chunk_is_full(
                    n0, total, kv_ok, c1, c2, c3, ws1, we1, ws2, we2, ws3, we3, BLOCK_N
                )
                if full == 0:
                    inside = _rows_inside(q_ok, kv_ok, c1, c2, c3, qs1, qe1, qs2, qe2, qs3, qe3)
                    s = tl.where(inside, s, float("-inf"))
            else:
                inside = _rows_inside(q_ok, kv_ok, c1, c2, c3, qs1, qe1, qs2, qe2, qs3, qe3)
                s = tl.where(inside, s, float("-inf"))
            m_new = tl.maximum(m_i, tl.max(s, 1))
            m_safe = tl.where(m_new == float("-inf"), 0.0, m_new)
            p = tl.exp2(s - m_safe[:, None])
            alpha = tl.exp2(m_i - m_safe)
            l_i = l_i * alpha + tl.sum(p, 1)
            if IEEE:
                pv = tl.dot(p.to(v.dtype), v, input_precision="ieee")
            else:
                pv = tl.dot(p.to(v.dtype), v)
            acc = acc * alpha[:, None] + pv
            m_i = m_new
        l_safe = tl.where(l_i == 0.0, 1.0, l_i)
        out = acc / l_safe[:, None]
        o_off = b * sob + x1 * so1 + x2 * so2 + x3 * so3 + h * soh
        tl.store(
            O + o_off[:, None] + d[None, :],
            out.to(O.dtype.element_ty),
            mask=q_ok[:, None] & d_ok[None, :],
        )
        lse = (m_i + tl.log2(l_safe)) * 0.6931471805599453  # natural log
        l_off = b * slb + x1 * sl1 + x2 * sl2 + x3 * sl3 + h * slh
        tl.store(LSE + l_off, lse, mask=q_ok)

    @triton.jit
    def _bwd_dq_kernel(
        Q, K, V, DO, LSE, DELTA, DQ,
        sqb, sq1, sq2, sq3, sqh,
        skb, sk1, sk2, sk3, skh,
        svb, sv1, sv2, sv3, svh,
        slb, sl1, sl2, sl3, slh,
        L1, L2, L3, K1, K2, K3, S1, S2, S3, D1, D2, D3,
        NT1, NT2, NT3, H, G, qk_scale, scale,
        T1: tl.constexpr, T2: tl.constexpr, T3: tl.constexpr,
        C1: tl.constexpr, C2: tl.constexpr, C3: tl.constexpr,
        BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_D: tl.constexpr, HEAD_D: tl.constexpr,
        IEEE: tl.constexpr, SKIP_FULL: tl.constexpr,
    ):  # fmt: skip
        # Q, DO and DQ share strides (sq*); LSE and DELTA share strides (sl*)
        t1, t2, t3, g1, g2, g3 = _decode_program(tl.program_id(0), NT1, NT2, NT3, D1, D2, D3)
        bh = tl.program_id(1)
        b = (bh // H).to(tl.int64)
        h = bh % H
        hkv = h // G
        lg1 = (L1 - g1 + D1 - 1) // D1
        lg2 = (L2 - g2 + D2 - 1) // D2
        lg3 = (L3 - g3 + D3 - 1) // D3
        m = tl.arange(0, BLOCK_M)
        i1 = t1 * T1 + m // (T2 * T3)
        i2 = t2 * T2 + (m // T3) % T2
        i3 = t3 * T3 + m % T3
        q_ok = (i1 < lg1) & (i2 < lg2) & (i3 < lg3)
        qs1, qe1 = _window(i1, lg1, K1, S1, C1)
        qs2, qe2 = _window(i2, lg2, K2, S2, C2)
        qs3, qe3 = _window(i3, lg3, K3, S3, C3)
        ws1, we1 = _common(q_ok, qs1, qe1)
        ws2, we2 = _common(q_ok, qs2, qe2)
        ws3, we3 = _common(q_ok, qs3, qe3)
        lo1, _ = _window(t1 * T1, lg1, K1, S1, C1)
        lo2, _ = _window(t2 * T2, lg2, K2, S2, C2)
        lo3, _ = _window(t3 * T3, lg3, K3, S3, C3)
        _, hi1 = _window(tl.minimum(t1 * T1 + T1 - 1, lg1 - 1), lg1, K1, S1, C1)
        _, hi2 = _window(tl.minimum(t2 * T2 + T2 - 1, lg2 - 1), lg2, K2, S2, C2)
        _, hi3 = _window(tl.minimum(t3 * T3 + T3 - 1, lg3 - 1), lg3, K3, S3, C3)
        B2 = hi2 - lo2
        B3 = hi3 - lo3
        total = (hi1 - lo1) * B2 * B3
        d = tl.arange(0, BLOCK_D)
        d_ok = d < HEAD_D
        x1 = g1 + D1 * i1
        x2 = g2 + D2 * i2
        x3 = g3 + D3 * i3
        q_off = b * sqb + x1 * sq1 + x2 * sq2 + x3 * sq3 + h * sqh
        qm = q_ok[:, None] & d_ok[None, :]
        q = tl.load(Q + q_off[:, None] + d[None, :], mask=qm, other=0.0)
        do = tl.load(DO + q_off[:, None] + d[None, :], mask=qm, other=0.0)
        l_off = b * slb + x1 * sl1 + x2 * sl2 + x3 * sl3 + h * slh
        lse2 = tl.load(LSE + l_off, mask=q_ok, other=0.0) * 1.4426950408889634
        delta = tl.load(DELTA + l_off, mask=q_ok, other=0.0)
        dq = tl.zeros([BLOCK_M, BLOCK_D], tl.float32)
        for n0 in range(0, total, BLOCK_N):
            f = n0 + tl.arange(0, BLOCK_N)
            kv_ok = f < total
            c1 = lo1 + f // (B2 * B3)
            c2 = lo2 + (f // B3) % B2
            c3 = lo3 + f % B3
            kx1 = g1 + D1 * c1
            kx2 = g2 + D2 * c2
            kx3 = g3 + D3 * c3
            k_off = b * skb + kx1 * sk1 + kx2 * sk2 + kx3 * sk3 + hkv * skh
            v_off = b * svb + kx1 * sv1 + kx2 * sv2 + kx3 * sv3 + hkv * svh
            ld = kv_ok[:, None] & d_ok[None, :]
            k = tl.load(K + k_off[:, None] + d[None, :], mask=ld, other=0.0)
            v = tl.load(V + v_off[:, None] + d[None, :], mask=ld, other=0.0)
            if IEEE:
                s = tl.dot(q, tl.trans(k), input_precision="ieee")
                dp = tl.dot(do, tl.trans(v), input_precision="ieee")
            else:
                s = tl.dot(q, tl.trans(k))
                dp = tl.dot(do, tl.trans(v))
            p = tl.exp2(s * qk_scale - lse2[:, None])
            if SKIP_FULL:
                full = _chunk_is_full(
                    n0, total, kv_ok, c1, c2, c3, ws1, we1, ws2, we2, ws3, we3, BLOCK_N
                )
                if full == 0:
                    inside = _rows_inside(q_ok, kv_ok, c1, c2, c3, qs1, qe1, qs2, qe2, qs3, qe3)
                    p = tl.where(inside, p, 0.0)
            else:
                inside = _rows_inside(q_ok, kv_ok, c1, c2, c3, qs1, qe1, qs2, qe2, qs3, qe3)
                p = tl.where(inside, p, 0.0)
            ds = p * (dp - delta[:, None])
            if IEEE:
                dq += tl.dot(ds.to(k.dtype), k, input_precision="ieee")
            else:
                dq += tl.dot(ds.to(k.dtype), k)
        tl.store(DQ + q_off[:, None] + d[None, :], (dq * scale).to(DQ.dtype.element_ty), mask=qm)

    @triton.jit
    def _bwd_dkdv_kernel(
        Q, K, V, DO, LSE, DELTA, DK, DV,
        sqb, sq1, sq2, sq3, sqh,
        skb, sk1, sk2, sk3, skh,
        svb, sv1, sv2, sv3, svh,
        slb, sl1, sl2, sl3, slh,
        L1, L2, L3, K1, K2, K3, S1, S2, S3, D1, D2, D3,
        NT1, NT2, NT3, HKV, G, qk_scale, scale,
        T1: tl.constexpr, T2: tl.constexpr, T3: tl.constexpr,
        C1: tl.constexpr, C2: tl.constexpr, C3: tl.constexpr,
        BLOCK_M: tl.constexpr, BLOCK_D: tl.constexpr, HEAD_D: tl.constexpr, IEEE: tl.constexpr,
        BLOCK_N: tl.constexpr, NITER: tl.constexpr, SKIP_FULL: tl.constexpr,
    ):  # fmt: skip
        # (T1, T2, T3) is the KV tile; BLOCK_M queries per inner step. K/DK share strides sk*,
        # V/DV share sv*, Q/DO share sq*, LSE/DELTA share sl*.
        t1, t2, t3, g1, g2, g3 = _decode_program(tl.program_id(0), NT1, NT2, NT3, D1, D2, D3)
        bh = tl.program_id(1)
        b = (bh // HKV).to(tl.int64)
        hkv = bh % HKV
        lg1 = (L1 - g1 + D1 - 1) // D1
        lg2 = (L2 - g2 + D2 - 1) // D2
        lg3 = (L3 - g3 + D3 - 1) // D3
        n = tl.arange(0, BLOCK_N)
        c1 = t1 * T1 + n // (T2 * T3)
        c2 = t2 * T2 + (n // T3) % T2
        c3 = t3 * T3 + n % T3
        kv_ok = (c1 < lg1) & (c2 < lg2) & (c3 < lg3)
        # inverse neighbourhood: queries with end > first key and start <= last key, per axis
        f1 = t1 * T1
        f2 = t2 * T2
        f3 = t3 * T3
        e1 = tl.minimum(f1 + T1 - 1, lg1 - 1)
        e2 = tl.minimum(f2 + T2 - 1, lg2 - 1)
        e3 = tl.minimum(f3 + T3 - 1, lg3 - 1)
        lo1 = _first_true_end(f1, lg1, K1, S1, C1, NITER)
        lo2 = _first_true_end(f2, lg2, K2, S2, C2, NITER)
        lo3 = _first_true_end(f3, lg3, K3, S3, C3, NITER)
        hi1 = _first_start_after(e1, lg1, K1, S1, C1, NITER)
        hi2 = _first_start_after(e2, lg2, K2, S2, C2, NITER)
        hi3 = _first_start_after(e3, lg3, K3, S3, C3, NITER)
        B2 = hi2 - lo2
        B3 = hi3 - lo3
        total = (hi1 - lo1) * B2 * B3
        d = tl.arange(0, BLOCK_D)
        d_ok = d < HEAD_D
        kx1 = g1 + D1 * c1
        kx2 = g2 + D2 * c2
        kx3 = g3 + D3 * c3
        km = kv_ok[:, None] & d_ok[None, :]
        k_off = b * skb + kx1 * sk1 + kx2 * sk2 + kx3 * sk3 + hkv * skh
        v_off = b * svb + kx1 * sv1 + kx2 * sv2 + kx3 * sv3 + hkv * svh
        k = tl.load(K + k_off[:, None] + d[None, :], mask=km, other=0.0)
        v = tl.load(V + v_off[:, None] + d[None, :], mask=km, other=0.0)
        dk = tl.zeros([BLOCK_N, BLOCK_D], tl.float32)
        dv = tl.zeros([BLOCK_N, BLOCK_D], tl.float32)
        for m0 in range(0, total, BLOCK_M):
            f = m0 + tl.arange(0, BLOCK_M)
            q_ok = f < total
            i1 = lo1 + f // (B2 * B3)
            i2 = lo2 + (f // B3) % B2
            i3 = lo3 + f % B3
            qs1, qe1 = _window(i1, lg1, K1, S1, C1)
            qs2, qe2 = _window(i2, lg2, K2, S2, C2)
            qs3, qe3 = _window(i3, lg3, K3, S3, C3)
            if SKIP_FULL:  # the chunk's queries all see every key of the tile: no mask needed
                cs1, ce1 = _common(q_ok, qs1, qe1)
                cs2, ce2 = _common(q_ok, qs2, qe2)
                cs3, ce3 = _common(q_ok, qs3, qe3)
                full = (m0 + BLOCK_M <= total) & (f1 >= cs1) & (e1 < ce1) & (f2 >= cs2) & (e2 < ce2)
                full = full & (f3 >= cs3) & (e3 < ce3)
            x1 = g1 + D1 * i1
            x2 = g2 + D2 * i2
            x3 = g3 + D3 * i3
            qm = q_ok[:, None] & d_ok[None, :]
            for gq in range(0, G):
                h = hkv * G + gq
                q_off = b * sqb + x1 * sq1 + x2 * sq2 + x3 * sq3 + h * sqh
                l_off = b * slb + x1 * sl1 + x2 * sl2 + x3 * sl3 + h * slh
                q = tl.load(Q + q_off[:, None] + d[None, :], mask=qm, other=0.0)
                do = tl.load(DO + q_off[:, None] + d[None, :], mask=qm, other=0.0)
                lse2 = tl.load(LSE + l_off, mask=q_ok, other=0.0) * 1.4426950408889634
                delta = tl.load(DELTA + l_off, mask=q_ok, other=0.0)
                if IEEE:
                    st = tl.dot(k, tl.trans(q), input_precision="ieee")  # [N, M]
                    dpt = tl.dot(v, tl.trans(do), input_precision="ieee")
                else:
                    st = tl.dot(k, tl.trans(q))
                    dpt = tl.dot(v, tl.trans(do))
                pt = tl.exp2(st * qk_scale - lse2[None, :])
                if SKIP_FULL:
                    if full == 0:
                        inside = _cols_inside(q_ok, kv_ok, c1, c2, c3, qs1, qe1, qs2, qe2, qs3, qe3)
                        pt = tl.where(inside, pt, 0.0)
                else:
                    inside = _cols_inside(q_ok, kv_ok, c1, c2, c3, qs1, qe1, qs2, qe2, qs3, qe3)
                    pt = tl.where(inside, pt, 0.0)
                dst = pt * (dpt - delta[None, :])
                if IEEE:
                    dv += tl.dot(pt.to(do.dtype), do, input_precision="ieee")
                    dk += tl.dot(dst.to(q.dtype), q, input_precision="ieee")
                else:
                    dv += tl.dot(pt.to(do.dtype), do)
                    dk += tl.dot(dst.to(q.dtype), q)
        tl.store(DK + k_off[:, None] + d[None, :], (dk * scale).to(DK.dtype.element_ty), mask=km)
        tl.store(DV + v_off[:, None] + d[None, :], dv.to(DV.dtype.element_ty), mask=km)


# ------------------------------------------------------------------------------------ launchers


def mask_skip() -> bool:
    """Whether the kernels skip the mask on fully block-sparse chunks.

    ``PAPERSHELF_NA_MASK_SKIP=0`` turns the fast path off (a fallback should a Triton version
    reject the data-dependent branch); the result is identical either way.
    """
    return os.environ.get("PAPERSHELF_NA_MASK_SKIP", "1") != "0"


def _pad3(shape, vals, fill):
    """Prepend ``fill`` so per-axis tuples describe a 3-D problem."""
    return (fill,) * (3 - len(shape)) + tuple(vals)


def _strides5(x: torch.Tensor, n: int) -> list[int]:
    """Strides (batch, axis1..3, head) of a [B, X.., H, D] tensor or a [B, X.., H] LSE, padded to
    3 axes (a missing leading axis has stride 0)."""
    st = list(x.stride())
    return [st[0]] + [0] * (3 - n) + st[1 : 1 + n] + [st[1 + n]]


def default_q_tile(n: int) -> tuple[int, ...]:
    return {1: (64,), 2: (8, 8), 3: (4, 4, 4)}[n]


def _unpack(params: list[int]):
    n = params[0]
    ks, st, di, ca = params[1:4], params[4:7], params[7:10], params[10:13]
    qt, kt = params[13:16], params[16:19]
    block_n = params[19]
    return n, ks, st, di, ca, qt, kt, block_n


def _grid_args(L, ks, st, di, T):
    """Tiles per axis for tile shape ``T``, and the per-axis scalars (L, K, S, D) of a launch."""
    nt = [math.ceil(math.ceil(L[a] / di[a]) / T[a]) for a in range(3)]
    axis = [*L, *ks, *st, *di]
    return nt, axis


def _fwd_impl(q, k, v, params: list[int], scale: float):
    n, ks, st, di, ca, qt, kt, block_n = _unpack(params)
    B, H, D = q.shape[0], q.shape[-2], q.shape[-1]
    Hkv = k.shape[-2]
    L = _pad3(q.shape[1 : 1 + n], q.shape[1 : 1 + n], 1)
    out = torch.empty_like(q)
    lse = torch.empty(q.shape[:-1], device=q.device, dtype=torch.float32)
    nt, axis = _grid_args(L, ks, st, di, qt)
    grid = (nt[0] * nt[1] * nt[2] * di[0] * di[1] * di[2], B * H)
    _fwd_kernel[grid](
        q, k, v, out, lse,
        *_strides5(q, n), *_strides5(k, n), *_strides5(v, n), *_strides5(out, n), *_strides5(lse, n),
        *axis, *nt, H, H // Hkv, scale * LOG2E,
        T1=qt[0], T2=qt[1], T3=qt[2], C1=ca[0], C2=ca[1], C3=ca[2],
        BLOCK_M=qt[0] * qt[1] * qt[2], BLOCK_N=block_n, BLOCK_D=max(16, triton.next_power_of_2(D)),
        HEAD_D=D, IEEE=q.dtype == torch.float32, SKIP_FULL=mask_skip(),
        num_warps=4 if D <= 64 else 8, num_stages=2,
    )  # fmt: skip
    return out, lse


def _bwd_impl(q, k, v, o, lse, do, dlse, params: list[int], scale: float):
    n, ks, st, di, ca, qt, kt, block_n = _unpack(params)
    B, H, D = q.shape[0], q.shape[-2], q.shape[-1]
    Hkv = k.shape[-2]
    G = H // Hkv
    L = _pad3(q.shape[1 : 1 + n], q.shape[1 : 1 + n], 1)
    do = do.contiguous()
    delta = (do.float() * o.float()).sum(-1) - dlse.float()  # [B, X.., H]
    delta = delta.contiguous()
    lse = lse.contiguous()
    dq = torch.empty_like(q)
    dk = torch.empty_like(k)
    dv = torch.empty_like(v)
    BLOCK_D = max(16, triton.next_power_of_2(D))
    ieee = q.dtype == torch.float32
    warps = 4 if D <= 64 else 8
    nt, axis = _grid_args(L, ks, st, di, qt)
    assert q.stride() == do.stride() == dq.stride(), "q, dO and dQ must share strides"
    _bwd_dq_kernel[(nt[0] * nt[1] * nt[2] * di[0] * di[1] * di[2], B * H)](
        q, k, v, do, lse, delta, dq,
        *_strides5(q, n), *_strides5(k, n), *_strides5(v, n), *_strides5(lse, n),
        *axis, *nt, H, G, scale * LOG2E, scale,
        T1=qt[0], T2=qt[1], T3=qt[2], C1=ca[0], C2=ca[1], C3=ca[2],
        BLOCK_M=qt[0] * qt[1] * qt[2], BLOCK_N=block_n, BLOCK_D=BLOCK_D, HEAD_D=D, IEEE=ieee, SKIP_FULL=mask_skip(),
        num_warps=warps, num_stages=2,
    )  # fmt: skip
    nk, _ = _grid_args(L, ks, st, di, kt)
    niter = max(1, int(max(L)).bit_length() + 1)
    assert k.stride() == dk.stride() and v.stride() == dv.stride()
    _bwd_dkdv_kernel[(nk[0] * nk[1] * nk[2] * di[0] * di[1] * di[2], B * Hkv)](
        q, k, v, do, lse, delta, dk, dv,
        *_strides5(q, n), *_strides5(k, n), *_strides5(v, n), *_strides5(lse, n),
        *axis, *nk, Hkv, G, scale * LOG2E, scale,
        T1=kt[0], T2=kt[1], T3=kt[2], C1=ca[0], C2=ca[1], C3=ca[2],
        BLOCK_N=kt[0] * kt[1] * kt[2], BLOCK_M=block_n, BLOCK_D=BLOCK_D, HEAD_D=D, IEEE=ieee, SKIP_FULL=mask_skip(),
        NITER=niter, num_warps=warps, num_stages=2,
    )  # fmt: skip
    return dq, dk, dv


# ------------------------------------------------------------------- torch.library registration

if has_triton():

    @torch.library.custom_op("papershelf_kernels::na_fwd", mutates_args=())
    def na_fwd(
        q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, params: list[int], scale: float
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Fused NA forward: (out [B, X.., H, D], lse [B, X.., H] fp32)."""
        return _fwd_impl(q, k, v, params, scale)

    @na_fwd.register_fake
    def _(q, k, v, params, scale):
        return torch.empty_like(q), q.new_empty(q.shape[:-1], dtype=torch.float32)

    @torch.library.custom_op("papershelf_kernels::na_bwd", mutates_args=())
    def na_bwd(
        q: torch.Tensor,
        k: torch.Tensor,
        v: torch.Tensor,
        o: torch.Tensor,
        lse: torch.Tensor,
        do: torch.Tensor,
        dlse: torch.Tensor,
        params: list[int],
        scale: float,
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """Fused NA backward (deterministic): (dq, dk, dv)."""
        return _bwd_impl(q, k, v, o, lse, do, dlse, params, scale)

    @na_bwd.register_fake
    def _(q, k, v, o, lse, do, dlse, params, scale):
        return torch.empty_like(q), torch.empty_like(k), torch.empty_like(v)

    def _setup(ctx, inputs, output):
        q, k, v, params, scale = inputs
        o, lse = output
        ctx.save_for_backward(q, k, v, o, lse)
        ctx.params, ctx.scale = params, scale

    def _backward(ctx, do, dlse):
        q, k, v, o, lse = ctx.saved_tensors
        if do is None:
            do = torch.zeros_like(o)
        if dlse is None:
            dlse = torch.zeros_like(lse)
        dq, dk, dv = na_bwd(q, k, v, o, lse, do, dlse, ctx.params, ctx.scale)
        return dq, dk, dv, None, None

    na_fwd.register_autograd(_backward, setup_context=_setup)


def na_triton(inp) -> tuple[torch.Tensor, torch.Tensor]:
    """Run the fused kernels on a validated :class:`~papershelf_kernels.neighborhood.NAInputs`."""
    n = inp.n
    qt = inp.q_tile_shape if inp.q_tile_shape is not None else default_q_tile(n)
    if math.prod(qt) < 16 or math.prod(qt) & (math.prod(qt) - 1):
        raise ValueError(
            f"q_tile_shape must be {n} ints whose product is a power of two >= 16 for the "
            f"triton backend, got {qt}"
        )
    block_n = inp.kv_tile_size or 64
    if block_n < 16 or block_n & (block_n - 1):
        raise ValueError(
            f"kv_tile_size must be a power of two >= 16 for the triton backend, got {block_n}"
        )
    q, k, v = (t.contiguous() for t in (inp.query, inp.key, inp.value))
    kernel_size, stride, dilation, is_causal = inp.axis_args
    params = [
        n,
        *_pad3(qt, kernel_size, 1),
        *_pad3(qt, stride, 1),
        *_pad3(qt, dilation, 1),
        *_pad3(qt, [int(c) for c in is_causal], 0),
        *_pad3(qt, qt, 1),
        *_pad3(qt, qt, 1),  # dK/dV: KV tiles of the query tile's shape
        block_n,
    ]
    return torch.ops.papershelf_kernels.na_fwd(q, k, v, params, float(inp.scale))
