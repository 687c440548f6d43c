"""Compositional volume rendering (RAM3D sec. 3): at every sample the densities of all fields
are summed and their colours density-weighted, then standard alpha compositing."""

from __future__ import annotations

from typing import Any, NamedTuple

import torch

from ._checks import check_float, check_generator, check_int, describe
from ._validation import as_tensor, check_fields

__all__ = ["RenderResult", "composite_fields", "render", "render_camera"]


class RenderResult(NamedTuple):
    """What :func:`render` returns. Also indexable by name (``out["rgb"]``), like a dict.

    rgb: (n, 3) colour (background included); depth: (n,) expected ray distance
    ``sum_i w_i t_i`` (not normalised by ``acc``); acc: (n,) accumulated opacity
    ``1 - T(far) = sum_i w_i`` in [0, 1]; weights: (n, n_samples) the compositing weights ``T_i alpha_i``."""

    rgb: torch.Tensor
    depth: torch.Tensor
    acc: torch.Tensor
    weights: torch.Tensor

    def __getitem__(self, key):
        if isinstance(key, str):
            if key not in self._fields:
                raise KeyError(key)
            return getattr(self, key)
        return tuple.__getitem__(self, key)

    def keys(self):
        return self._fields

    def items(self):
        return zip(self._fields, self, strict=True)


def composite_fields(fields: Any, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """The composed field at points ``x`` (n, 3): ``sigma = sum_k sigma_k`` and
    ``rgb = sum_k sigma_k rgb_k / sigma`` (0 where ``sigma`` is 0)."""
    fields = check_fields(fields)
    sig_total = None
    weighted = None
    for k, f in enumerate(fields):
        out = f(x)
        if not (isinstance(out, tuple | list) and len(out) == 2):
            raise TypeError(f"fields[{k}] must return (sigma, rgb), got {describe(out)}")
        s, c = out
        if not (isinstance(s, torch.Tensor) and isinstance(c, torch.Tensor)):
            raise TypeError(f"fields[{k}] must return tensors (sigma, rgb)")
        if tuple(s.shape) != (x.shape[0],) or tuple(c.shape) != (x.shape[0], 3):
            raise ValueError(
                f"fields[{k}] must return sigma ({x.shape[0]},) and rgb ({x.shape[0]}, 3), got "
                f"{tuple(s.shape)} and {tuple(c.shape)}"
            )
        s = s.to(x.dtype)
        c = c.to(x.dtype)
        sig_total = s if sig_total is None else sig_total + s
        weighted = s[:, None] * c if weighted is None else weighted + s[:, None] * c
    if len(fields) == 1:
        return sig_total, c  # one field: its own colour (the weighted mean wherever sigma > 0)
    safe = torch.where(sig_total > 0, sig_total, torch.ones_like(sig_total))
    rgb = torch.where(
        (sig_total > 0)[:, None], weighted / safe[:, None], torch.zeros_like(weighted)
    )
    return sig_total, rgb


def _check_bg(bg_color: Any, dtype: torch.dtype) -> torch.Tensor | None:
    if bg_color is None:
        return None
    if isinstance(bg_color, int | float) and not isinstance(bg_color, bool):
        v = check_float(bg_color, "bg_color")
        return torch.full((3,), v, dtype=dtype)
    if isinstance(bg_color, bool):
        raise TypeError(
            f"bg_color must be None, a number or an RGB triple, got {describe(bg_color)}"
        )
    bg = as_tensor(bg_color, "bg_color", ndim=(1, 2), dtype=dtype)
    if bg.ndim == 1 and bg.shape[0] != 3:
        raise ValueError(f"bg_color must have 3 channels, got shape {tuple(bg.shape)}")
    if bg.ndim == 2 and bg.shape[1] != 3:
        raise ValueError(f"bg_color must be (3,) or (n_rays, 3), got shape {tuple(bg.shape)}")
    return bg


def render(
    fields: Any,
    o: Any,
    d: Any,
    *,
    near: float,
    far: float,
    n_samples: int = 64,
    bg_color: Any = None,
    generator: torch.Generator | None = None,
) -> RenderResult:
    """Volume-render rays ``o + t d`` (``o``, ``d``: (n, 3)) through the composition of
    ``fields`` (one field or a list).

    ``[near, far]`` is cut into ``n_samples`` equal bins of width ``delta``; each bin is sampled
    at its midpoint (with a ``generator``: at a uniform point of the bin, stratified sampling)
    and treated as homogeneous: ``alpha_i = 1 - exp(-sigma_i delta |d|)``,
    ``w_i = alpha_i prod_{j<i} (1 - alpha_j)``. The result is exact for fields constant over
    each bin (e.g. a slab whose faces fall on bin edges). ``bg_color`` (None: black; a number,
    an RGB triple or one per ray) is added times ``1 - acc``.
    """
    fields = check_fields(fields)
    o = as_tensor(o, "o", ndim=2, shape=(None, 3), allow_empty=True)
    d = as_tensor(d, "d", ndim=2, shape=(None, 3), dtype=o.dtype, allow_empty=True)
    if o.shape[0] != d.shape[0]:
        raise ValueError(f"d must have as many rays as o ({o.shape[0]}), got {d.shape[0]}")
    near = check_float(near, "near", minimum=0.0)
    far = check_float(far, "far")
    if not far > near:
        raise ValueError(f"far must be greater than near ({near}), got {far}")
    n_samples = check_int(n_samples, "n_samples", minimum=1)
    generator = check_generator(generator)
    bg = _check_bg(bg_color, o.dtype)
    if bg is not None and bg.ndim == 2 and bg.shape[0] != o.shape[0]:
        raise ValueError(f"bg_color must have one row per ray ({o.shape[0]}), got {bg.shape[0]}")
    n = o.shape[0]
    delta = (far - near) / n_samples
    edges_lo = near + delta * torch.arange(n_samples, dtype=o.dtype)
    if generator is None:
        t = (edges_lo + 0.5 * delta).expand(n, n_samples)
    else:
        u = torch.rand(n, n_samples, generator=generator, dtype=o.dtype)
        t = edges_lo + delta * u
    x = o[:, None, :] + t[..., None] * d[:, None, :]
    sigma, rgb = composite_fields(fields, x.reshape(-1, 3))
    sigma = sigma.reshape(n, n_samples)
    rgb = rgb.reshape(n, n_samples, 3)
    dist = delta * d.norm(dim=-1, keepdim=True)
    tau = sigma * dist  # optical depth of each bin
    alpha = 1.0 - torch.exp(-tau)
    # transmittance before bin i: exp(-sum_{j<i} tau_j) (exclusive cumulative sum)
    cum = torch.cumsum(tau, dim=-1)
    trans = torch.exp(-(cum - tau))
    weights = trans * alpha
    # 1 - T(far): equals weights.sum(-1) up to rounding, and lies in [0, 1] exactly
    acc = 1.0 - torch.exp(-cum[:, -1])
    out_rgb = (weights[..., None] * rgb).sum(dim=-2)
    depth = (weights * t).sum(dim=-1)
    if bg is not None:
        out_rgb = out_rgb + (1.0 - acc)[:, None] * bg
    return RenderResult(out_rgb, depth, acc, weights)


def render_camera(fields: Any, cam: Any, **kwargs: Any) -> RenderResult:
    """:func:`render` of every pixel of ``cam`` (row-major); reshape ``.rgb`` to (H, W, 3)."""
    from .cameras import get_rays

    o, d = get_rays(cam)
    return render(fields, o, d, **kwargs)
