"""Analytic toy models (indicator functions of simple regions) and point samplers.

Each model is a callable ``f(points (B, D)) -> (B,)`` with values in {0.0, 1.0}; a point on the
boundary of the region is accepted (closed sets).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ._checks import check_array, check_float, check_int, check_rng

__all__ = [
    "annulus_model",
    "balls_model",
    "circle_points",
    "disk_model",
    "pocket_model",
    "sample_annulus",
    "sample_disk",
]


def _center(center: Any, name: str = "center") -> np.ndarray | None:
    if center is None:
        return None
    return check_array(center, name, ndim=1)


def _radii(points: np.ndarray, center: np.ndarray | None) -> np.ndarray:
    pts = np.asarray(points, dtype=np.float64)
    if pts.ndim != 2:
        raise ValueError(f"points must have shape (B, D), got shape {pts.shape}")
    if center is None:
        return np.linalg.norm(pts, axis=1)
    if center.shape[0] != pts.shape[1]:
        raise ValueError(
            f"points have D={pts.shape[1]} but the model's center has {center.shape[0]}"
        )
    return np.linalg.norm(pts - center, axis=1)


def disk_model(*, radius: float = 1.0, center: Any = None) -> Callable[[np.ndarray], np.ndarray]:
    """Accepts the closed ball ``|z - center| <= radius`` (``center`` None: the origin)."""
    r = check_float(radius, "radius", minimum=0.0, min_inclusive=False)
    c = _center(center)

    def f(points: np.ndarray) -> np.ndarray:
        return (_radii(points, c) <= r).astype(np.float64)

    return f


def annulus_model(
    *, inner: float = 1.0, outer: float = 2.0, center: Any = None
) -> Callable[[np.ndarray], np.ndarray]:
    """Accepts the closed shell ``inner <= |z - center| <= outer``."""
    a = check_float(inner, "inner", minimum=0.0)
    b = check_float(outer, "outer", minimum=0.0, min_inclusive=False)
    if b <= a:
        raise ValueError(f"outer must exceed inner, got inner={a!r}, outer={b!r}")
    c = _center(center)

    def f(points: np.ndarray) -> np.ndarray:
        rad = _radii(points, c)
        return ((rad >= a) & (rad <= b)).astype(np.float64)

    return f


def pocket_model(
    *, radius: float = 1.0, pocket: float = 0.3, center: Any = None, pocket_center: Any = None
) -> Callable[[np.ndarray], np.ndarray]:
    """The ball of ``radius`` minus the open ball of radius ``pocket`` around ``pocket_center``
    (default: the same centre) - a model hole the data need not have."""
    r = check_float(radius, "radius", minimum=0.0, min_inclusive=False)
    p = check_float(pocket, "pocket", minimum=0.0, min_inclusive=False)
    c = _center(center)
    pc = _center(pocket_center, "pocket_center")
    if pc is None:
        pc = c

    def f(points: np.ndarray) -> np.ndarray:
        return ((_radii(points, c) <= r) & (_radii(points, pc) >= p)).astype(np.float64)

    return f


def balls_model(centers: Any, radii: Any) -> Callable[[np.ndarray], np.ndarray]:
    """Accepts the union of closed balls ``|z - centers[k]| <= radii[k]``."""
    cs = check_array(centers, "centers", ndim=2)
    rs = check_array(radii, "radii", ndim=1)
    if rs.shape[0] != cs.shape[0]:
        raise ValueError(
            f"radii must have one entry per centre: {cs.shape[0]} centres, {rs.shape[0]} radii"
        )
    if np.any(rs <= 0):
        raise ValueError("radii must be positive")

    def f(points: np.ndarray) -> np.ndarray:
        pts = np.asarray(points, dtype=np.float64)
        if pts.ndim != 2 or pts.shape[1] != cs.shape[1]:
            raise ValueError(f"points must have shape (B, {cs.shape[1]}), got {pts.shape}")
        d = np.linalg.norm(pts[:, None, :] - cs[None, :, :], axis=2)
        return np.any(d <= rs[None, :], axis=1).astype(np.float64)

    return f


def circle_points(n: int, *, radius: float = 1.0, phase: float = 0.0) -> np.ndarray:
    """``n`` evenly spaced points on the circle of ``radius`` in the plane, ``(n, 2)``."""
    n = check_int(n, "n", minimum=1)
    r = check_float(radius, "radius", minimum=0.0, min_inclusive=False)
    ph = check_float(phase, "phase")
    ang = ph + 2 * np.pi * np.arange(n) / n
    return r * np.stack([np.cos(ang), np.sin(ang)], axis=1)


def sample_annulus(
    n: int, *, inner: float = 1.0, outer: float = 2.0, rng: Any = None
) -> np.ndarray:
    """``n`` points uniform (by area) on the planar annulus ``inner <= |z| <= outer``."""
    n = check_int(n, "n", minimum=1)
    a = check_float(inner, "inner", minimum=0.0)
    b = check_float(outer, "outer", minimum=0.0, min_inclusive=False)
    if b <= a:
        raise ValueError(f"outer must exceed inner, got inner={a!r}, outer={b!r}")
    g = check_rng(rng)
    rad = np.sqrt(g.uniform(a * a, b * b, size=n))
    ang = g.uniform(0, 2 * np.pi, size=n)
    return np.stack([rad * np.cos(ang), rad * np.sin(ang)], axis=1)


def sample_disk(n: int, *, radius: float = 1.0, rng: Any = None) -> np.ndarray:
    """``n`` points uniform on the planar disk ``|z| <= radius``."""
    r = check_float(radius, "radius", minimum=0.0, min_inclusive=False)
    return sample_annulus(n, inner=0.0, outer=r, rng=rng)
