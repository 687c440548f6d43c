"""natten_lite.functional: NATTEN 0.21's functional API (na1d/na2d/na3d, attention, merge).

Faster Neighborhood Attention: Reducing the O(n^2) Cost of Self Attention at the Threadblock Level
(Hassani, Hwu, Shi; NeurIPS 2024) - https://arxiv.org/abs/2403.04690. Neighborhood attention of
Sec. 3 with NATTEN's stride/dilation/causal semantics; the fused (FNA, Sec. 4) kernels and the
tiled CPU path live in ``papershelf_kernels.neighborhood``.

Layout is heads-last: ``[B, X1..Xn, H, D]``. Backends (``backend=``):

=============  ================================================================================
``"triton"``   fused Triton forward+backward (CUDA; CPU tensors under ``TRITON_INTERPRET=1``)
``"tiled"``    query tiles against their KV boxes through SDPA (any device; the fast CPU path)
``"reference"`` gathered neighbours, query-chunked (any device; the oracle)
``"dense"``    SDPA with a dense N x N mask (small N only)
``"flex"``     FlexAttention with a neighborhood block mask (compiled on CUDA)
=============  ================================================================================

``backend=None`` picks triton for CUDA tensors when it can run the problem, otherwise tiled; it
never picks dense or flex, and an explicit request that cannot run raises with the reason.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import torch
import torch.nn.functional as F

from papershelf_kernels.neighborhood import na_forward, normalize_args

from . import masks

__all__ = ["attention", "merge_attentions", "na1d", "na2d", "na3d"]

BACKENDS = ("triton", "tiled", "reference", "dense", "flex")
_DTYPES = (torch.float16, torch.bfloat16, torch.float32, torch.float64)
_DENSE_MAX_TOKENS = 16384  # dense backend: the N x N mask is N^2 bytes (256 MiB at this size)


# ---------------------------------------------------------------- validation


def _check_tensor(name: str, x, rank: int | None = None) -> None:
    if not isinstance(x, torch.Tensor):
        raise TypeError(f"`{name}` must be a torch.Tensor, got {type(x).__name__}")
    if rank is not None and x.dim() != rank:
        raise ValueError(f"`{name}` must have rank {rank}, got shape {tuple(x.shape)}")
    if x.dtype not in _DTYPES:
        raise TypeError(f"`{name}` must be float16/bfloat16/float32/float64, got {x.dtype}")
    if x.numel() == 0:
        raise ValueError(f"`{name}` is empty: shape {tuple(x.shape)}")


def _raise_on_nan(out: torch.Tensor, **inputs) -> None:
    """NaN in an input -> ValueError naming it.

    Checked through the output (one reduction instead of one per input: a NaN query or attended
    key/value always reaches it), and only where that is free of device syncs (CPU) and never
    while compiling. A NaN input no query attends leaves the output finite and is not an error.
    """
    if out.device.type != "cpu" or torch.compiler.is_compiling():
        return
    if not torch.isnan(out.detach().sum()):
        return
    for name, x in inputs.items():
        if x is not None and torch.isnan(x).any():
            raise ValueError(f"`{name}` contains NaN")


def _check_qkv(query, key, value, n: int) -> None:
    for name, t in (("query", query), ("key", key), ("value", value)):
        _check_tensor(name, t, n + 3)
    if not (query.dtype == key.dtype == value.dtype):
        raise TypeError(f"query/key/value dtypes differ: {query.dtype}, {key.dtype}, {value.dtype}")
    if not (query.device == key.device == value.device):
        raise ValueError(
            f"query/key/value devices differ: {query.device}, {key.device}, {value.device}"
        )
    if key.shape[:-2] != query.shape[:-2] or value.shape[:-2] != query.shape[:-2]:
        raise ValueError(
            "query, key and value must match in batch and token layout [B, X..], got "
            f"query {tuple(query.shape)}, key {tuple(key.shape)}, value {tuple(value.shape)}"
        )
    if key.shape[-1] != query.shape[-1]:
        raise ValueError(
            f"query and key head dims must match, got {query.shape[-1]} and {key.shape[-1]}"
        )
    if key.shape[-2] != value.shape[-2]:
        raise ValueError(
            f"key and value must have the same heads, got {key.shape[-2]} and {value.shape[-2]}"
        )
    if query.shape[-2] % key.shape[-2]:
        raise ValueError(
            f"key/value heads must divide query heads (GQA/MQA), got H={query.shape[-2]}, "
            f"Hkv={key.shape[-2]}"
        )


def _check_additional(query, additional_keys, additional_values, value) -> bool:
    if additional_keys is None and additional_values is None:
        return False
    if additional_keys is None or additional_values is None:
        raise ValueError("`additional_keys` and `additional_values` must be given together")
    _check_tensor("additional_keys", additional_keys, 4)
    _check_tensor("additional_values", additional_values, 4)
    B, H, D = query.shape[0], query.shape[-2], query.shape[-1]
    ak, av = additional_keys, additional_values
    if (
        ak.dtype != query.dtype
        or av.dtype != query.dtype
        or ak.device != query.device
        or av.device != query.device
    ):
        raise ValueError(
            "`additional_keys`/`additional_values` must match query's dtype and device"
        )
    if ak.shape[0] != B or av.shape[0] != B or ak.shape[1] != av.shape[1]:
        raise ValueError(
            f"`additional_keys`/`additional_values` must be [B, M, Hkv, D] with B={B} and equal M, "
            f"got {tuple(ak.shape)} and {tuple(av.shape)}"
        )
    if (
        ak.shape[2] != av.shape[2]
        or H % ak.shape[2]
        or ak.shape[-1] != D
        or av.shape[-1] != value.shape[-1]
    ):
        raise ValueError(
            "`additional_keys`/`additional_values` heads must be equal and divide query heads, and "
            f"head dims must match query/value: got {tuple(ak.shape)} and {tuple(av.shape)}"
        )
    return True


# ---------------------------------------------------------------- dense & flex backends


def _masked_attention(q, k, v, mask, scale, need_lse):
    """q [B, H, N, D], k/v [B, Hkv, M, D|Dv], bool mask [N, M] or None -> (o, lse | None)."""
    H, Hkv = q.shape[1], k.shape[1]
    if not need_lse:
        if Hkv != H:
            k = k.repeat_interleave(H // Hkv, dim=1)
            v = v.repeat_interleave(H // Hkv, dim=1)
        return F.scaled_dot_product_attention(q, k, v, attn_mask=mask, scale=scale), None
    cdt = torch.float64 if q.dtype == torch.float64 else torch.float32
    B, _, N, D = q.shape
    G = H // Hkv
    qg = q.to(cdt).reshape(B, Hkv, G * N, D)
    kc, vc = k.to(cdt), v.to(cdt)
    outs, lses = [], []
    chunk = max(1, (1 << 24) // max(1, B * Hkv * k.shape[2]))
    qg = qg.view(B, Hkv, G, N, D)
    for c0 in range(0, N, chunk):
        s = torch.matmul(qg[:, :, :, c0 : c0 + chunk], kc.unsqueeze(2).transpose(-1, -2)) * scale
        if mask is not None:
            s = s.masked_fill(~mask[c0 : c0 + chunk], float("-inf"))
        lse = torch.logsumexp(s, dim=-1)
        outs.append(torch.matmul(torch.exp(s - lse[..., None]), vc.unsqueeze(2)))
        lses.append(lse)
    o = torch.cat(outs, dim=3).reshape(B, H, N, -1).to(q.dtype)
    return o, torch.cat(lses, dim=3).reshape(B, H, N)


def _heads_first(x: torch.Tensor) -> torch.Tensor:
    """[B, X.., H, D] -> [B, H, N, D]."""
    return x.reshape(x.shape[0], -1, x.shape[-2], x.shape[-1]).transpose(1, 2)


def _dense(query, key, value, ks, st, di, ca, scale, need_lse):
    B, *shape, H, D = query.shape
    N = math.prod(shape)
    if N > _DENSE_MAX_TOKENS:
        raise NotImplementedError(
            f"backend 'dense' builds an N x N mask; N={N} > {_DENSE_MAX_TOKENS} would need "
            f"{N * N / 2**30:.1f} GiB: use 'tiled', 'triton' or 'reference'"
        )
    mask = masks.dense_mask(shape, ks, st, di, ca, device=query.device)
    o, lse = _masked_attention(
        _heads_first(query), _heads_first(key), _heads_first(value), mask, scale, need_lse
    )
    o = o.transpose(1, 2).reshape(B, *shape, H, value.shape[-1])
    if lse is not None:
        lse = lse.transpose(1, 2).reshape(B, *shape, H)
    return o, lse


def _flex(query, key, value, ks, st, di, ca, scale, need_lse, q_tile_shape, kv_tile_shape):
    try:
        from torch.nn.attention.flex_attention import flex_attention
    except ImportError as e:  # pragma: no cover - torch < 2.5
        raise NotImplementedError(
            f"backend 'flex' needs torch.nn.attention.flex_attention: {e}"
        ) from e
    B, *shape, H, D = query.shape
    block_mask = masks.flex_block_mask(
        shape,
        ks,
        st,
        di,
        ca,
        q_tile_shape=q_tile_shape,
        kv_tile_shape=kv_tile_shape,
        device=query.device,
    )
    fn = flex_attention
    if query.device.type == "cuda":
        fn = _compiled_flex()
    q, k, v = _heads_first(query), _heads_first(key), _heads_first(value)
    gqa = k.shape[1] != q.shape[1]
    try:  # torch >= 2.9 spells it return_aux
        from torch.nn.attention.flex_attention import AuxRequest

        o, aux = fn(
            q,
            k,
            v,
            block_mask=block_mask,
            scale=scale,
            enable_gqa=gqa,
            return_aux=AuxRequest(lse=True),
        )
        lse = aux.lse
    except ImportError:  # pragma: no cover - older torch
        o, lse = fn(q, k, v, block_mask=block_mask, scale=scale, enable_gqa=gqa, return_lse=True)
    o = o.transpose(1, 2).reshape(B, *shape, H, value.shape[-1])
    return o, lse.transpose(1, 2).reshape(B, *shape, H)


_COMPILED = {}


def _compiled_flex():
    if "flex" not in _COMPILED:
        from torch.nn.attention.flex_attention import flex_attention

        _COMPILED["flex"] = torch.compile(flex_attention, dynamic=False)
    return _COMPILED["flex"]


# ---------------------------------------------------------------- public API


def _is_self_attention(shape, ks, ca, has_additional: bool) -> bool:
    if len(shape) == 1 and not has_additional:
        return ks[0] == shape[0]  # 1-D: k = L is full (or causal) attention
    return all(k == L and not c for k, L, c in zip(ks, shape, ca))


def _na(
    n, query, key, value, kernel_size, stride, dilation, is_causal, scale,
    additional_keys, additional_values, backend, return_lse, q_tile_shape, kv_tile_shape,
):  # fmt: skip
    _check_qkv(query, key, value, n)
    has_add = _check_additional(query, additional_keys, additional_values, value)
    shape = tuple(query.shape[1 : 1 + n])
    ks, st, di, ca = normalize_args(shape, kernel_size, stride, dilation, is_causal)
    if backend is not None and backend not in (*BACKENDS, "auto"):
        raise ValueError(f"`backend` must be one of {BACKENDS} or None, got {backend!r}")
    if q_tile_shape is not None:
        q_tile_shape = tuple(q_tile_shape)
        if len(q_tile_shape) != n or any(not isinstance(t, int) or t < 1 for t in q_tile_shape):
            raise ValueError(f"`q_tile_shape` must be {n} positive ints, got {q_tile_shape!r}")
    if kv_tile_shape is not None:
        kv_tile_shape = tuple(kv_tile_shape)
        if len(kv_tile_shape) != n or any(not isinstance(t, int) or t < 1 for t in kv_tile_shape):
            raise ValueError(f"`kv_tile_shape` must be {n} positive ints, got {kv_tile_shape!r}")
    D = query.shape[-1]
    scale = D**-0.5 if scale is None else float(scale)
    need_lse = return_lse or has_add
    B, H, Dv = query.shape[0], query.shape[-2], value.shape[-1]

    if backend in (None, "auto") and _is_self_attention(shape, ks, ca, has_add):
        causal = len(shape) == 1 and ca[0]
        flat = [t.reshape(B, -1, t.shape[-2], t.shape[-1]) for t in (query, key, value)]
        res = attention(*flat, is_causal=causal, scale=scale, return_lse=need_lse)
        out, lse = res if need_lse else (res, None)
        out = out.reshape(B, *shape, H, Dv)
        lse = lse.reshape(B, *shape, H) if lse is not None else None
    elif backend == "dense":
        out, lse = _dense(query, key, value, ks, st, di, ca, scale, need_lse)
    elif backend == "flex":
        out, lse = _flex(
            query, key, value, ks, st, di, ca, scale, need_lse, q_tile_shape, kv_tile_shape
        )
    else:
        kv_tile = math.prod(kv_tile_shape) if kv_tile_shape is not None else None
        out, lse = na_forward(
            query, key, value, ks, st, di, ca, scale,
            backend=backend or "auto", q_tile_shape=q_tile_shape, kv_tile_size=kv_tile, need_lse=need_lse,
        )  # fmt: skip

    if has_add:
        qf = query.reshape(B, -1, H, D)
        o2, l2 = attention(qf, additional_keys, additional_values, scale=scale, return_lse=True)
        out, lse = merge_attentions(
            [out.reshape(B, -1, H, Dv), o2], [lse.reshape(B, -1, H).to(l2.dtype), l2]
        )
        out = out.reshape(B, *shape, H, Dv)
        lse = lse.reshape(B, *shape, H)
    _raise_on_nan(
        out, query=query, key=key, value=value,
        additional_keys=additional_keys, additional_values=additional_values,
    )  # fmt: skip
    if return_lse:
        return out, lse
    return out


def na1d(
    query: torch.Tensor,
    key: torch.Tensor,
    value: torch.Tensor,
    kernel_size,
    stride=1,
    dilation=1,
    is_causal=False,
    scale: float | None = None,
    additional_keys: torch.Tensor | None = None,
    additional_values: torch.Tensor | None = None,
    backend: str | None = None,
    return_lse: bool = False,
    *,
    q_tile_shape: Sequence[int] | None = None,
    kv_tile_shape: Sequence[int] | None = None,
):
    """1-D neighborhood attention (NATTEN's ``na1d``).

    Args:
        query: [B, L, H, D]. key: [B, L, Hkv, D]. value: [B, L, Hkv, Dv]; H % Hkv == 0.
        kernel_size: window size k >= 2 (int or 1-tuple); even sizes take one more key on the left.
        stride: 1 <= s <= k; queries in a stride group share their leader's window.
        dilation: d >= 1 with k * d <= L.
        is_causal: bool or 1-tuple.
        scale: score scale, default D**-0.5.
        additional_keys/additional_values: [B, M, Hkv, D|Dv] that every query also attends
            (merged by logsumexp).
        backend: None (auto), "triton", "tiled", "reference", "dense" or "flex".
        return_lse: also return the natural-log logsumexp [B, L, H] (fp32; fp64 for fp64 inputs).
        q_tile_shape, kv_tile_shape: tile shapes for the tiled/triton/flex backends.

    Returns:
        out [B, L, H, Dv], or ``(out, lse)`` when ``return_lse``.

    >>> q = torch.randn(1, 7, 1, 4)
    >>> na1d(q, q, q, kernel_size=3).shape
    torch.Size([1, 7, 1, 4])
    """
    return _na(
        1, query, key, value, kernel_size, stride, dilation, is_causal, scale,
        additional_keys, additional_values, backend, return_lse, q_tile_shape, kv_tile_shape,
    )  # fmt: skip


def na2d(
    query: torch.Tensor,
    key: torch.Tensor,
    value: torch.Tensor,
    kernel_size,
    stride=1,
    dilation=1,
    is_causal=False,
    scale: float | None = None,
    additional_keys: torch.Tensor | None = None,
    additional_values: torch.Tensor | None = None,
    backend: str | None = None,
    return_lse: bool = False,
    *,
    q_tile_shape: Sequence[int] | None = None,
    kv_tile_shape: Sequence[int] | None = None,
):
    """2-D neighborhood attention (NATTEN's ``na2d``); query [B, X, Y, H, D], see ``na1d``.

    >>> q = torch.randn(1, 6, 6, 2, 8)
    >>> out, lse = na2d(q, q, q, kernel_size=(3, 4), dilation=(2, 1), return_lse=True)
    >>> out.shape, lse.shape
    (torch.Size([1, 6, 6, 2, 8]), torch.Size([1, 6, 6, 2]))
    """
    return _na(
        2, query, key, value, kernel_size, stride, dilation, is_causal, scale,
        additional_keys, additional_values, backend, return_lse, q_tile_shape, kv_tile_shape,
    )  # fmt: skip


def na3d(
    query: torch.Tensor,
    key: torch.Tensor,
    value: torch.Tensor,
    kernel_size,
    stride=1,
    dilation=1,
    is_causal=False,
    scale: float | None = None,
    additional_keys: torch.Tensor | None = None,
    additional_values: torch.Tensor | None = None,
    backend: str | None = None,
    return_lse: bool = False,
    *,
    q_tile_shape: Sequence[int] | None = None,
    kv_tile_shape: Sequence[int] | None = None,
):
    """3-D neighborhood attention (NATTEN's ``na3d``); query [B, X, Y, Z, H, D], see ``na1d``.

    >>> q = torch.randn(1, 4, 4, 4, 1, 8)
    >>> na3d(q, q, q, kernel_size=2, is_causal=(True, False, False)).shape
    torch.Size([1, 4, 4, 4, 1, 8])
    """
    return _na(
        3, query, key, value, kernel_size, stride, dilation, is_causal, scale,
        additional_keys, additional_values, backend, return_lse, q_tile_shape, kv_tile_shape,
    )  # fmt: skip


def attention(
    query: torch.Tensor,
    key: torch.Tensor,
    value: torch.Tensor,
    is_causal: bool = False,
    scale: float | None = None,
    backend: str | None = None,
    return_lse: bool = False,
):
    """Plain (self or cross) attention in the heads-last layout, optionally with logsumexp.

    Args:
        query: [B, S, H, D]. key: [B, S_kv, Hkv, D]. value: [B, S_kv, Hkv, Dv]; H % Hkv == 0.
        is_causal: causal mask aligned to the top-left (query i sees keys 0..i).
        scale: default D**-0.5.
        backend: None/"auto" or "sdpa" (torch SDPA; the query-chunked path when an LSE is needed).
        return_lse: also return the logsumexp [B, S, H] (fp32; fp64 for fp64 inputs).

    Returns:
        out [B, S, H, Dv], or ``(out, lse)``.

    >>> q = torch.randn(2, 5, 2, 4)
    >>> attention(q, q, q).shape
    torch.Size([2, 5, 2, 4])
    """
    for name, t in (("query", query), ("key", key), ("value", value)):
        _check_tensor(name, t, 4)
    if backend not in (None, "auto", "sdpa"):
        raise ValueError(f"`backend` must be None, 'auto' or 'sdpa', got {backend!r}")
    if (
        key.shape[0] != query.shape[0]
        or value.shape[0] != query.shape[0]
        or key.shape[1] != value.shape[1]
    ):
        raise ValueError(
            f"batch sizes / key-value lengths differ: {tuple(query.shape)}, {tuple(key.shape)}, {tuple(value.shape)}"
        )
    if (
        key.shape[-1] != query.shape[-1]
        or key.shape[2] != value.shape[2]
        or query.shape[2] % key.shape[2]
    ):
        raise ValueError(
            f"heads/head dims incompatible: {tuple(query.shape)}, {tuple(key.shape)}, {tuple(value.shape)}"
        )
    scale = query.shape[-1] ** -0.5 if scale is None else float(scale)
    q, k, v = (t.transpose(1, 2) for t in (query, key, value))
    mask = None
    if is_causal:
        mask = torch.ones(q.shape[2], k.shape[2], dtype=torch.bool, device=q.device).tril()
    o, lse = _masked_attention(q, k, v, mask, scale, return_lse)
    o = o.transpose(1, 2)
    _raise_on_nan(o, query=query, key=key, value=value)
    return (o, lse.transpose(1, 2)) if return_lse else o


def merge_attentions(
    outputs: Sequence[torch.Tensor], lse_tensors: Sequence[torch.Tensor]
) -> tuple[torch.Tensor, torch.Tensor]:
    """Merge attentions of the same queries over disjoint key sets by their logsumexps.

    ``lse = log sum_t exp(lse_t)`` and ``out = sum_t exp(lse_t - lse) * out_t``: the result of
    attending the concatenation of the key sets. Differentiable in outputs and LSEs.

    Args:
        outputs: >= 2 tensors [B, X.., H, Dv] of equal shape.
        lse_tensors: matching [B, X.., H] logsumexps.

    Returns:
        ``(out, lse)``: out in the dtype of ``outputs[0]``, lse fp32 (fp64 if any input is fp64).

    >>> o1, o2 = torch.zeros(1, 2, 1, 1), torch.ones(1, 2, 1, 1)
    >>> l = torch.zeros(1, 2, 1)
    >>> merge_attentions([o1, o2], [l, l])[0].flatten().tolist()
    [0.5, 0.5]
    """
    outputs, lse_tensors = list(outputs), list(lse_tensors)
    if len(outputs) < 2:
        raise ValueError(
            f"`outputs`: merge_attentions needs at least two tensors, got {len(outputs)}"
        )
    if len(lse_tensors) != len(outputs):
        raise ValueError(f"`lse_tensors`: expected {len(outputs)} tensors, got {len(lse_tensors)}")
    shape = outputs[0].shape
    for i, (o, l) in enumerate(zip(outputs, lse_tensors)):
        if not isinstance(o, torch.Tensor) or not isinstance(l, torch.Tensor):
            raise TypeError(f"outputs[{i}] and lse_tensors[{i}] must be tensors")
        if o.shape != shape or o.dim() < 3:
            raise ValueError(
                f"`outputs[{i}]` has shape {tuple(o.shape)}, expected {tuple(shape)} (rank >= 3)"
            )
        if l.shape != shape[:-1]:
            raise ValueError(
                f"`lse_tensors[{i}]` has shape {tuple(l.shape)}, expected {tuple(shape[:-1])}"
            )
    acc = (
        torch.float64
        if any(t.dtype == torch.float64 for t in (*outputs, *lse_tensors))
        else torch.float32
    )
    lses = torch.stack([l.to(acc) for l in lse_tensors])  # [T, B, X.., H]
    lse = torch.logsumexp(lses, dim=0)
    w = torch.exp(lses - lse)  # [T, B, X.., H]
    out = sum(w[t][..., None] * outputs[t].to(acc) for t in range(len(outputs)))
    return out.to(outputs[0].dtype), lse
