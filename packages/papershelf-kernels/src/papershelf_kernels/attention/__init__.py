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

from typing import NamedTuple

import torch

from .._dispatch import Backend, select, triton_device_reasons
from ._torch import attention_colsum_torch
from .inputs import ColsumInputs
from .reference import _reference, attention_colsum_reference

__all__ = [
    "ATOL",
    "BACKENDS",
    "RTOL",
    "ColsumInputs",
    "ColsumOutput",
    "attention_colsum",
    "attention_colsum_reference",
]

# Tolerances of the Triton / torch paths against the float32 reference, per input dtype
# (outputs; column sums are sums of at most Lq probabilities, compared with the same rtol and
# atol * Lq).
ATOL = {torch.float32: 2e-5, torch.float16: 2e-3, torch.bfloat16: 1.6e-2, torch.float64: 1e-9}
RTOL = {torch.float32: 1e-4, torch.float16: 1e-2, torch.bfloat16: 3e-2, torch.float64: 1e-7}

_FLOATS = (torch.float16, torch.bfloat16, torch.float32)


class ColsumOutput(NamedTuple):
    """What :func:`attention_colsum` returns; unpacks as ``out, colsum = attention_colsum(...)``."""

    out: torch.Tensor
    """(B, H, Lq, Dv) attention output in the input dtype."""
    colsum: torch.Tensor
    """(B, H, Lk) float32: per query head, each key's probability summed over the query rows."""


def _triton_reasons(inp: ColsumInputs) -> list[str]:
    q, k, v = inp.q, inp.k, inp.v
    reasons = triton_device_reasons(q, k, v)
    if q.dtype not in _FLOATS:
        reasons.append(f"dtype {q.dtype} (float16/bfloat16/float32 only)")
    if max(q.shape[3], v.shape[3]) > 256:
        reasons.append(f"head dim {max(q.shape[3], v.shape[3])} > 256")
    if q.requires_grad or k.requires_grad or v.requires_grad:
        reasons.append("no backward pass (inputs require grad)")
    return reasons


def _always(inp: ColsumInputs) -> list[str]:
    return []


def _triton_fn(inp: ColsumInputs) -> ColsumOutput:
    from ._triton import attention_colsum_triton

    return ColsumOutput(*attention_colsum_triton(inp.q, inp.k, inp.v, **inp.kwargs))


def _torch_fn(inp: ColsumInputs) -> ColsumOutput:
    return ColsumOutput(*attention_colsum_torch(inp.q, inp.k, inp.v, **inp.kwargs))


def _reference_fn(inp: ColsumInputs) -> ColsumOutput:
    return ColsumOutput(*_reference(inp))


BACKENDS = [
    Backend("triton", _triton_fn, _triton_reasons),
    Backend("torch", _torch_fn, _always),
    Backend("reference", _reference_fn, _always),
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
) -> ColsumOutput:
    """Softmax attention plus the per-key probability mass summed over query rows, per head.

    Every argument is checked once, by :class:`ColsumInputs`, for every backend: a wrong type
    (a non-tensor, an integer/bool tensor, a non-bool ``causal``) is a ``TypeError`` naming it; a
    wrong shape, an empty tensor, NaN/inf (CPU tensors; CUDA tensors are not scanned) or a
    non-positive ``scale`` is a ``ValueError`` naming it.

    Args:
        q: (B, H, Lq, D) queries, float16 / bfloat16 / float32 (float64: torch/reference).
        k: (B, Hkv, Lk, D) keys; ``H`` must be a multiple of ``Hkv`` (GQA / MQA).
        v: (B, Hkv, Lk, Dv) values.
        attn_mask: optional 4-D mask of shape (B|1, 1|Hkv|H, Lq|1, Lk): boolean (True = may
            attend) or additive float (e.g. 0 / -inf). A mask with Hkv heads applies to every
            query head of the group. Rows with no allowed key give zeros.
        causal: bottom-right aligned causal masking (query row i sees keys j <= Lk - Lq + i, the
            KV-cache convention); combined with ``attn_mask`` when both are given.
        scale: softmax scale (> 0), default ``D ** -0.5``.
        backend: "auto" | "triton" | "torch" | "reference".

    Returns:
        ``ColsumOutput(out, colsum)``: out (B, H, Lq, Dv) in the input dtype; colsum (B, H, Lk)
        float32.

    >>> q, k, v = torch.randn(1, 4, 3, 8), torch.randn(1, 2, 5, 8), torch.randn(1, 2, 5, 8)
    >>> out, colsum = attention_colsum(q, k, v, causal=True)
    >>> out.shape, colsum.shape
    (torch.Size([1, 4, 3, 8]), torch.Size([1, 4, 5]))
    >>> torch.allclose(colsum.sum(-1), torch.full((1, 4), 3.0))  # each row's mass is 1
    True
    """
    inp = ColsumInputs(q, k, v, attn_mask=attn_mask, causal=causal, scale=scale)
    return select("attention_colsum", BACKENDS, backend, inp).fn(inp)
