"""Sample-quality and receptive-field measures: RBF-kernel MMD and 2-D Gabor fits."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import torch

from ._checks import check_array, check_float, check_int
from ._validation import as_tensor

__all__ = ["gabor_fit", "mmd_rbf"]


def mmd_rbf(x: Any, y: Any, *, bandwidth: float | None = None) -> float:
    """Unbiased squared maximum mean discrepancy between samples ``x`` ``[n, d]`` and ``y``
    ``[m, d]`` (n, m >= 2) with the Gaussian kernel exp(-|a - b|^2 / (2 bandwidth^2)); the
    default bandwidth is the median heuristic (median pairwise distance of the pooled sample)."""
    xt = as_tensor(x, "x", ndim=2, dtype=torch.float64)
    yt = as_tensor(y, "y", ndim=2, dtype=torch.float64, device=xt.device)
    if yt.shape[1] != xt.shape[1]:
        raise ValueError(f"y must have {xt.shape[1]} columns like x, got shape {tuple(yt.shape)}")
    for t, name in ((xt, "x"), (yt, "y")):
        if t.shape[0] < 2:
            raise ValueError(f"{name} must have at least 2 rows, got {t.shape[0]}")
    z = torch.cat([xt, yt])
    d2 = torch.cdist(z, z).pow(2)
    if bandwidth is None:
        n = z.shape[0]
        iu = torch.triu_indices(n, n, offset=1)
        med = float(d2[iu[0], iu[1]].sqrt().median())
        bandwidth = med if med > 0 else 1.0
    else:
        bandwidth = check_float(bandwidth, "bandwidth", minimum=0.0, min_inclusive=False)
    k = torch.exp(-d2 / (2 * bandwidth**2))
    n, m = xt.shape[0], yt.shape[0]
    kxx, kyy, kxy = k[:n, :n], k[n:, n:], k[:n, n:]
    sxx = (kxx.sum() - kxx.diagonal().sum()) / (n * (n - 1))
    syy = (kyy.sum() - kyy.diagonal().sum()) / (m * (m - 1))
    return float(sxx + syy - 2 * kxy.mean())


def _gabor(params, xx, yy):
    amp, x0, y0, theta, sx, sy, freq, phase, offset = params
    c, s = math.cos(theta), math.sin(theta)
    xr = c * (xx - x0) + s * (yy - y0)
    yr = -s * (xx - x0) + c * (yy - y0)
    env = np.exp(-(xr**2) / (2 * sx**2) - yr**2 / (2 * sy**2))
    return amp * env * np.cos(2 * math.pi * freq * xr + phase) + offset


def gabor_fit(filter: Any, *, n_starts: int = 4) -> float:
    """R^2 of the best least-squares fit of a 2-D Gabor function (amplitude, centre, orientation,
    two widths, spatial frequency, phase, offset) to ``filter`` ``[h, w]``. Starts from the
    dominant Fourier component and ``n_starts`` orientations/phases; needs scipy."""
    f = check_array(filter, "filter", ndim=2)
    n_starts = check_int(n_starts, "n_starts", minimum=1)
    if min(f.shape) < 3:
        raise ValueError(f"filter must be at least 3 x 3, got shape {f.shape}")
    from scipy.optimize import least_squares

    h, w = f.shape
    yy, xx = np.mgrid[0:h, 0:w].astype(float)
    ss_tot = float(((f - f.mean()) ** 2).sum())
    if ss_tot == 0.0:
        return 0.0
    spec = np.abs(np.fft.fft2(f - f.mean()))
    ky, kx = np.unravel_index(np.argmax(spec), spec.shape)
    fy = (ky if ky <= h // 2 else ky - h) / h
    fx = (kx if kx <= w // 2 else kx - w) / w
    freq0 = max(math.hypot(fx, fy), 1.0 / max(h, w))
    theta0 = math.atan2(fy, fx)
    energy = np.abs(f - f.mean())
    cy, cx = np.unravel_index(np.argmax(energy), energy.shape)
    scale = float(np.abs(f).max())
    best = -np.inf
    lo = [-np.inf, -1, -1, -np.inf, 0.5, 0.5, 0.0, -np.inf, -np.inf]
    hi = [np.inf, w, h, np.inf, 2 * max(h, w), 2 * max(h, w), 0.5, np.inf, np.inf]
    for i in range(n_starts):
        theta = theta0 + (i // 2) * math.pi / max(1, n_starts // 2)
        phase = 0.0 if i % 2 == 0 else math.pi / 2
        p0 = [scale, float(cx), float(cy), theta, 1.5, 1.5, min(freq0, 0.49), phase, 0.0]

        def resid(p):
            return (_gabor(p, xx, yy) - f).ravel()

        try:
            sol = least_squares(resid, p0, bounds=(lo, hi), max_nfev=200)
        except ValueError:  # pragma: no cover - infeasible start
            continue
        r2 = 1.0 - float((sol.fun**2).sum()) / ss_tot
        best = max(best, r2)
    return float(best)
