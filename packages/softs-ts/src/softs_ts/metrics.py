"""Forecast errors (compute them on the standardised scale, as the paper does)."""

from __future__ import annotations

import numpy as np

from ._checks import check_array

__all__ = ["mae", "mse", "per_horizon"]


def _pair(pred, target) -> tuple[np.ndarray, np.ndarray]:
    p = check_array(_np(pred), "pred")
    t = check_array(_np(target), "target")
    if p.shape != t.shape:
        raise ValueError(f"target must have the shape of pred {p.shape}, got shape {t.shape}")
    return p, t


def _np(x):
    if type(x).__module__.startswith("torch") and hasattr(x, "detach"):
        return x.detach().cpu().numpy()
    return x


def mse(pred, target) -> float:
    """Mean squared error over all elements."""
    p, t = _pair(pred, target)
    return float(np.mean((p - t) ** 2))


def mae(pred, target) -> float:
    """Mean absolute error over all elements."""
    p, t = _pair(pred, target)
    return float(np.mean(np.abs(p - t)))


def per_horizon(pred, target, *, metric: str = "mse") -> np.ndarray:
    """Error per forecast step for ``[N, H, C]`` arrays: shape ``[H]`` (mean over N and C)."""
    from ._checks import check_option

    metric = check_option(metric, "metric", ("mse", "mae"))
    p, t = _pair(pred, target)
    if p.ndim != 3:
        raise ValueError(f"pred must be 3-D [N, H, C], got shape {p.shape}")
    err = (p - t) ** 2 if metric == "mse" else np.abs(p - t)
    return err.mean(axis=(0, 2))
