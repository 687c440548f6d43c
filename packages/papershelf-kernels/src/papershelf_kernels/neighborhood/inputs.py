"""One neighborhood-attention problem, validated once: what ``select`` and every backend receive.

The pattern of xformers' ``fmha.Inputs``: ``na_forward`` builds one :class:`NAInputs` (tensors,
per-axis parameters, tiles, ``need_lse``), its constructor checks the layout, and the dispatcher
and each backend (``triton``, ``tiled``, ``reference``) read the same object, so no backend can
accept a problem another would refuse.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import KW_ONLY, dataclass
from typing import Any

import torch

from .._checks import check_bool, check_float, check_int, describe
from .._validation import ArgumentTypeError, check_qkv, check_same_device_dtype

__all__ = ["NAInputs", "normalize_args"]


def _per_axis(name: str, value: Any, n: int, kind: type) -> tuple:
    """``value`` broadcast to ``n`` axes: one ``kind`` or a sequence of ``n`` of them."""
    check = check_bool if kind is bool else check_int
    what = "a bool" if kind is bool else "an int"
    if isinstance(value, Sequence) and not isinstance(value, str | bytes):
        if len(value) != n:
            raise ValueError(
                f"{name} must be {what} or a sequence of {n} (one per axis), got {value!r}"
            )
        items = list(value)
    else:
        items = [value] * n
    out = []
    for v in items:
        try:
            out.append(check(v, name))
        except TypeError as e:
            raise ArgumentTypeError(
                f"{name} must be {what} or a sequence of {n}, got {describe(value)}"
            ) from e
    return tuple(out)


def normalize_args(
    shape: Sequence[int], kernel_size, stride=1, dilation=1, is_causal=False
) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...], tuple[bool, ...]]:
    """Broadcast and check the per-axis parameters against a token layout (NATTEN's rules).

    A wrong type (``kernel_size=3.0``, ``is_causal=1``) raises :class:`ArgumentTypeError`, a
    ``TypeError`` that is also a ``ValueError`` for 0.1 callers; a wrong value ``ValueError``.
    ``None`` for stride, dilation or is_causal means the default.

    >>> normalize_args((8, 8), 3, stride=(1, 2))
    ((3, 3), (1, 2), (1, 1), (False, False))
    """
    n = len(shape)
    ks = _per_axis("kernel_size", kernel_size, n, int)
    st = _per_axis("stride", 1 if stride is None else stride, n, int)
    di = _per_axis("dilation", 1 if dilation is None else dilation, n, int)
    ca = _per_axis("is_causal", False if is_causal is None else is_causal, n, bool)
    if any(k < 2 for k in ks):
        raise ValueError(f"kernel_size must be >= 2 on every axis, got {ks}")
    if any(s < 1 for s in st):
        raise ValueError(f"stride must be >= 1 on every axis, got {st}")
    if any(d < 1 for d in di):
        raise ValueError(f"dilation must be >= 1 on every axis, got {di}")
    if any(s > k for s, k in zip(st, ks)):
        raise ValueError(f"stride cannot exceed kernel_size on any axis, got {st} > {ks}")
    if any(k * d > L for k, d, L in zip(ks, di, shape)):
        raise ValueError(
            f"kernel_size * dilation cannot exceed the input size on any axis, got "
            f"kernel_size={ks}, dilation={di}, input size={tuple(shape)}"
        )
    return ks, st, di, ca


def _check_layout(query: torch.Tensor, key: torch.Tensor, value: torch.Tensor) -> None:
    """Heads-last ``[B, X1..Xn, H|Hkv, D|Dv]`` tensors that fit together (GQA/MQA allowed)."""
    lead = tuple(query.shape[:-2])
    for name, t in (("key", key), ("value", value)):
        if tuple(t.shape[:-2]) != lead:
            raise ValueError(
                f"{name} must have query's batch and token layout [B, X..] = {lead}, got shape "
                f"{tuple(t.shape)} (query {tuple(query.shape)})"
            )
    H, D = query.shape[-2], query.shape[-1]
    Hk, Dk, Hv = key.shape[-2], key.shape[-1], value.shape[-2]
    if Dk != D:
        raise ValueError(f"key head dim must equal query's ({D}), got {Dk}")
    if H % Hk:
        raise ValueError(f"key heads must divide query heads (GQA/MQA), got Hkv={Hk} for H={H}")
    if Hv != Hk:
        raise ValueError(f"value heads must equal key heads ({Hk}), got {Hv}")


@dataclass(frozen=True, eq=False)
class NAInputs:
    """A validated neighborhood-attention problem (constructing one runs every check).

    Args:
        query: [B, X1..Xn, H, D] (n = 1, 2, 3), floating point.
        key: [B, X1..Xn, Hkv, D] with H % Hkv == 0, query's dtype and device.
        value: [B, X1..Xn, Hkv, Dv].
        kernel_size, stride, dilation: int or n ints. is_causal: bool or n bools. Stored as
            n-tuples after :func:`normalize_args`.
        scale: score scale (> 0), default D**-0.5; stored as a float.
        q_tile_shape: query tile per axis (n positive ints) for the tiled/triton backends.
        kv_tile_size: KV tokens per inner step of the Triton kernel (a positive int).
        need_lse: whether the caller wants the logsumexp (every backend returns None otherwise).

    >>> q = torch.randn(1, 8, 2, 4)
    >>> NAInputs(q, q, q, 3).kernel_size, NAInputs(q, q, q, (3,), is_causal=True).is_causal
    ((3,), (True,))
    """

    query: torch.Tensor
    key: torch.Tensor
    value: torch.Tensor
    kernel_size: Any
    stride: Any = 1
    dilation: Any = 1
    is_causal: Any = False
    scale: Any = None
    _: KW_ONLY
    q_tile_shape: Any = None
    kv_tile_size: Any = None
    need_lse: Any = True

    def __post_init__(self) -> None:
        q = check_qkv(self.query, "query", ndim=(4, 5, 6))
        k = check_qkv(self.key, "key", ndim=q.ndim)
        v = check_qkv(self.value, "value", ndim=q.ndim)
        check_same_device_dtype(q, "query", key=k, value=v)
        _check_layout(q, k, v)
        n = q.ndim - 3
        ks, st, di, ca = normalize_args(
            q.shape[1 : 1 + n], self.kernel_size, self.stride, self.dilation, self.is_causal
        )
        if self.scale is None:
            scale = q.shape[-1] ** -0.5
        else:
            scale = check_float(self.scale, "scale", minimum=0.0, min_inclusive=False)
        tile = self.q_tile_shape
        if tile is not None:
            if not isinstance(tile, Sequence) or isinstance(tile, str | bytes):
                raise TypeError(
                    f"q_tile_shape must be a sequence of {n} ints, got {describe(tile)}"
                )
            if len(tile) != n:
                raise ValueError(f"q_tile_shape must have {n} entries (one per axis), got {tile!r}")
            tile = tuple(check_int(t, "q_tile_shape", minimum=1) for t in tile)
        kv = self.kv_tile_size
        if kv is not None:
            kv = check_int(kv, "kv_tile_size", minimum=1)
        for field, val in (
            ("kernel_size", ks),
            ("stride", st),
            ("dilation", di),
            ("is_causal", ca),
            ("scale", float(scale)),
            ("q_tile_shape", tile),
            ("kv_tile_size", kv),
            ("need_lse", check_bool(self.need_lse, "need_lse")),
        ):
            object.__setattr__(self, field, val)

    @property
    def n(self) -> int:
        """Number of token axes (1, 2 or 3)."""
        return self.query.dim() - 3

    @property
    def shape(self) -> tuple[int, ...]:
        """The token layout (X1..Xn)."""
        return tuple(self.query.shape[1 : 1 + self.n])

    @property
    def tokens(self) -> int:
        return math.prod(self.shape)

    @property
    def heads(self) -> int:
        return self.query.shape[-2]

    @property
    def kv_heads(self) -> int:
        return self.key.shape[-2]

    @property
    def head_dim(self) -> int:
        return self.query.shape[-1]

    @property
    def value_dim(self) -> int:
        return self.value.shape[-1]

    @property
    def device(self) -> torch.device:
        return self.query.device

    @property
    def dtype(self) -> torch.dtype:
        return self.query.dtype

    @property
    def axis_args(
        self,
    ) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...], tuple[bool, ...]]:
        """``(kernel_size, stride, dilation, is_causal)``."""
        return self.kernel_size, self.stride, self.dilation, self.is_causal
