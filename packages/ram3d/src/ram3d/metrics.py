"""Image metrics and the CLIP direction scores (on embeddings from any encoder)."""

from __future__ import annotations

import math
from typing import Any

import torch

from ._checks import check_float
from ._validation import as_mask, as_tensor

__all__ = ["clip_direction_consistency", "clip_direction_similarity", "masked_psnr", "psnr"]


def _pair(a: Any, b: Any) -> tuple[torch.Tensor, torch.Tensor]:
    x = as_tensor(a, "a", dtype=torch.float64)
    y = as_tensor(b, "b", dtype=torch.float64)
    if x.shape != y.shape:
        raise ValueError(f"b must have a's shape {tuple(x.shape)}, got {tuple(y.shape)}")
    return x, y


def _psnr_from_mse(mse: float, max_val: float) -> float:
    return math.inf if mse == 0 else 10.0 * math.log10(max_val**2 / mse)


def psnr(a: Any, b: Any, *, max_val: float = 1.0) -> float:
    """Peak signal-to-noise ratio ``10 log10(max_val^2 / MSE)`` in dB (inf for equal images)."""
    x, y = _pair(a, b)
    max_val = check_float(max_val, "max_val", minimum=0.0, min_inclusive=False)
    return _psnr_from_mse(float(torch.mean((x - y) ** 2)), max_val)


def masked_psnr(a: Any, b: Any, mask: Any, *, max_val: float = 1.0) -> float:
    """PSNR over the pixels of ``mask`` (H, W) only; ``a``, ``b`` are (H, W, C)."""
    x, y = _pair(a, b)
    if x.ndim != 3:
        raise ValueError(f"a must be (H, W, C), got shape {tuple(x.shape)}")
    m = as_mask(mask, "mask")
    if tuple(m.shape) != tuple(x.shape[:2]):
        raise ValueError(f"mask must have shape {tuple(x.shape[:2])}, got {tuple(m.shape)}")
    if not bool(m.any()):
        raise ValueError("mask must select at least one pixel")
    max_val = check_float(max_val, "max_val", minimum=0.0, min_inclusive=False)
    return _psnr_from_mse(float(torch.mean((x[m] - y[m]) ** 2)), max_val)


def _unit(v: torch.Tensor) -> torch.Tensor:
    n = v.norm(dim=-1, keepdim=True)
    return v / torch.where(n > 0, n, torch.ones_like(n))


def clip_direction_similarity(
    image_before: Any, image_after: Any, text_before: Any, text_after: Any
) -> torch.Tensor:
    """``cos(E_I(after) - E_I(before), E_T(after) - E_T(before))`` per view, from embeddings
    (n, d) of the renders and (d,) or (n, d) of the captions, from any encoder (e.g. CLIP)."""
    ib = as_tensor(image_before, "image_before", ndim=2, dtype=torch.float64)
    ia = as_tensor(image_after, "image_after", ndim=2, dtype=torch.float64)
    if ia.shape != ib.shape:
        raise ValueError(f"image_after must have shape {tuple(ib.shape)}, got {tuple(ia.shape)}")
    tb = as_tensor(text_before, "text_before", ndim=(1, 2), dtype=torch.float64)
    ta = as_tensor(text_after, "text_after", ndim=(1, 2), dtype=torch.float64)
    for t, name in ((tb, "text_before"), (ta, "text_after")):
        if t.shape[-1] != ib.shape[-1]:
            raise ValueError(f"{name} must have dimension {ib.shape[-1]}, got {t.shape[-1]}")
    di = _unit(_unit(ia) - _unit(ib))
    dt = _unit(_unit(ta) - _unit(tb))
    return (di * dt).sum(dim=-1)


def clip_direction_consistency(image_before: Any, image_after: Any) -> torch.Tensor:
    """Cosine between the edit directions ``E(after) - E(before)`` of neighbouring views
    (view i and i+1, embeddings (n, d) with n >= 2): (n - 1,)."""
    ib = as_tensor(image_before, "image_before", ndim=2, dtype=torch.float64)
    ia = as_tensor(image_after, "image_after", ndim=2, dtype=torch.float64)
    if ia.shape != ib.shape:
        raise ValueError(f"image_after must have shape {tuple(ib.shape)}, got {tuple(ia.shape)}")
    if ib.shape[0] < 2:
        raise ValueError(f"image_before must hold at least 2 views, got {ib.shape[0]}")
    di = _unit(_unit(ia) - _unit(ib))
    return (di[:-1] * di[1:]).sum(dim=-1)
