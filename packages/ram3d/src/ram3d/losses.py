"""The HiFA distillation loss, its timestep schedule, and the halo reconstruction loss."""

from __future__ import annotations

import math
from typing import Any

import torch

from ._checks import check_float, check_int, check_option, describe
from ._validation import as_mask, as_tensor

__all__ = ["ANNEAL_KINDS", "anneal_t", "halo_l2", "hifa_loss"]

ANNEAL_KINDS = ("sqrt", "linear")


def _tensor(value: Any, name: str) -> torch.Tensor:
    if not isinstance(value, torch.Tensor):
        raise TypeError(f"{name} must be a torch.Tensor, got {describe(value)}")
    if not value.is_floating_point():
        raise TypeError(f"{name} must be a floating tensor, got {describe(value)}")
    if value.numel() == 0:
        raise ValueError(f"{name} must not be empty, got shape {tuple(value.shape)}")
    if not bool(torch.isfinite(value.detach()).all()):
        raise ValueError(f"{name} must be finite, got NaN or infinite value(s)")
    return value


def hifa_loss(
    z: torch.Tensor,
    z0_hat: torch.Tensor,
    rgb: torch.Tensor,
    rgb_hat: torch.Tensor,
    *,
    lambda_rgb: float,
    weight: float = 1.0,
) -> torch.Tensor:
    """HiFA's distillation loss ``weight * (||z - sg(z0_hat)||^2 + lambda_rgb ||rgb -
    sg(rgb_hat)||^2)``, each squared norm a mean (MSE); ``sg`` is stop-gradient, so gradients
    reach only ``z`` and ``rgb`` (the render). Shapes must match pairwise."""
    z = _tensor(z, "z")
    z0_hat = _tensor(z0_hat, "z0_hat")
    rgb = _tensor(rgb, "rgb")
    rgb_hat = _tensor(rgb_hat, "rgb_hat")
    if z.shape != z0_hat.shape:
        raise ValueError(f"z0_hat must have z's shape {tuple(z.shape)}, got {tuple(z0_hat.shape)}")
    if rgb.shape != rgb_hat.shape:
        raise ValueError(
            f"rgb_hat must have rgb's shape {tuple(rgb.shape)}, got {tuple(rgb_hat.shape)}"
        )
    lambda_rgb = check_float(lambda_rgb, "lambda_rgb", minimum=0.0)
    weight = check_float(weight, "weight", minimum=0.0)
    latent = torch.mean((z - z0_hat.detach().to(z.dtype)) ** 2)
    pixel = torch.mean((rgb - rgb_hat.detach().to(rgb.dtype)) ** 2)
    return weight * (latent + lambda_rgb * pixel)


def anneal_t(step: int, total: int, *, t_min: float, t_max: float, kind: str = "sqrt") -> float:
    """HiFA's timestep schedule ``t_k = t_max - (t_max - t_min) * sqrt(k / K)`` (``kind="sqrt"``)
    or ``... * (k / K)`` (``"linear"``) at step ``k = step`` of ``K = total``: ``t_max`` at step
    0, ``t_min`` at step ``total``, non-increasing in between (``0 <= step <= total``). A loop of
    ``n`` iterations reaches ``t_min`` on its last one with ``anneal_t(k, n - 1, ...)``."""
    total = check_int(total, "total", minimum=1)
    step = check_int(step, "step", minimum=0, maximum=total)
    t_min = check_float(t_min, "t_min")
    t_max = check_float(t_max, "t_max")
    if t_min > t_max:
        raise ValueError(f"t_min must be <= t_max ({t_max}), got {t_min}")
    kind = check_option(kind, "kind", ANNEAL_KINDS)
    frac = step / total
    if kind == "sqrt":
        frac = math.sqrt(frac)
    if step == total:
        return t_min
    return t_max - (t_max - t_min) * frac


def halo_l2(render: Any, image: Any, halo: Any) -> torch.Tensor:
    """Mean squared error of ``render`` against ``image`` (both (H, W, 3)) over the pixels of
    the boolean ``halo`` (H, W), where the true background is visible (0 for an empty halo)."""
    render = _tensor(render, "render")
    image = as_tensor(image, "image", ndim=3)
    if render.ndim != 3 or render.shape[-1] != 3:
        raise ValueError(f"render must be (H, W, 3), got shape {tuple(render.shape)}")
    if image.shape != render.shape:
        raise ValueError(
            f"image must have render's shape {tuple(render.shape)}, got {tuple(image.shape)}"
        )
    h = as_mask(halo, "halo")
    if tuple(h.shape) != tuple(render.shape[:2]):
        raise ValueError(f"halo must have shape {tuple(render.shape[:2])}, got {tuple(h.shape)}")
    if not bool(h.any()):
        return render.sum() * 0.0
    diff = (render[h] - image[h].to(render.dtype).detach()) ** 2
    return diff.mean()
