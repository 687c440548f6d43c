"""One attention-with-column-sums problem, validated once: what ``select`` and every backend get.

The pattern of xformers' ``fmha.Inputs``: ``attention_colsum`` builds one :class:`ColsumInputs`,
its constructor runs every check, and the dispatcher and each backend (``triton``, ``torch``,
``reference``) read the same object.
"""

from __future__ import annotations

from dataclasses import KW_ONLY, dataclass
from typing import Any

import torch

from .._checks import check_bool, check_float, check_tensor, describe
from .._validation import check_qkv, check_same_device_dtype

__all__ = ["ColsumInputs"]


@dataclass(frozen=True, eq=False)
class ColsumInputs:
    """A validated ``attention_colsum`` problem (constructing one runs every check).

    Args:
        q: (B, H, Lq, D) queries, floating point.
        k: (B, Hkv, Lk, D) keys, ``H % Hkv == 0``, q's dtype and device.
        v: (B, Hkv, Lk, Dv) values.
        attn_mask: None or a 4-D (B|1, 1|Hkv|H, Lq|1, Lk) bool (True = attend) or additive
            floating mask (-inf allowed, NaN refused), on q's device.
        causal: bottom-right aligned causal masking.
        scale: softmax scale (> 0), default D ** -0.5; stored as a float.

    >>> q = torch.randn(1, 4, 3, 8)
    >>> kv = torch.randn(1, 2, 5, 8)
    >>> ColsumInputs(q, kv, kv, causal=True).scale == 8**-0.5
    True
    """

    q: torch.Tensor
    k: torch.Tensor
    v: torch.Tensor
    _: KW_ONLY
    attn_mask: Any = None
    causal: Any = False
    scale: Any = None

    def __post_init__(self) -> None:
        q = check_qkv(self.q, "q", ndim=4)
        k = check_qkv(self.k, "k", ndim=4)
        v = check_qkv(self.v, "v", ndim=4)
        check_same_device_dtype(q, "q", k=k, v=v)
        B, H, Lq, D = q.shape
        Hkv, Lk = k.shape[1], k.shape[2]
        if k.shape[0] != B:
            raise ValueError(f"k must have q's batch size {B}, got shape {tuple(k.shape)}")
        if k.shape[3] != D:
            raise ValueError(f"k head dim must equal q's ({D}), got shape {tuple(k.shape)}")
        if H % Hkv:
            raise ValueError(
                f"k heads must divide q heads (a multiple of key/value heads, GQA/MQA), got "
                f"Hkv={Hkv} for H={H}"
            )
        if tuple(v.shape[:3]) != (B, Hkv, Lk):
            raise ValueError(
                f"v must have k's (batch, heads, length) = {(B, Hkv, Lk)}, got shape "
                f"{tuple(v.shape)}"
            )
        causal = check_bool(self.causal, "causal")
        if self.scale is None:
            scale = D**-0.5
        else:
            scale = check_float(self.scale, "scale", minimum=0.0, min_inclusive=False)
        m = self.attn_mask
        if m is not None:
            m = check_tensor(m, "attn_mask", ndim=4, dtype="any", finite=False)
            if m.dtype != torch.bool and not m.is_floating_point():
                raise TypeError(f"attn_mask must be bool or floating point, got {describe(m)}")
            Bm, Hm, Lqm, Lkm = m.shape
            if Bm not in (1, B) or Hm not in (1, Hkv, H) or Lqm not in (1, Lq) or Lkm != Lk:
                raise ValueError(
                    f"attn_mask shape {tuple(m.shape)} does not fit (B|1, 1|Hkv|H, Lq|1, Lk) = "
                    f"({B}|1, 1|{Hkv}|{H}, {Lq}|1, {Lk})"
                )
            if m.device != q.device:
                raise ValueError(f"attn_mask is on {m.device} but q is on {q.device}")
            # -inf is a legitimate additive mask; NaN is not (checked on every device, as in 0.1)
            if (
                m.is_floating_point()
                and not torch.compiler.is_compiling()
                and bool(m.isnan().any())
            ):
                raise ValueError("attn_mask must not contain NaN")
        object.__setattr__(self, "causal", causal)
        object.__setattr__(self, "scale", float(scale))

    @property
    def device(self) -> torch.device:
        return self.q.device

    @property
    def dtype(self) -> torch.dtype:
        return self.q.dtype

    @property
    def kwargs(self) -> dict[str, Any]:
        """``attn_mask``, ``causal``, ``scale`` as keyword arguments of the backend functions."""
        return {"attn_mask": self.attn_mask, "causal": self.causal, "scale": self.scale}
