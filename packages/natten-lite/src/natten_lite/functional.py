"""natten_lite.functional: NATTEN 0.21's functional API (na1d/na2d/na3d, attention, merge).

Faster Neighborhood Attention: Reducing the O(n^2) Cost of Self Attention at the Threadblock Level
(Hassani, Hwu, Shi; NeurIPS 2024) - https://arxiv.org/abs/2403.04690. Neighborhood attention of
Sec. 3 with NATTEN's stride/dilation/causal semantics; the fused (FNA, Sec. 4) kernels and the
tiled CPU path live in ``papershelf_kernels.neighborhood``.

Every function takes NATTEN 0.21's arguments, in NATTEN's positions and with its defaults, so a
NATTEN call runs unchanged. Layout is heads-last: ``[B, X1..Xn, H, D]``. Backends (``backend=``):

=================  ============================================================================
``"triton"``       fused Triton forward+backward (CUDA; CPU tensors under ``TRITON_INTERPRET=1``)
``"tiled"``        query tiles against their KV boxes through SDPA (any device; the fast CPU path)
``"reference"``    gathered neighbours, query-chunked (any device; the oracle)
``"dense"``        SDPA with a dense N x N mask (small N only)
``"flex"``         FlexAttention with a neighborhood block mask (compiled on CUDA, eager on CPU;
                   no training on CPU: torch has no FlexAttention backward there)
=================  ============================================================================

NATTEN's names are accepted: ``"cutlass-fna"``, ``"hopper-fna"`` and ``"blackwell-fna"`` (its
fused kernels) run natten-lite's fused kernel, ``"triton"``, on CUDA and the same algorithm in
torch ops, ``"tiled"``, elsewhere; ``"flex-fna"`` is ``"flex"``. ``backend=None`` picks triton for
CUDA tensors when it can run the problem, otherwise tiled; it never picks dense or flex, and an
explicit request that cannot run raises with the reason. With ``None`` or a NATTEN name, a problem
that is plain self attention (kernel = input on every axis, non-causal; or 1-D k = L) goes to
``attention`` as in NATTEN.

NATTEN's performance arguments that natten-lite has no counterpart for are validated and then
ignored, each for the reason in ``na1d``'s docstring.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import torch
import torch.nn.functional as F

from papershelf_kernels.neighborhood import na_forward

from . import masks
from ._checks import check_bool, check_float, check_int, check_option, check_tensor, describe
from ._validation import (
    check_kernel_schedule,
    check_na_args,
    check_tile_shape,
    check_token_tensor,
    raise_on_non_finite,
)

__all__ = ["attention", "merge_attentions", "na1d", "na2d", "na3d"]

BACKENDS = ("triton", "tiled", "reference", "dense", "flex")
#: NATTEN's neighborhood-attention backends -> ours ("fused": triton on CUDA, tiled elsewhere)
NATTEN_BACKENDS = {
    "cutlass-fna": "fused",
    "hopper-fna": "fused",
    "blackwell-fna": "fused",
    "flex-fna": "flex",
}
#: attention(): "sdpa" and NATTEN's FMHA names all run the one SDPA/chunked path
FMHA_BACKENDS = ("sdpa", "cutlass-fmha", "hopper-fmha", "blackwell-fmha", "flex-fmha")
#: what attention_kwargs may hold: attention()'s options (query/key/value/is_causal/scale/
#: return_lse are set by na*d itself, as in NATTEN, and varlen makes no sense there)
ATTENTION_KWARGS = (
    "backend",
    "q_tile_size",
    "kv_tile_size",
    "backward_q_tile_size",
    "backward_kv_tile_size",
    "backward_kv_splits",
    "backward_use_pt_reduction",
    "run_persistent_kernel",
    "kernel_schedule",
    "torch_compile",
)
_DENSE_MAX_TOKENS = 16384  # dense backend: the N x N mask is N^2 bytes (256 MiB at this size)


def resolve_backend(backend: str | None, device: torch.device) -> str | None:
    """Our backend for a ``backend=`` value (``None`` = automatic dispatch).

    >>> resolve_backend("hopper-fna", torch.device("cpu")), resolve_backend("flex-fna", "cpu")
    ('tiled', 'flex')
    """
    if backend in (None, "auto"):
        return None
    mapped = NATTEN_BACKENDS.get(backend, backend)
    if mapped == "fused":
        return "triton" if torch.device(device).type == "cuda" else "tiled"
    return mapped


# ---------------------------------------------------------------- validation


def _check_qkv(query, key, value, n: int | None) -> None:
    """Types, ranks and layouts of query/key/value (``n`` axes; ``None``: attention's [B, S, H, D])."""
    rank = 4 if n is None else n + 3
    for name, t in (("query", query), ("key", key), ("value", value)):
        check_token_tensor(t, name, rank)
    if not (query.dtype == key.dtype == value.dtype):
        raise TypeError(
            f"key and value must have query's dtype, got query {query.dtype}, key {key.dtype}, "
            f"value {value.dtype}"
        )
    if not (query.device == key.device == value.device):
        raise ValueError(
            f"key and value must be on query's device, got query {query.device}, key "
            f"{key.device}, value {value.device}"
        )
    shapes = f"query {tuple(query.shape)}, key {tuple(key.shape)}, value {tuple(value.shape)}"
    if n is not None and (
        key.shape[:-2] != query.shape[:-2] or value.shape[:-2] != query.shape[:-2]
    ):
        raise ValueError(f"key and value must match query in batch and token layout, got {shapes}")
    if n is None and (key.shape[0] != query.shape[0] or value.shape[:2] != key.shape[:2]):
        raise ValueError(
            f"key and value must match query's batch and each other's length, got {shapes}"
        )
    if key.shape[-1] != query.shape[-1]:
        raise ValueError(f"key must have query's head dim, got {shapes}")
    if key.shape[-2] != value.shape[-2]:
        raise ValueError(f"value must have key's number of heads, got {shapes}")
    if query.shape[-2] % key.shape[-2]:
        raise ValueError(f"key heads must divide query heads (GQA/MQA), got {shapes}")


def _check_additional(query, key, value, additional_keys, additional_values) -> bool:
    if additional_keys is None and additional_values is None:
        return False
    if additional_keys is None or additional_values is None:
        missing = "additional_keys" if additional_keys is None else "additional_values"
        raise ValueError(f"{missing} is None: additional_keys and additional_values go together")
    ak, av = additional_keys, additional_values
    check_token_tensor(ak, "additional_keys", 4)
    check_token_tensor(av, "additional_values", 4)
    for name, t in (("additional_keys", ak), ("additional_values", av)):
        if t.dtype != query.dtype:
            raise TypeError(f"{name} must have query's dtype {query.dtype}, got {t.dtype}")
        if t.device != query.device:
            raise ValueError(f"{name} must be on query's device {query.device}, got {t.device}")
    want_k = (query.shape[0], ak.shape[1], key.shape[-2], key.shape[-1])
    want_v = (query.shape[0], ak.shape[1], value.shape[-2], value.shape[-1])
    if tuple(ak.shape) != want_k:
        raise ValueError(
            f"additional_keys must be [B, M, Hkv, D] = [{want_k[0]}, M, {want_k[2]}, {want_k[3]}] "
            f"(key's heads and head dim), got {tuple(ak.shape)}"
        )
    if tuple(av.shape) != want_v:
        raise ValueError(
            f"additional_values must be [B, M, Hkv, Dv] = {want_v} (additional_keys' M, value's "
            f"heads and head dim), got {tuple(av.shape)}"
        )
    return True


def _check_scale(scale, head_dim: int) -> float:
    """NATTEN's ``scale or head_dim ** -0.5``: None and 0.0 both mean the default."""
    if scale is None:
        return head_dim**-0.5
    return check_float(scale, "scale") or head_dim**-0.5


def _check_fmha_options(
    *, backend, q_tile_size, kv_tile_size, backward_q_tile_size, backward_kv_tile_size,
    backward_kv_splits, backward_use_pt_reduction, run_persistent_kernel, kernel_schedule,
    torch_compile, prefix: str = "",
) -> None:  # fmt: skip
    """attention()'s NATTEN performance options: checked, then ignored (see ``attention``)."""
    if backend is not None:
        check_option(backend, f"{prefix}backend", (*FMHA_BACKENDS, "auto"))
    for name, val in (
        ("q_tile_size", q_tile_size),
        ("kv_tile_size", kv_tile_size),
        ("backward_q_tile_size", backward_q_tile_size),
        ("backward_kv_tile_size", backward_kv_tile_size),
        ("backward_kv_splits", backward_kv_splits),
    ):
        if val is not None:
            check_int(val, f"{prefix}{name}", minimum=1)
    check_bool(backward_use_pt_reduction, f"{prefix}backward_use_pt_reduction")
    check_bool(run_persistent_kernel, f"{prefix}run_persistent_kernel")
    check_bool(torch_compile, f"{prefix}torch_compile")
    try:
        check_kernel_schedule(kernel_schedule)
    except (TypeError, ValueError) as e:
        raise type(e)(f"{prefix}{e}") from None


def _check_attention_kwargs(attention_kwargs) -> dict:
    if attention_kwargs is None:
        return {}
    if not isinstance(attention_kwargs, dict):
        raise TypeError(
            f"attention_kwargs must be None or a dict, got {describe(attention_kwargs)}"
        )
    unknown = sorted(set(attention_kwargs) - set(ATTENTION_KWARGS), key=str)
    if unknown:
        raise ValueError(
            f"attention_kwargs has keys attention() does not take here: {unknown}; allowed: "
            f"{list(ATTENTION_KWARGS)} (na*d sets query/key/value/is_causal/scale/return_lse)"
        )
    opts = {name: None for name in ATTENTION_KWARGS}
    opts.update(backward_use_pt_reduction=False, run_persistent_kernel=True, torch_compile=False)
    opts.update(attention_kwargs)
    _check_fmha_options(**opts, prefix="attention_kwargs: ")
    return dict(attention_kwargs)


def _needs_grad(*tensors) -> bool:
    return torch.is_grad_enabled() and any(t is not None and t.requires_grad for t in tensors)


# ---------------------------------------------------------------- dense, flex & attention paths


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


def _attention(query, key, value, is_causal: bool, scale: float, need_lse: bool):
    """[B, S, H, D] x [B, S_kv, Hkv, D|Dv] -> (out [B, S, H, Dv], lse [B, S, H] | None); unchecked."""
    q, k, v = (t.transpose(1, 2) for t in (query, key, value))
    mask = None
    if is_causal:
        mask = torch.ones(q.shape[2], k.shape[2], dtype=torch.bool, device=q.device).tril()
    o, lse = _masked_attention(q, k, v, mask, scale, need_lse)
    return o.transpose(1, 2), (lse.transpose(1, 2) if lse is not None else None)


def _dense(query, key, value, ks, st, di, ca, scale, need_lse):
    B, *shape, H, D = query.shape
    N = math.prod(shape)
    if N > _DENSE_MAX_TOKENS:
        raise NotImplementedError(
            f"backend 'dense' builds an N x N mask; N={N} > {_DENSE_MAX_TOKENS} would need "
            f"{N * N / 2**30:.1f} GiB: use 'tiled', 'triton' or 'reference'"
        )
    mask = masks.dense_mask(shape, ks, stride=st, dilation=di, is_causal=ca, device=query.device)
    o, lse = _masked_attention(
        _heads_first(query), _heads_first(key), _heads_first(value), mask, scale, need_lse
    )
    o = o.transpose(1, 2).reshape(B, *shape, H, value.shape[-1])
    if lse is not None:
        lse = lse.transpose(1, 2).reshape(B, *shape, H)
    return o, lse


def _flex(query, key, value, ks, st, di, ca, scale, q_tile_shape, kv_tile_shape):
    try:
        from torch.nn.attention.flex_attention import flex_attention
    except ImportError as e:  # pragma: no cover - torch < 2.5
        raise NotImplementedError(
            f"backend 'flex' needs torch.nn.attention.flex_attention: {e}"
        ) from e
    B, *shape, H, D = query.shape
    block_mask = masks.flex_block_mask(
        shape, ks, stride=st, dilation=di, is_causal=ca,
        q_tile_shape=q_tile_shape, kv_tile_shape=kv_tile_shape, device=query.device,
    )  # fmt: skip
    fn = _compiled_flex() if query.device.type == "cuda" else flex_attention
    q, k, v = _heads_first(query), _heads_first(key), _heads_first(value)
    if not torch.is_grad_enabled():  # torch's CPU Flex refuses requires_grad even in no_grad
        q, k, v = q.detach(), k.detach(), v.detach()
    gqa = k.shape[1] != q.shape[1]
    try:  # torch >= 2.9 spells it return_aux
        from torch.nn.attention.flex_attention import AuxRequest

        o, aux = fn(
            q, k, v, block_mask=block_mask, scale=scale, enable_gqa=gqa,
            return_aux=AuxRequest(lse=True),
        )  # fmt: skip
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


# ---------------------------------------------------------------- neighborhood attention


def _is_self_attention(shape, ks, ca, has_additional: bool) -> bool:
    if len(shape) == 1 and not has_additional:
        return ks[0] == shape[0]  # 1-D: k = L is full (or causal) attention
    return all(k == L and not c for k, L, c in zip(ks, shape, ca))


def _na(
    n: int,
    query,
    key,
    value,
    kernel_size,
    stride=1,
    dilation=1,
    is_causal=False,
    scale=None,
    additional_keys=None,
    additional_values=None,
    attention_kwargs=None,
    backend=None,
    q_tile_shape=None,
    kv_tile_shape=None,
    backward_q_tile_shape=None,
    backward_kv_tile_shape=None,
    backward_kv_splits=None,
    backward_use_pt_reduction=False,
    run_persistent_kernel=True,
    kernel_schedule=None,
    torch_compile=False,
    return_lse=False,
):
    _check_qkv(query, key, value, n)
    has_add = _check_additional(query, key, value, additional_keys, additional_values)
    shape = tuple(query.shape[1 : 1 + n])
    ks, st, di, ca = check_na_args(shape, kernel_size, stride, dilation, is_causal)
    scale = _check_scale(scale, query.shape[-1])
    _check_attention_kwargs(attention_kwargs)  # attention() has one path: checked, see there
    if backend is not None:
        check_option(backend, "backend", (*BACKENDS, *NATTEN_BACKENDS, "auto"))
    q_tile_shape = check_tile_shape(q_tile_shape, "q_tile_shape", n)
    kv_tile_shape = check_tile_shape(kv_tile_shape, "kv_tile_shape", n)
    # validated, then ignored: natten-lite's backward has no such knobs (see na1d's docstring)
    check_tile_shape(backward_q_tile_shape, "backward_q_tile_shape", n)
    check_tile_shape(backward_kv_tile_shape, "backward_kv_tile_shape", n)
    check_tile_shape(backward_kv_splits, "backward_kv_splits", n)
    check_bool(backward_use_pt_reduction, "backward_use_pt_reduction")
    check_bool(run_persistent_kernel, "run_persistent_kernel")
    check_kernel_schedule(kernel_schedule)
    check_bool(torch_compile, "torch_compile")
    return_lse = check_bool(return_lse, "return_lse")

    ours = resolve_backend(backend, query.device)
    need_lse = return_lse or has_add
    B, H, D, Dv = query.shape[0], query.shape[-2], query.shape[-1], value.shape[-1]
    fast_path = (backend in (None, "auto") or backend in NATTEN_BACKENDS) and _is_self_attention(
        shape, ks, ca, has_add
    )
    if ours == "flex" and not fast_path and query.device.type == "cpu":
        if _needs_grad(query, key, value):
            raise NotImplementedError(
                f"backend {backend!r} cannot train on CPU: torch {torch.__version__} has no "
                "FlexAttention backward on CPU. Use backend=None (tiled) or 'reference', or run "
                "the forward under torch.no_grad()"
            )

    if fast_path:
        causal = len(shape) == 1 and ca[0]
        flat = [t.reshape(B, -1, t.shape[-2], t.shape[-1]) for t in (query, key, value)]
        out, lse = _attention(*flat, causal, scale, need_lse)
        out = out.reshape(B, *shape, H, Dv)
        lse = lse.reshape(B, *shape, H) if lse is not None else None
    elif ours == "dense":
        out, lse = _dense(query, key, value, ks, st, di, ca, scale, need_lse)
    elif ours == "flex":
        out, lse = _flex(query, key, value, ks, st, di, ca, scale, q_tile_shape, kv_tile_shape)
    else:
        kv_tile = math.prod(kv_tile_shape) if kv_tile_shape is not None else None
        out, lse = na_forward(
            query, key, value, ks, st, di, ca, scale,
            backend=ours or "auto", q_tile_shape=q_tile_shape, kv_tile_size=kv_tile, need_lse=need_lse,
        )  # fmt: skip

    if has_add:
        qf = query.reshape(B, -1, H, D)
        o2, l2 = _attention(qf, additional_keys, additional_values, False, scale, True)
        out, lse = _merge([out.reshape(B, -1, H, Dv), o2], [lse.reshape(B, -1, H), l2])
        out = out.reshape(B, *shape, H, Dv)
        lse = lse.reshape(B, *shape, H)
    raise_on_non_finite(
        out, direct=("key", "additional_keys"), query=query, key=key, value=value,
        additional_keys=additional_keys, additional_values=additional_values,
    )  # fmt: skip
    if return_lse:
        return out, lse
    return out


_NA_DOC = """{n}-D neighborhood attention (NATTEN 0.21's ``na{n}d``, same arguments and positions).

    Args:
        query: {q}. key: {k}. value: {v}; H % Hkv == 0.
        kernel_size: window size k >= 2 per axis (int or {n}-tuple); even sizes take one more key
            on the left.
        stride: 1 <= s <= k (int or {n}-tuple; None = 1); queries in a stride group share their
            leader's window.
        dilation: d >= 1 with k * d <= the axis length (int or {n}-tuple; None = 1).
        is_causal: bool or {n}-tuple of bools (None = False).
        scale: score scale; None or 0.0 (NATTEN's ``scale or head_dim ** -0.5``) is D**-0.5.
        additional_keys, additional_values: [B, M, Hkv, D|Dv] that every query also attends
            (a separate attention merged by logsumexp, as in NATTEN).
        attention_kwargs: options for the ``attention`` call that computes the additional keys
            or the self-attention fast path (any of {attn}); checked like ``attention``'s own.
        backend: None (auto), "triton", "tiled", "reference", "dense", "flex", or NATTEN's
            "cutlass-fna"/"hopper-fna"/"blackwell-fna" (triton on CUDA, tiled elsewhere) and
            "flex-fna" (flex).
        q_tile_shape, kv_tile_shape: {n}-tuples, the query / KV tiles of the tiled, triton and
            flex backends (flex: blocks of prod(tile) flattened tokens).
        backward_q_tile_shape, backward_kv_tile_shape: {n}-tuples, checked and ignored: the
            Triton backward's tiles are fixed in papershelf-kernels, and the tiled / reference /
            dense backwards are torch autograd.
        backward_kv_splits: {n}-tuple, checked and ignored: natten-lite's backward has no KV
            parallelism (it is deterministic; NATTEN uses it only in cutlass-fna).
        backward_use_pt_reduction: bool, ignored: the Triton backward always computes
            delta = rowsum(dO * O) in torch (what NATTEN's flag selects for cutlass-fna).
        run_persistent_kernel: bool, ignored: no persistent scheduling (NATTEN: Blackwell only).
        kernel_schedule: None, "non", "coop" or "pp" (or NATTEN's ``KernelSchedule``), ignored:
            no warp-specialised Hopper kernels here.
        torch_compile: bool, ignored: the flex backend is always compiled on CUDA (eager
            FlexAttention materialises the scores) and runs eagerly on CPU (compiling it there
            takes minutes); NATTEN's other backends ignore it too.
        return_lse: also return the natural-log logsumexp {lse} (fp32; fp64 for fp64 inputs).

    Returns:
        out {o}, or ``(out, lse)`` when ``return_lse``.

    Raises:
        TypeError: a tensor/argument of the wrong type (int tensors, a float kernel_size, ...).
        ValueError: NATTEN's rules (k >= 2, s <= k, k*d <= L, matching layouts, Hkv | H),
            unknown names, and NaN/inf inputs that reach the output (CPU; named).
        NotImplementedError: an explicit backend that cannot run the problem (with the reason).
"""


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
    attention_kwargs: dict | None = None,
    backend: str | None = None,
    q_tile_shape: Sequence[int] | None = None,
    kv_tile_shape: Sequence[int] | None = None,
    backward_q_tile_shape: Sequence[int] | None = None,
    backward_kv_tile_shape: Sequence[int] | None = None,
    backward_kv_splits: Sequence[int] | None = None,
    backward_use_pt_reduction: bool = False,
    run_persistent_kernel: bool = True,
    kernel_schedule: Any = None,
    torch_compile: bool = False,
    return_lse: bool = False,
):
    return _na(
        1, query, key, value, kernel_size, stride, dilation, is_causal, scale, additional_keys,
        additional_values, attention_kwargs, backend, q_tile_shape, kv_tile_shape,
        backward_q_tile_shape, backward_kv_tile_shape, backward_kv_splits,
        backward_use_pt_reduction, run_persistent_kernel, kernel_schedule, torch_compile, return_lse,
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
    attention_kwargs: dict | None = None,
    backend: str | None = None,
    q_tile_shape: Sequence[int] | None = None,
    kv_tile_shape: Sequence[int] | None = None,
    backward_q_tile_shape: Sequence[int] | None = None,
    backward_kv_tile_shape: Sequence[int] | None = None,
    backward_kv_splits: Sequence[int] | None = None,
    backward_use_pt_reduction: bool = False,
    run_persistent_kernel: bool = True,
    kernel_schedule: Any = None,
    torch_compile: bool = False,
    return_lse: bool = False,
):
    return _na(
        2, query, key, value, kernel_size, stride, dilation, is_causal, scale, additional_keys,
        additional_values, attention_kwargs, backend, q_tile_shape, kv_tile_shape,
        backward_q_tile_shape, backward_kv_tile_shape, backward_kv_splits,
        backward_use_pt_reduction, run_persistent_kernel, kernel_schedule, torch_compile, return_lse,
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
    attention_kwargs: dict | None = None,
    backend: str | None = None,
    q_tile_shape: Sequence[int] | None = None,
    kv_tile_shape: Sequence[int] | None = None,
    backward_q_tile_shape: Sequence[int] | None = None,
    backward_kv_tile_shape: Sequence[int] | None = None,
    backward_kv_splits: Sequence[int] | None = None,
    backward_use_pt_reduction: bool = False,
    run_persistent_kernel: bool = True,
    kernel_schedule: Any = None,
    torch_compile: bool = False,
    return_lse: bool = False,
):
    return _na(
        3, query, key, value, kernel_size, stride, dilation, is_causal, scale, additional_keys,
        additional_values, attention_kwargs, backend, q_tile_shape, kv_tile_shape,
        backward_q_tile_shape, backward_kv_tile_shape, backward_kv_splits,
        backward_use_pt_reduction, run_persistent_kernel, kernel_schedule, torch_compile, return_lse,
    )  # fmt: skip


_SHAPES = {
    1: ("[B, L, H, D]", "[B, L, Hkv, D]", "[B, L, Hkv, Dv]", "[B, L, H]", "[B, L, H, Dv]"),
    2: ("[B, X, Y, H, D]", "[B, X, Y, Hkv, D]", "[B, X, Y, Hkv, Dv]", "[B, X, Y, H]", "[B, X, Y, H, Dv]"),
    3: ("[B, X, Y, Z, H, D]", "[B, X, Y, Z, Hkv, D]", "[B, X, Y, Z, Hkv, Dv]", "[B, X, Y, Z, H]", "[B, X, Y, Z, H, Dv]"),
}  # fmt: skip
_EXAMPLES = {
    1: """
    >>> q = torch.randn(1, 7, 1, 4)
    >>> na1d(q, q, q, kernel_size=3).shape
    torch.Size([1, 7, 1, 4])
""",
    2: """
    >>> q = torch.randn(1, 6, 6, 2, 8)
    >>> out, lse = na2d(q, q, q, kernel_size=(3, 4), dilation=(2, 1), return_lse=True)
    >>> out.shape, lse.shape
    (torch.Size([1, 6, 6, 2, 8]), torch.Size([1, 6, 6, 2]))
""",
    3: """
    >>> q = torch.randn(1, 4, 4, 4, 1, 8)
    >>> na3d(q, q, q, kernel_size=2, is_causal=(True, False, False), backend="cutlass-fna").shape
    torch.Size([1, 4, 4, 4, 1, 8])
""",
}
for _n, _fn in ((1, na1d), (2, na2d), (3, na3d)):
    _q, _k, _v, _lse, _o = _SHAPES[_n]
    _fn.__doc__ = (
        _NA_DOC.format(n=_n, q=_q, k=_k, v=_v, lse=_lse, o=_o, attn=", ".join(ATTENTION_KWARGS))
        + _EXAMPLES[_n]
    )


# ---------------------------------------------------------------- attention and merge


def _check_varlen(query, key, seqlens_Q, seqlens_KV, cu_q, cu_kv, max_q, max_kv):
    """NATTEN's varlen arguments -> [(q_start, q_end, kv_start, kv_end)] or None (not varlen)."""
    if all(x is None for x in (seqlens_Q, seqlens_KV, cu_q, cu_kv)) and all(
        x is None or x == 0 for x in (max_q, max_kv)
    ):
        return None
    if query.shape[0] != 1:
        raise ValueError(
            f"query must have batch 1 for variable-length (sequence-packed) attention, got "
            f"shape {tuple(query.shape)}"
        )
    total = (query.shape[1], key.shape[1])
    if seqlens_Q is not None or seqlens_KV is not None:
        if cu_q is not None or cu_kv is not None:
            raise ValueError(
                "cumulative_seqlen_Q/KV must be None when seqlens_Q/KV are given (pass one form)"
            )
        if seqlens_Q is None or seqlens_KV is None:
            missing = "seqlens_Q" if seqlens_Q is None else "seqlens_KV"
            raise ValueError(f"{missing} is None: seqlens_Q and seqlens_KV go together")
        lens = []
        for name, t, tot in (
            ("seqlens_Q", seqlens_Q, total[0]),
            ("seqlens_KV", seqlens_KV, total[1]),
        ):
            check_tensor(t, name, ndim=1, dtype="integer")
            vals = t.tolist()
            if min(vals) < 0 or sum(vals) > tot:
                raise ValueError(f"{name} must be >= 0 and sum to <= {tot} tokens, got {vals}")
            lens.append(vals)
        if len(lens[0]) != len(lens[1]):
            raise ValueError(
                f"seqlens_KV has {len(lens[1])} entries but seqlens_Q has {len(lens[0])}"
            )
        bounds = [[0], [0]]
        for i in (0, 1):
            for n_ in lens[i]:
                bounds[i].append(bounds[i][-1] + n_)
    else:
        if cu_q is None or cu_kv is None or max_q is None or max_kv is None:
            raise ValueError(
                "cumulative_seqlen_Q, cumulative_seqlen_KV, max_seqlen_Q and max_seqlen_KV must "
                "all be given for variable-length attention"
            )
        bounds = []
        for name, t, tot in (
            ("cumulative_seqlen_Q", cu_q, total[0]),
            ("cumulative_seqlen_KV", cu_kv, total[1]),
        ):
            check_tensor(t, name, ndim=1, dtype="integer")
            vals = t.tolist()
            if (
                len(vals) < 2
                or vals[0] != 0
                or any(b < a for a, b in zip(vals, vals[1:]))
                or vals[-1] > tot
            ):
                raise ValueError(
                    f"{name} must start at 0, be non-decreasing, have >= 2 entries and end at "
                    f"<= {tot}, got {vals}"
                )
            bounds.append(vals)
        if len(bounds[0]) != len(bounds[1]):
            raise ValueError(
                f"cumulative_seqlen_KV has {len(bounds[1])} entries but cumulative_seqlen_Q has "
                f"{len(bounds[0])}"
            )
        for name, m, b in (
            ("max_seqlen_Q", max_q, bounds[0]),
            ("max_seqlen_KV", max_kv, bounds[1]),
        ):
            m = check_int(m, name, minimum=0)
            longest = max(e - s for s, e in zip(b, b[1:]))
            if m < longest:
                raise ValueError(f"{name} must be >= the longest sequence ({longest}), got {m}")
    return [(a, b, c, d) for a, b, c, d in zip(bounds[0], bounds[0][1:], bounds[1], bounds[1][1:])]


def _varlen_attention(query, key, value, segments, is_causal, scale, need_lse):
    B, S, H, _ = query.shape
    Dv = value.shape[-1]
    lse_dtype = torch.float64 if query.dtype == torch.float64 else torch.float32
    outs, lses, done = [], [], 0
    for q0, q1, k0, k1 in segments:
        if q1 == q0:
            continue
        if k1 == k0:  # no keys: the empty sum (output 0, logsumexp -inf)
            o = query.new_zeros(B, q1 - q0, H, Dv)
            lse = torch.full((B, q1 - q0, H), float("-inf"), dtype=lse_dtype, device=query.device)
        else:
            o, lse = _attention(
                query[:, q0:q1], key[:, k0:k1], value[:, k0:k1], is_causal, scale, True
            )
        outs.append(o)
        lses.append(lse)
        done = q1
    if done < S:  # tokens after the last sequence attend nothing
        outs.append(query.new_zeros(B, S - done, H, Dv))
        lses.append(
            torch.full((B, S - done, H), float("-inf"), dtype=lse_dtype, device=query.device)
        )
    return torch.cat(outs, 1), (torch.cat(lses, 1) if need_lse else None)


def attention(
    query: torch.Tensor,
    key: torch.Tensor,
    value: torch.Tensor,
    is_causal: bool = False,
    scale: float | None = None,
    seqlens_Q: torch.Tensor | None = None,
    seqlens_KV: torch.Tensor | None = None,
    cumulative_seqlen_Q: torch.Tensor | None = None,
    cumulative_seqlen_KV: torch.Tensor | None = None,
    max_seqlen_Q: int | None = None,
    max_seqlen_KV: int | None = None,
    backend: str | None = None,
    q_tile_size: int | None = None,
    kv_tile_size: int | None = None,
    backward_q_tile_size: int | None = None,
    backward_kv_tile_size: int | None = None,
    backward_kv_splits: int | None = None,
    backward_use_pt_reduction: bool = False,
    run_persistent_kernel: bool = True,
    kernel_schedule: Any = None,
    torch_compile: bool = False,
    return_lse: bool = False,
):
    """Plain (self or cross) attention, heads-last (NATTEN 0.21's ``attention``, same arguments).

    Args:
        query: [B, S, H, D]. key: [B, S_kv, Hkv, D]. value: [B, S_kv, Hkv, Dv]; H % Hkv == 0.
        is_causal: causal mask aligned to the top-left (query i sees keys 0..i), as torch SDPA.
        scale: None or 0.0 is D**-0.5 (NATTEN's ``scale or head_dim ** -0.5``).
        seqlens_Q, seqlens_KV: variable-length (sequence-packed, B = 1) attention: 1-D integer
            tensors of per-sequence lengths; sequence i's queries attend only its keys.
        cumulative_seqlen_Q, cumulative_seqlen_KV, max_seqlen_Q, max_seqlen_KV: the same given
            as offsets (``[0, n0, n0 + n1, ...]``) and maximum lengths (NATTEN's
            ``generate_varlen_parameters``). Tokens after the last offset attend nothing
            (output 0, logsumexp -inf).
        backend: None, "auto", "sdpa" or NATTEN's "cutlass-fmha"/"hopper-fmha"/"blackwell-fmha"/
            "flex-fmha": all run the one path here (torch SDPA; query-chunked fp32 matmuls when
            a logsumexp is needed).
        q_tile_size, kv_tile_size, backward_q_tile_size, backward_kv_tile_size,
        backward_kv_splits: positive ints, checked and ignored (that path has no tiles).
        backward_use_pt_reduction, run_persistent_kernel: bools, ignored (CUTLASS / Blackwell
            kernel switches in NATTEN).
        kernel_schedule: None, "non", "coop" or "pp", ignored (Hopper kernels in NATTEN).
        torch_compile: bool, ignored (NATTEN: compile its Flex FMHA; this path is not Flex).
        return_lse: also return the logsumexp [B, S, H] (fp32; fp64 for fp64 inputs).

    Returns:
        out [B, S, H, Dv], or ``(out, lse)``.

    >>> q = torch.randn(2, 5, 2, 4)
    >>> attention(q, q, q).shape
    torch.Size([2, 5, 2, 4])
    """
    _check_qkv(query, key, value, None)
    is_causal = check_bool(is_causal, "is_causal")
    scale = _check_scale(scale, query.shape[-1])
    _check_fmha_options(
        backend=backend, q_tile_size=q_tile_size, kv_tile_size=kv_tile_size,
        backward_q_tile_size=backward_q_tile_size, backward_kv_tile_size=backward_kv_tile_size,
        backward_kv_splits=backward_kv_splits, backward_use_pt_reduction=backward_use_pt_reduction,
        run_persistent_kernel=run_persistent_kernel, kernel_schedule=kernel_schedule,
        torch_compile=torch_compile,
    )  # fmt: skip
    return_lse = check_bool(return_lse, "return_lse")
    segments = _check_varlen(
        query, key, seqlens_Q, seqlens_KV, cumulative_seqlen_Q, cumulative_seqlen_KV,
        max_seqlen_Q, max_seqlen_KV,
    )  # fmt: skip
    if segments is None:
        out, lse = _attention(query, key, value, is_causal, scale, return_lse)
    else:
        out, lse = _varlen_attention(query, key, value, segments, is_causal, scale, return_lse)
    raise_on_non_finite(out, direct=("key",), query=query, key=key, value=value)
    return (out, lse) if return_lse else out


def _merge(outputs, lse_tensors):
    acc = (
        torch.float64
        if any(t.dtype == torch.float64 for t in (*outputs, *lse_tensors))
        else torch.float32
    )
    lses = torch.stack([l.to(acc) for l in lse_tensors])  # [T, B, X.., H]
    lse = torch.logsumexp(lses, dim=0)
    # a row no part attends (every lse -inf) stays empty: weight 0, not exp(-inf + inf) = NaN
    w = torch.exp(lses - torch.where(torch.isneginf(lse), 0.0, lse))
    out = sum(w[t][..., None] * outputs[t].to(acc) for t in range(len(outputs)))
    return out.to(outputs[0].dtype), lse


def merge_attentions(
    outputs: Sequence[torch.Tensor],
    lse_tensors: Sequence[torch.Tensor],
    torch_compile: bool = True,
    use_autograd_fix: bool = True,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Merge attentions of the same queries over disjoint key sets by their logsumexps.

    ``lse = log sum_t exp(lse_t)`` and ``out = sum_t exp(lse_t - lse) * out_t``: the result of
    attending the concatenation of the key sets. Differentiable in outputs and LSEs (torch
    autograd, exact for every natten-lite backend: each differentiates its LSE too).

    Args:
        outputs: >= 2 tensors [B, X.., H, Dv] of equal shape (NATTEN: [B, S, H, Dv]).
        lse_tensors: matching [B, X.., H] logsumexps (-inf: that part attends nothing).
        torch_compile: bool, ignored: the merge is a few elementwise ops, run eagerly
            (compiling costs seconds per new shape); it compiles with a compiled model anyway.
        use_autograd_fix: bool, ignored: NATTEN's fix makes fused kernels whose backward reads
            the saved output and LSE see the merged ones; natten-lite's merge is differentiated
            exactly by autograd, with or without it.

    Returns:
        ``(out, lse)``: out in the dtype of ``outputs[0]``, lse fp32 (fp64 if any input is fp64).

    >>> o1, o2 = torch.zeros(1, 2, 1, 1), torch.ones(1, 2, 1, 1)
    >>> l = torch.zeros(1, 2, 1)
    >>> merge_attentions([o1, o2], [l, l])[0].flatten().tolist()
    [0.5, 0.5]
    """
    for name, seq in (("outputs", outputs), ("lse_tensors", lse_tensors)):
        if not isinstance(seq, Sequence) or isinstance(seq, str | bytes | torch.Tensor):
            raise TypeError(f"{name} must be a list of tensors, got {describe(seq)}")
    outputs, lse_tensors = list(outputs), list(lse_tensors)
    if len(outputs) < 2:
        raise ValueError(f"outputs must hold at least two tensors, got {len(outputs)}")
    if len(lse_tensors) != len(outputs):
        raise ValueError(
            f"lse_tensors has {len(lse_tensors)} tensors but outputs has {len(outputs)}; they must match"
        )
    check_bool(torch_compile, "torch_compile")
    check_bool(use_autograd_fix, "use_autograd_fix")
    shape = None
    for i, (o, l) in enumerate(zip(outputs, lse_tensors)):
        check_tensor(o, f"outputs[{i}]", finite=False)
        check_tensor(l, f"lse_tensors[{i}]", finite=False)
        if o.dim() < 3:
            raise ValueError(
                f"outputs[{i}] must be [B, X.., H, Dv] (rank >= 3), got shape {tuple(o.shape)}"
            )
        shape = shape or o.shape
        if o.shape != shape:
            raise ValueError(f"outputs[{i}] has shape {tuple(o.shape)}, expected {tuple(shape)}")
        if l.shape != shape[:-1]:
            raise ValueError(
                f"lse_tensors[{i}] has shape {tuple(l.shape)}, expected {tuple(shape[:-1])}"
            )
        if o.device != outputs[0].device or l.device != outputs[0].device:
            raise ValueError(f"outputs[{i}] and lse_tensors[{i}] must be on {outputs[0].device}")
    out, lse = _merge(outputs, lse_tensors)
    if out.device.type == "cpu" and not torch.compiler.is_compiling():
        if not bool(torch.isfinite(out.detach().sum(dtype=torch.float64))):
            for i, (o, l) in enumerate(zip(outputs, lse_tensors)):
                check_tensor(o.detach(), f"outputs[{i}]")
                if bool((torch.isnan(l) | torch.isposinf(l)).any()):
                    raise ValueError(f"lse_tensors[{i}] must not hold NaN or +inf")
    return out, lse
