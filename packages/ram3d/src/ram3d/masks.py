"""Masks: disk dilation, the halo ring D \\ M, bounding-box crops and view compositing."""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
import torch.nn.functional as F

from ._checks import check_int, describe
from ._validation import as_mask, as_tensor

__all__ = ["bbox_crop", "composite", "dilate", "disk", "halo"]


def _like_input(out: torch.Tensor, original: Any):
    """numpy in, numpy out; anything else: a tensor."""
    if isinstance(original, np.ndarray):
        return out.cpu().numpy()
    return out


def disk(r: int) -> torch.Tensor:
    """The (2r+1, 2r+1) boolean disk ``dy^2 + dx^2 <= r^2``."""
    r = check_int(r, "r", minimum=0)
    y, x = torch.meshgrid(torch.arange(-r, r + 1), torch.arange(-r, r + 1), indexing="ij")
    return (y * y + x * x) <= r * r


def dilate(mask: Any, r: int):
    """Dilate a boolean mask (H, W) by a disk of radius ``r`` pixels: a pixel is set iff some
    set pixel lies within Euclidean distance ``r``. Returns a bool tensor (a numpy array for a
    numpy input)."""
    m = as_mask(mask, "mask")
    r = check_int(r, "r", minimum=0)
    if r == 0 or m.numel() == 0:
        return _like_input(m.clone(), mask)
    k = disk(r).to(torch.float32)[None, None]
    x = m.to(torch.float32)[None, None]
    out = F.conv2d(x, k, padding=r)[0, 0] > 0.5  # integer counts: exact in float32
    return _like_input(out, mask)


def halo(mask: Any, r: int):
    """The halo ring ``dilate(mask, r) & ~mask``: visible background around the object, where
    RAM3D's reconstruction loss applies. Empty for ``r == 0``."""
    m = as_mask(mask, "mask")
    r = check_int(r, "r", minimum=0)
    d = dilate(m, r)
    return _like_input(d & ~m, mask)


def bbox_crop(mask: Any, pad: int = 0) -> tuple[slice, slice]:
    """The (rows, cols) slices of the mask's bounding box grown by ``pad`` pixels (clipped to the
    image): render only this crop, as the paper does to save memory. An empty mask is a
    ValueError."""
    m = as_mask(mask, "mask")
    pad = check_int(pad, "pad", minimum=0)
    if not bool(m.any()):
        raise ValueError("mask must have at least one set pixel to crop to")
    rows = torch.nonzero(m.any(dim=1)).reshape(-1)
    cols = torch.nonzero(m.any(dim=0)).reshape(-1)
    H, W = m.shape
    r0 = max(int(rows[0]) - pad, 0)
    r1 = min(int(rows[-1]) + pad + 1, H)
    c0 = max(int(cols[0]) - pad, 0)
    c1 = min(int(cols[-1]) + pad + 1, W)
    return slice(r0, r1), slice(c0, c1)


def composite(render: Any, image: Any, mask: Any) -> torch.Tensor:
    """``mask * render + (1 - mask) * image`` for a boolean ``mask`` (H, W): the rendered
    colours inside the mask, the input pixels, bit for bit, outside. ``render`` is (H, W, 3),
    (H*W, 3) (row-major) or a :class:`~ram3d.render.RenderResult`; ``image`` (H, W, 3)."""
    from .render import RenderResult

    if isinstance(render, RenderResult):
        render = render.rgb
    img = as_tensor(image, "image", ndim=3)
    if img.shape[-1] != 3:
        raise ValueError(f"image must be (H, W, 3), got shape {tuple(img.shape)}")
    H, W = img.shape[:2]
    if not isinstance(render, torch.Tensor | np.ndarray | list | tuple):
        raise TypeError(
            f"render must be a tensor (H, W, 3) or a RenderResult, got {describe(render)}"
        )
    rgb = as_tensor(render, "render", ndim=(2, 3))
    if rgb.ndim == 2:
        if tuple(rgb.shape) != (H * W, 3):
            raise ValueError(
                f"render must be ({H * W}, 3) or ({H}, {W}, 3), got {tuple(rgb.shape)}"
            )
        rgb = rgb.reshape(H, W, 3)
    elif tuple(rgb.shape) != (H, W, 3):
        raise ValueError(
            f"render must have the image's shape ({H}, {W}, 3), got {tuple(rgb.shape)}"
        )
    m = as_mask(mask, "mask")
    if tuple(m.shape) != (H, W):
        raise ValueError(f"mask must have shape ({H}, {W}), got {tuple(m.shape)}")
    return torch.where(m[..., None].to(rgb.device), rgb, img.to(rgb.device))
