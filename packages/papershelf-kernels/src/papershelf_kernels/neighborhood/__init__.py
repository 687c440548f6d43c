"""Neighborhood attention (1-D/2-D/3-D): fused Triton kernels, a tiled torch path and a reference.

Faster Neighborhood Attention: Reducing the O(n^2) Cost of Self Attention at the Threadblock Level
(Hassani, Hwu, Shi; NeurIPS 2024) - https://arxiv.org/abs/2403.04690. Implements the fused
neighborhood attention (FNA) forward and backward of Sec. 4, with NATTEN 0.21's semantics
(per-axis kernel size, odd and even, stride, dilation, causal; GQA/MQA).

``na_forward(query, key, value, kernel_size, ...) -> (out, lse)`` in the heads-last layout
``[B, X1..Xn, H, D]``, differentiable for every backend:

* ``"triton"``  fused kernel (CUDA; CPU tensors under ``TRITON_INTERPRET=1``), deterministic backward;
* ``"tiled"``   query tiles against their KV boxes through SDPA (any device; the fast CPU path);
* ``"reference"`` gathers neighbours query chunk by query chunk (the oracle).

``backend="auto"`` picks the first that supports the problem, and says why the others did not.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence
from typing import NamedTuple

import torch

from .._dispatch import Backend, interpreting, select, triton_device_reasons
from .inputs import NAInputs, normalize_args
from .reference import _reference, axis_windows, na_reference, neighbor_indices
from .tiled import _tiled, na_tiled

__all__ = [
    "ATOL",
    "BACKENDS",
    "NAInputs",
    "NAOutput",
    "axis_windows",
    "na_forward",
    "na_reference",
    "na_tiled",
    "neighbor_indices",
    "normalize_args",
]

# Forward tolerances of the fused kernel against the fp32 reference (NATTEN's test tolerances).
ATOL = {torch.float32: 1e-4, torch.float16: 1e-2, torch.bfloat16: 5e-2}


class NAOutput(NamedTuple):
    """What :func:`na_forward` returns; unpacks as ``out, lse = na_forward(...)``."""

    out: torch.Tensor
    """[B, X1..Xn, H, Dv], the input dtype."""
    lse: torch.Tensor | None
    """[B, X1..Xn, H] natural-log logsumexp (fp32; fp64 for fp64 inputs), None unless need_lse."""


def _triton_reasons(inp: NAInputs) -> list[str]:
    q = inp.query
    reasons = triton_device_reasons(inp.query, inp.key, inp.value)
    if q.device.type == "cpu" and interpreting() and importlib.util.find_spec("numpy") is None:
        reasons.append("the Triton interpreter (TRITON_INTERPRET=1) needs numpy: pip install numpy")
    if q.device.type == "cpu" and interpreting() and q.dtype == torch.bfloat16:
        # Triton's interpreter reads bf16 operands of tl.dot as raw integers (checked with
        # triton 3.9: a 16x16 bf16 dot comes back ~1e11): refuse rather than return garbage.
        reasons.append("bfloat16 under the Triton interpreter (its bf16 tl.dot is wrong on CPU)")
    if q.dtype not in (torch.float16, torch.bfloat16, torch.float32):
        reasons.append(f"dtype {q.dtype} (fp16/bf16/fp32 only)")
    if inp.value_dim != inp.head_dim:
        reasons.append(f"value head dim {inp.value_dim} != query head dim {inp.head_dim}")
    if inp.head_dim > 256:
        reasons.append(f"head dim {inp.head_dim} (1..256 supported)")
    return reasons


def _triton_auto_reasons(inp: NAInputs) -> list[str]:
    if inp.device.type == "cpu":
        return ["CPU tensors run the interpreter (slow): request backend='triton' explicitly"]
    return []


def _triton_fn(inp: NAInputs) -> NAOutput:
    from ._triton import na_triton

    out, lse = na_triton(inp)
    return NAOutput(out, lse if inp.need_lse else None)


def _tiled_fn(inp: NAInputs) -> NAOutput:
    return NAOutput(*_tiled(inp))


def _reference_fn(inp: NAInputs) -> NAOutput:
    out, lse = _reference(inp)
    return NAOutput(out, lse if inp.need_lse else None)


def _no_reasons(inp: NAInputs) -> list[str]:
    return []


BACKENDS = (
    Backend("triton", _triton_fn, _triton_reasons, auto_reasons=_triton_auto_reasons),
    Backend("tiled", _tiled_fn, _no_reasons),
    Backend("reference", _reference_fn, _no_reasons),
)


def na_forward(
    query: torch.Tensor,
    key: torch.Tensor,
    value: torch.Tensor,
    kernel_size,
    stride=1,
    dilation=1,
    is_causal=False,
    scale: float | None = None,
    *,
    backend: str | None = "auto",
    q_tile_shape: Sequence[int] | None = None,
    kv_tile_size: int | None = None,
    need_lse: bool = True,
) -> NAOutput:
    """Neighborhood attention forward (differentiable), returning output and logsumexp.

    The per-axis parameters stay positional as in NATTEN's ``na1d/na2d/na3d``. Every argument is
    checked once, by :class:`NAInputs`, for every backend: a non-tensor or an integer/bool/
    complex tensor is a ``TypeError`` naming it; a wrong rank or layout (key/value that do not
    fit the query), an empty tensor, NaN/inf (CPU tensors; CUDA tensors are not scanned) or an
    out-of-range parameter is a ``ValueError`` naming it.

    Args:
        query: [B, X1..Xn, H, D] (n = 1, 2, 3), floating point.
        key: [B, X1..Xn, Hkv, D] with H % Hkv == 0, query's dtype and device.
        value: [B, X1..Xn, Hkv, Dv].
        kernel_size, stride, dilation: int or n-tuple. is_causal: bool or n-tuple.
        scale: score scale (> 0), default D**-0.5.
        backend: "auto" (or None), "triton", "tiled" or "reference".
        q_tile_shape: query tile per axis for the tiled/triton backends.
        kv_tile_size: KV tokens per inner step of the Triton kernel.
        need_lse: return the logsumexp; when False ``lse`` is None for every backend (the tiled
            backend then also skips computing it).

    Returns:
        ``NAOutput(out, lse)``: out [B, X.., H, Dv] and lse [B, X.., H] (fp32; fp64 for fp64
        inputs) or None.

    >>> q = torch.randn(1, 7, 1, 4, dtype=torch.float64)
    >>> out, lse = na_forward(q, q, q, 3, backend="reference")
    >>> out.shape, lse.shape
    (torch.Size([1, 7, 1, 4]), torch.Size([1, 7, 1]))
    """
    inp = NAInputs(
        query, key, value, kernel_size, stride, dilation, is_causal, scale,
        q_tile_shape=q_tile_shape, kv_tile_size=kv_tile_size, need_lse=need_lse,
    )  # fmt: skip
    return select("na_forward", BACKENDS, backend, inp).fn(inp)
