"""The saliency loss (KL divergence between sum-normalised maps) and saliency targets."""

from __future__ import annotations

import sys

import torch
from torch.nn import functional as F

from ._checks import check_float, check_tensor
from ._validation import check_images


def kld_saliency_loss(pred, target, *, eps=sys.float_info.epsilon):
    """Batch mean of ``sum_pix t * log(eps + t / (p + eps))`` with ``p``, ``t`` each sample's map
    normalised to sum 1 (the SER / UNISAL KLD; ``eps`` is Python's float epsilon, as there).

    ``pred`` and ``target``: non-negative tensors of the same shape ``[B, ...]``.
    """
    check_tensor(pred, "pred", ndim=(2, 3, 4))
    check_tensor(target, "target", ndim=(2, 3, 4))
    if tuple(pred.shape) != tuple(target.shape):
        raise ValueError(
            f"target must have pred's shape {tuple(pred.shape)}, got {tuple(target.shape)}"
        )
    eps = check_float(eps, "eps", minimum=0.0)
    for name, m in (("pred", pred), ("target", target)):
        if bool((m < 0).any()):
            raise ValueError(f"{name} must be non-negative, got min {float(m.min()):.3g}")
        if bool((m.flatten(1).sum(1) <= 0).any()):
            raise ValueError(
                f"{name} must have a positive sum in every sample, got an all-zero map"
            )
    b = pred.shape[0]
    p = pred.reshape(b, -1)
    t = target.reshape(b, -1)
    p = p / p.sum(1, keepdim=True)
    t = t / t.sum(1, keepdim=True)
    return (t * torch.log(eps + t / (p + eps))).sum(1).mean()


def _gaussian_kernel(sigma, dtype):
    r = max(1, int(round(3 * sigma)))
    g = torch.exp(-(torch.arange(-r, r + 1, dtype=dtype) ** 2) / (2 * sigma**2))
    return g / g.sum()


def proxy_saliency(x, *, sigma=1.0, floor=1e-3):
    """A documented *stand-in* for human saliency on stroke images (digits): the channel-mean
    intensity above each image's minimum, Gaussian-blurred (``sigma`` pixels), plus ``floor``
    times its mean, normalised to sum 1 per image. Returns ``[B, 1, H, W]``. No eye-tracking
    data is involved: this is not human saliency."""
    check_images(x, "x")
    sigma = check_float(sigma, "sigma", minimum=0.0)
    floor = check_float(floor, "floor", minimum=0.0)
    with torch.no_grad():
        m = x.mean(1, keepdim=True)
        m = m - m.flatten(1).min(1).values.view(-1, 1, 1, 1)
        if sigma > 0:
            g = _gaussian_kernel(sigma, m.dtype)
            r = (len(g) - 1) // 2
            m = F.conv2d(F.pad(m, (r, r, 0, 0), mode="replicate"), g.view(1, 1, 1, -1))
            m = F.conv2d(F.pad(m, (0, 0, r, r), mode="replicate"), g.view(1, 1, -1, 1))
        mean = m.flatten(1).mean(1).view(-1, 1, 1, 1)
        m = m + floor * mean + (mean == 0) * 1.0
        return m / m.flatten(1).sum(1).view(-1, 1, 1, 1)
