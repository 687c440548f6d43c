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

import torch

from .._dispatch import Backend, interpreting, select, triton_device_reasons
from .reference import axis_windows, na_reference, neighbor_indices
from .tiled import na_tiled

__all__ = [
    "ATOL",
    "BACKENDS",
    "axis_windows",
    "na_forward",
    "na_reference",
    "na_tiled",
    "neighbor_indices",
    "normalize_args",
]

# Forward tolerances of the fused kernel against the fp32 reference (NATTEN's test tolerances).
ATOL = {torch.float32: 1e-4, torch.float16: 1e-2, torch.bfloat16: 5e-2}
# Backward tolerances for (dq, dk, dv).
GRAD_ATOL = {
    torch.float32: (1e-2, 1e-4, 1e-4),
    torch.float16: (1e-2, 1e-2, 1e-2),
    torch.bfloat16: (1e-2, 1e-2, 1e-2),
}


def _per_axis(name: str, value, n: int, kind: type) -> tuple:
    if isinstance(value, kind) and not (kind is int and isinstance(value, bool)):
        return (value,) * n
    if isinstance(value, Sequence) and len(value) == n:
        ok = all(isinstance(v, kind) and not (kind is int and isinstance(v, bool)) for v in value)
        if ok:
            return tuple(value)
    raise ValueError(
        f"`{name}` must be a {kind.__name__} or a tuple of {n} {kind.__name__}s, got {value!r}"
    )


def normalize_args(
    shape: Sequence[int], kernel_size, stride=1, dilation=1, is_causal=False
) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...], tuple[bool, ...]]:
    """Broadcast and check the per-axis parameters against a token layout (NATTEN's rules).

    >>> normalize_args((8, 8), 3, stride=(1, 2))
    ((3, 3), (1, 2), (1, 1), (False, False))
    """
    n = len(shape)
    ks = _per_axis("kernel_size", kernel_size, n, int)
    st = _per_axis("stride", 1 if stride is None else stride, n, int)
    di = _per_axis("dilation", 1 if dilation is None else dilation, n, int)
    ca = _per_axis("is_causal", False if is_causal is None else is_causal, n, bool)
    if any(k < 2 for k in ks):
        raise ValueError(f"`kernel_size` must be >= 2 on every axis, got {ks}")
    if any(s < 1 for s in st):
        raise ValueError(f"`stride` must be >= 1 on every axis, got {st}")
    if any(d < 1 for d in di):
        raise ValueError(f"`dilation` must be >= 1 on every axis, got {di}")
    if any(s > k for s, k in zip(st, ks)):
        raise ValueError(f"`stride` cannot exceed `kernel_size` on any axis, got {st} > {ks}")
    if any(k * d > L for k, d, L in zip(ks, di, shape)):
        raise ValueError(
            f"`kernel_size` * `dilation` cannot exceed the input size on any axis, got "
            f"kernel_size={ks}, dilation={di}, input size={tuple(shape)}"
        )
    return ks, st, di, ca


def _triton_reasons(q, k, v, ks, st, di, ca, scale, tiles, explicit: bool) -> list[str]:
    reasons = triton_device_reasons(q, k, v)
    if q.device.type == "cpu" and not explicit:
        reasons.append(
            "CPU tensors run the interpreter (slow): request backend='triton' explicitly"
        )
    if q.device.type == "cpu" and interpreting() and importlib.util.find_spec("numpy") is None:
        reasons.append("the Triton interpreter (TRITON_INTERPRET=1) needs numpy: pip install numpy")
    if q.device.type == "cpu" and interpreting() and q.dtype == torch.bfloat16:
        # Triton's interpreter reads bf16 operands of tl.dot as raw integers (checked with
        # triton 3.9: a 16x16 bf16 dot comes back ~1e11): refuse rather than return garbage.
        reasons.append("bfloat16 under the Triton interpreter (its bf16 tl.dot is wrong on CPU)")
    if q.dtype not in (torch.float16, torch.bfloat16, torch.float32):
        reasons.append(f"dtype {q.dtype} (fp16/bf16/fp32 only)")
    if not (q.dtype == k.dtype == v.dtype):
        reasons.append("query/key/value dtypes differ")
    D, Dv = q.shape[-1], v.shape[-1]
    if D != Dv:
        reasons.append(f"value head dim {Dv} != query head dim {D}")
    if D > 256 or D < 1:
        reasons.append(f"head dim {D} (1..256 supported)")
    return reasons


def _triton_fn(q, k, v, ks, st, di, ca, scale, tiles, explicit):
    from ._triton import na_triton

    return na_triton(q, k, v, ks, st, di, ca, scale, q_tile_shape=tiles[0], kv_tile_size=tiles[1])


def _tiled_fn(q, k, v, ks, st, di, ca, scale, tiles, explicit, need_lse=True):
    return na_tiled(q, k, v, ks, st, di, ca, scale, q_tile_shape=tiles[2], need_lse=need_lse)


def _reference_fn(q, k, v, ks, st, di, ca, scale, tiles, explicit):
    return na_reference(q, k, v, ks, st, di, ca, scale)


def _no_reasons(*args, **kwargs) -> list[str]:
    return []


BACKENDS = (
    Backend("triton", _triton_fn, _triton_reasons),
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
) -> tuple[torch.Tensor, torch.Tensor | None]:
    """Neighborhood attention forward (differentiable), returning output and logsumexp.

    Args:
        query: [B, X1..Xn, H, D] (n = 1, 2, 3).
        key: [B, X1..Xn, Hkv, D] with H % Hkv == 0.
        value: [B, X1..Xn, Hkv, Dv].
        kernel_size, stride, dilation: int or n-tuple. is_causal: bool or n-tuple.
        scale: score scale, default D**-0.5.
        backend: "auto", "triton", "tiled" or "reference".
        q_tile_shape: query tile per axis for the tiled/triton backends.
        kv_tile_size: KV tokens per inner step of the Triton kernel.
        need_lse: the tiled backend skips the logsumexp when False (lse is then None).

    Returns:
        ``(out, lse)``: out [B, X.., H, Dv] and lse [B, X.., H] (fp32; fp64 for fp64 inputs).

    >>> q = torch.randn(1, 7, 1, 4, dtype=torch.float64)
    >>> out, lse = na_forward(q, q, q, 3, backend="reference")
    >>> out.shape, lse.shape
    (torch.Size([1, 7, 1, 4]), torch.Size([1, 7, 1]))
    """
    n = query.dim() - 3
    if n not in (1, 2, 3):
        raise ValueError(
            f"query must be [B, X1..Xn, H, D] with n in 1..3, got {tuple(query.shape)}"
        )
    shape = tuple(query.shape[1 : 1 + n])
    ks, st, di, ca = normalize_args(shape, kernel_size, stride, dilation, is_causal)
    scale = query.shape[-1] ** -0.5 if scale is None else float(scale)
    tiles = (
        tuple(q_tile_shape) if q_tile_shape is not None else None,
        kv_tile_size,
        tuple(q_tile_shape) if q_tile_shape is not None else None,
    )
    explicit = backend == "triton"
    b = select(
        "na_forward", BACKENDS, backend, query, key, value, ks, st, di, ca, scale, tiles, explicit
    )
    if b.name == "tiled":
        return _tiled_fn(
            query, key, value, ks, st, di, ca, scale, tiles, explicit, need_lse=need_lse
        )
    return b.fn(query, key, value, ks, st, di, ca, scale, tiles, explicit)
