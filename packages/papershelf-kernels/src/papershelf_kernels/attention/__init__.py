"""Attention that also returns the per-key accumulated probability mass (for H2O-style scoring).

``attention_colsum(q, k, v)`` computes softmax attention and, in the same call, the column sums of
the attention probabilities over the query rows, per query head:

    out[b, h, i]    = sum_j P[b, h, i, j] v[b, h // G, j]
    colsum[b, h, j] = sum_i P[b, h, i, j]

H2O (Zhang et al., "H2O: Heavy-Hitter Oracle for Efficient Generative Inference of Large Language
Models", NeurIPS 2023, https://arxiv.org/abs/2306.14048, Sec. 3 / Alg. 1) ranks cached tokens by
this accumulated mass; fused attention kernels (SDPA, FlashAttention) do not expose it, which is
why H2O implementations usually fall back to slow eager attention.

Backends (``backend="auto"`` takes the first that can run the problem):

- ``"triton"``: two-pass Triton kernel (forward with online softmax + LSE, then a key-blocked pass
  that sums the probabilities); CUDA tensors, or CPU tensors under ``TRITON_INTERPRET=1``.
- ``"torch"``: chunked PyTorch path without repeated KV heads; any device (the CPU default).
- ``"reference"``: the readable float32 oracle in :mod:`.reference`.
"""

from __future__ import annotations

import torch

from .._dispatch import Backend, has_triton, select, triton_device_reasons
from ._torch import attention_colsum_torch
from .reference import attention_colsum_reference

__all__ = ["ATOL", "RTOL", "BACKENDS", "attention_colsum", "attention_colsum_reference"]

# Tolerances of the Triton / torch paths against the float32 reference, per input dtype
# (outputs; column sums are sums of at most Lq probabilities, compared with the same rtol and
# atol * Lq).
ATOL = {torch.float32: 2e-5, torch.float16: 2e-3, torch.bfloat16: 1.6e-2, torch.float64: 1e-9}
RTOL = {torch.float32: 1e-4, torch.float16: 1e-2, torch.bfloat16: 3e-2, torch.float64: 1e-7}

_FLOATS = (torch.float16, torch.bfloat16, torch.float32)


def _validate(q, k, v, attn_mask, causal, scale) -> None:
    for name, t in (("q", q), ("k", k), ("v", v)):
        if not isinstance(t, torch.Tensor):
            raise TypeError(
                f"attention_colsum: {name} must be a torch.Tensor, got {type(t).__name__}"
            )
        if t.ndim != 4:
            raise ValueError(
                f"attention_colsum: {name} must be 4-D (B, heads, L, D), got shape {tuple(t.shape)}"
            )
        if t.dtype not in (*_FLOATS, torch.float64):
            raise TypeError(
                f"attention_colsum: {name} must be float16/bfloat16/float32, got {t.dtype}"
            )
    if not (q.dtype == k.dtype == v.dtype):
        raise TypeError(f"attention_colsum: q, k, v dtypes differ: {q.dtype}, {k.dtype}, {v.dtype}")
    B, H, Lq, D = q.shape
    if k.shape[0] != B or v.shape[0] != B:
        raise ValueError(
            f"attention_colsum: batch sizes differ: q {B}, k {k.shape[0]}, v {v.shape[0]}"
        )
    if k.shape[3] != D:
        raise ValueError(f"attention_colsum: k head dim {k.shape[3]} != q head dim {D}")
    if k.shape[1] != v.shape[1] or k.shape[2] != v.shape[2]:
        raise ValueError(
            f"attention_colsum: k {tuple(k.shape)} and v {tuple(v.shape)} disagree on (heads, length)"
        )
    Hkv = k.shape[1]
    if Hkv == 0 or H % Hkv:
        raise ValueError(
            f"attention_colsum: query heads ({H}) must be a multiple of key/value heads ({Hkv})"
        )
    if min(B, H, D) == 0 or k.shape[2] == 0:
        raise ValueError(f"attention_colsum: empty input (q {tuple(q.shape)}, k {tuple(k.shape)})")
    if not isinstance(causal, bool):
        raise TypeError(f"attention_colsum: causal must be a bool, got {type(causal).__name__}")
    if scale is not None and not (isinstance(scale, (int, float)) and scale > 0):
        raise ValueError(f"attention_colsum: scale must be a positive number, got {scale!r}")
    if attn_mask is not None:
        if not isinstance(attn_mask, torch.Tensor):
            raise TypeError("attention_colsum: attn_mask must be a torch.Tensor or None")
        if attn_mask.ndim != 4:
            raise ValueError(
                f"attention_colsum: attn_mask must be 4-D (B|1, 1|Hkv|H, Lq|1, Lk), got {tuple(attn_mask.shape)}"
            )
        Bm, Hm, Lqm, Lkm = attn_mask.shape
        Lk = k.shape[2]
        if Bm not in (1, B) or Hm not in (1, Hkv, H) or Lqm not in (1, Lq) or Lkm != Lk:
            raise ValueError(
                f"attention_colsum: attn_mask shape {tuple(attn_mask.shape)} does not fit "
                f"(B|1, 1|Hkv|H, Lq|1, Lk) = ({B}|1, 1|{Hkv}|{H}, {Lq}|1, {Lk})"
            )
        if attn_mask.dtype != torch.bool and not attn_mask.is_floating_point():
            raise TypeError(
                f"attention_colsum: attn_mask must be bool or floating point, got {attn_mask.dtype}"
            )
        if attn_mask.device != q.device:
            raise ValueError(
                f"attention_colsum: attn_mask is on {attn_mask.device}, q on {q.device}"
            )
        if attn_mask.is_floating_point() and torch.isnan(attn_mask).any():
            raise ValueError("attention_colsum: attn_mask contains NaN")


def _triton_reasons(q, k, v, *, attn_mask=None, causal=False, scale=None) -> list[str]:
    reasons = triton_device_reasons(q, k, v)
    if q.dtype not in _FLOATS:
        reasons.append(f"dtype {q.dtype} (float16/bfloat16/float32 only)")
    if max(q.shape[3], v.shape[3]) > 256:
        reasons.append(f"head dim {max(q.shape[3], v.shape[3])} > 256")
    if q.requires_grad or k.requires_grad or v.requires_grad:
        reasons.append("no backward pass (inputs require grad)")
    return reasons


def _always(*args, **kwargs) -> list[str]:
    return []


def _triton_fn(*args, **kwargs):
    from ._triton import attention_colsum_triton

    return attention_colsum_triton(*args, **kwargs)


BACKENDS = [
    Backend("triton", _triton_fn, _triton_reasons),
    Backend("torch", attention_colsum_torch, _always),
    Backend("reference", attention_colsum_reference, _always),
]


def attention_colsum(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    *,
    attn_mask: torch.Tensor | None = None,
    causal: bool = False,
    scale: float | None = None,
    backend: str = "auto",
) -> tuple[torch.Tensor, torch.Tensor]:
    """Softmax attention plus the per-key probability mass summed over query rows, per head.

    Args:
        q: (B, H, Lq, D) queries, float16 / bfloat16 / float32.
        k: (B, Hkv, Lk, D) keys; ``H`` must be a multiple of ``Hkv`` (GQA / MQA).
        v: (B, Hkv, Lk, Dv) values.
        attn_mask: optional 4-D mask of shape (B|1, 1|Hkv|H, Lq|1, Lk): boolean (True = may
            attend) or additive float (e.g. 0 / -inf). A mask with Hkv heads applies to every
            query head of the group. Rows with no allowed key give zeros.
        causal: bottom-right aligned causal masking (query row i sees keys j <= Lk - Lq + i, the
            KV-cache convention); combined with ``attn_mask`` when both are given.
        scale: softmax scale, default ``D ** -0.5``.
        backend: "auto" | "triton" | "torch" | "reference".

    Returns:
        ``(out, colsum)``: out (B, H, Lq, Dv) in the input dtype; colsum (B, H, Lk) float32.

    >>> q, k, v = torch.randn(1, 4, 3, 8), torch.randn(1, 2, 5, 8), torch.randn(1, 2, 5, 8)
    >>> out, colsum = attention_colsum(q, k, v, causal=True)
    >>> out.shape, colsum.shape
    (torch.Size([1, 4, 3, 8]), torch.Size([1, 4, 5]))
    >>> torch.allclose(colsum.sum(-1), torch.full((1, 4), 3.0))  # each row's mass is 1
    True
    """
    _validate(q, k, v, attn_mask, causal, scale)
    b = select(
        "attention_colsum",
        BACKENDS,
        backend,
        q,
        k,
        v,
        attn_mask=attn_mask,
        causal=causal,
        scale=scale,
    )
    return b.fn(q, k, v, attn_mask=attn_mask, causal=causal, scale=scale)


def has_triton_backend() -> bool:
    """True when the Triton backend can be imported at all."""
    return has_triton()
