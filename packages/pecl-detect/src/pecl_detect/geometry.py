"""Oriented boxes ``(cx, cy, w, h, theta)``: corners, the box of a quadrilateral, exact IoU.

Convention: ``w`` is measured along the unit vector ``(cos theta, sin theta)`` and ``h`` along
``(-sin theta, cos theta)``; ``theta`` in radians. The IoU is exact (up to floating point): the
intersection of two convex quadrilaterals is the convex polygon spanned by the corners of each
box inside the other and the pairwise edge crossings, ordered by angle and measured with the
shoelace formula. The result equals Sutherland-Hodgman clipping of one box by the other.
"""

from __future__ import annotations

import numpy as np

from ._checks import check_array

__all__ = ["enlarge_obb", "obb_iou", "obb_to_poly", "poly_to_obb"]

# corner offsets in the box frame (counter-clockwise for a y-up frame)
_CORNERS = np.array([[-0.5, -0.5], [0.5, -0.5], [0.5, 0.5], [-0.5, 0.5]])


def _check_obb(value, name: str) -> np.ndarray:
    arr = check_array(value, name, ndim=(1, 2), shape=None)
    if arr.shape[-1] != 5:
        raise ValueError(f"{name} must have 5 columns (cx, cy, w, h, theta), got shape {arr.shape}")
    if np.any(arr[..., 2:4] < 0):
        raise ValueError(f"{name} widths and heights must be >= 0, got {arr[..., 2:4].min()}")
    return arr


def _corners(obb: np.ndarray) -> np.ndarray:
    cx, cy, w, h, t = (obb[..., k] for k in range(5))
    c, s = np.cos(t), np.sin(t)
    dx = _CORNERS[:, 0] * w[..., None]  # (..., 4) offsets along w
    dy = _CORNERS[:, 1] * h[..., None]  # along h
    x = cx[..., None] + dx * c[..., None] - dy * s[..., None]
    y = cy[..., None] + dx * s[..., None] + dy * c[..., None]
    return np.stack([x, y], axis=-1)


def obb_to_poly(obb) -> np.ndarray:
    """Corners of oriented boxes: ``(5,)`` -> ``(4, 2)``, ``(n, 5)`` -> ``(n, 4, 2)``.

    Order: ``c - w/2 u - h/2 v``, ``c + w/2 u - h/2 v``, ``c + w/2 u + h/2 v``,
    ``c - w/2 u + h/2 v`` with ``u = (cos theta, sin theta)``, ``v = (-sin theta, cos theta)``;
    the first edge runs along ``w``.
    """
    return _corners(_check_obb(obb, "obb"))


def _wrap(theta: float) -> float:
    """theta modulo pi into [-pi/2, pi/2) (a box is unchanged by a half turn)."""
    return float((theta + np.pi / 2) % np.pi - np.pi / 2)


def _hull(points: np.ndarray) -> np.ndarray:
    """Convex hull (Andrew's monotone chain), counter-clockwise, no repeated point."""
    pts = sorted(set(map(tuple, points.tolist())))
    if len(pts) <= 2:
        return np.array(pts, dtype=float)

    def cross(o, a, b):
        return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])

    lower: list = []
    for p in pts:
        while len(lower) >= 2 and cross(lower[-2], lower[-1], p) <= 0:
            lower.pop()
        lower.append(p)
    upper: list = []
    for p in reversed(pts):
        while len(upper) >= 2 and cross(upper[-2], upper[-1], p) <= 0:
            upper.pop()
        upper.append(p)
    return np.array(lower[:-1] + upper[:-1], dtype=float)


def _one_poly_to_obb(p: np.ndarray) -> np.ndarray:
    # candidate directions: the input's own edges first (so a rectangle keeps w along p0->p1),
    # then the hull's edges (the minimum-area rectangle is flush with one of them)
    edges = [p[(k + 1) % len(p)] - p[k] for k in range(len(p))]
    hull = _hull(p)
    edges += [hull[(k + 1) % len(hull)] - hull[k] for k in range(len(hull))]
    best = None
    for e in edges:
        n = float(np.hypot(*e))
        if n == 0.0:
            continue
        u = e / n
        v = np.array([-u[1], u[0]])
        a, b = p @ u, p @ v
        area = (a.max() - a.min()) * (b.max() - b.min())
        if best is None or area < best[0] * (1 - 1e-9) - 1e-12:
            best = (area, u, v, a, b)
    if best is None:  # all four points coincide
        return np.array([p[0, 0], p[0, 1], 0.0, 0.0, 0.0])
    _, u, v, a, b = best
    ca, cb = (a.max() + a.min()) / 2, (b.max() + b.min()) / 2
    centre = ca * u + cb * v
    theta = _wrap(float(np.arctan2(u[1], u[0])))
    return np.array([centre[0], centre[1], a.max() - a.min(), b.max() - b.min(), theta])


def poly_to_obb(poly) -> np.ndarray:
    """The minimum-area oriented box of quadrilaterals: ``(4, 2)`` or ``(8,)`` -> ``(5,)``;
    ``(n, 4, 2)`` or ``(n, 8)`` -> ``(n, 5)``.

    For a rectangle given in order (any start, either orientation) ``w`` lies along its first
    edge ``p0 -> p1``; ``theta`` is returned in ``[-pi/2, pi/2)``, so
    ``poly_to_obb(obb_to_poly(b))`` is ``b`` with ``theta`` taken modulo pi.
    """
    arr = check_array(poly, "poly", ndim=(1, 2, 3))
    if arr.ndim == 1 or (arr.ndim == 2 and arr.shape[-1] == 8):
        single = arr.ndim == 1
        if arr.shape[-1] != 8:
            raise ValueError(f"poly must hold 8 coordinates or (4, 2) corners, got {arr.shape}")
        arr = arr.reshape(-1, 4, 2)
    elif arr.ndim == 2:
        single = True
        if arr.shape != (4, 2):
            raise ValueError(f"poly must hold 8 coordinates or (4, 2) corners, got {arr.shape}")
        arr = arr[None]
    else:
        single = False
        if arr.shape[1:] != (4, 2):
            raise ValueError(f"poly must have shape (n, 4, 2), got {arr.shape}")
    out = np.stack([_one_poly_to_obb(p) for p in arr])
    return out[0] if single else out


def _area(poly: np.ndarray) -> np.ndarray:
    x, y = poly[..., 0], poly[..., 1]
    return 0.5 * np.abs(np.sum(x * np.roll(y, -1, -1) - np.roll(x, -1, -1) * y, axis=-1))


def _inside(pts: np.ndarray, quad: np.ndarray, eps: np.ndarray) -> np.ndarray:
    """pts (..., k, 2) inside the convex ccw quads (..., 4, 2) (boundary included)."""
    a = quad[..., None, :, :]  # (..., 1, 4, 2)
    b = np.roll(quad, -1, axis=-2)[..., None, :, :]
    p = pts[..., :, None, :]  # (..., k, 1, 2)
    cr = (b[..., 0] - a[..., 0]) * (p[..., 1] - a[..., 1]) - (b[..., 1] - a[..., 1]) * (
        p[..., 0] - a[..., 0]
    )
    return np.all(cr >= -eps[..., None, None], axis=-1)


def _intersection_area(pa: np.ndarray, pb: np.ndarray) -> np.ndarray:
    """Area of the intersection of convex ccw quadrilaterals pa, pb (broadcast (..., 4, 2))."""
    pa, pb = np.broadcast_arrays(pa, pb)
    scale = np.maximum(np.abs(pa).max(axis=(-1, -2)), np.abs(pb).max(axis=(-1, -2)))
    eps = 1e-9 * np.maximum(scale, 1.0) ** 2
    in_a = _inside(pa, pb, eps)  # corners of a inside b
    in_b = _inside(pb, pa, eps)
    # edge crossings: a's edge i with b's edge j
    a0 = pa[..., :, None, :]
    a1 = np.roll(pa, -1, axis=-2)[..., :, None, :]
    b0 = pb[..., None, :, :]
    b1 = np.roll(pb, -1, axis=-2)[..., None, :, :]
    da, db = a1 - a0, b1 - b0
    den = da[..., 0] * db[..., 1] - da[..., 1] * db[..., 0]
    w = b0 - a0
    with np.errstate(divide="ignore", invalid="ignore"):
        t = (w[..., 0] * db[..., 1] - w[..., 1] * db[..., 0]) / den
        s = (w[..., 0] * da[..., 1] - w[..., 1] * da[..., 0]) / den
    ok = (den != 0) & (t >= 0) & (t <= 1) & (s >= 0) & (s <= 1)
    cross = a0 + np.where(ok, t, 0.0)[..., None] * da
    lead = pa.shape[:-2]
    pts = np.concatenate([pa, pb, cross.reshape(*lead, 16, 2)], axis=-2)  # (..., 24, 2)
    valid = np.concatenate([in_a, in_b, ok.reshape(*lead, 16)], axis=-1)
    n = valid.sum(axis=-1)
    centre = np.where(valid[..., None], pts, 0.0).sum(axis=-2) / np.maximum(n, 1)[..., None]
    rel = pts - centre[..., None, :]
    ang = np.where(valid, np.arctan2(rel[..., 1], rel[..., 0]), np.inf)
    order = np.argsort(ang, axis=-1, kind="stable")
    srt = np.take_along_axis(pts, order[..., None], axis=-2)
    vsrt = np.take_along_axis(valid, order, axis=-1)
    # invalid points (sorted last) collapse onto the first point: zero-area segments
    srt = np.where(vsrt[..., None], srt, srt[..., :1, :])
    area = _area(srt)
    return np.where(n >= 3, area, 0.0)


def obb_iou(a, b) -> np.ndarray | float:
    """Exact intersection-over-union of oriented boxes.

    ``a`` is ``(5,)`` or ``(n, 5)``, ``b`` is ``(5,)`` or ``(m, 5)``; the result has shape
    ``a.shape[:-1] + b.shape[:-1]``: a float for two boxes, ``(n, m)`` for all pairs. Two boxes
    of zero area have IoU 0.
    """
    a = _check_obb(a, "a")
    b = _check_obb(b, "b")
    pa = _corners(a.reshape(-1, 5))  # (n, 4, 2) ccw since w, h >= 0
    pb = _corners(b.reshape(-1, 5))
    inter = _intersection_area(pa[:, None], pb[None, :])  # (n, m)
    area_a = a.reshape(-1, 5)[:, 2] * a.reshape(-1, 5)[:, 3]
    area_b = b.reshape(-1, 5)[:, 2] * b.reshape(-1, 5)[:, 3]
    union = area_a[:, None] + area_b[None, :] - inter
    with np.errstate(divide="ignore", invalid="ignore"):
        iou = np.where(union > 0, inter / np.where(union > 0, union, 1.0), 0.0)
    iou = np.clip(iou, 0.0, 1.0)  # floating-point round-off only
    out = iou.reshape(a.shape[:-1] + b.shape[:-1])
    return float(out) if out.ndim == 0 else out


def enlarge_obb(obb, *, w_scale=1.2, h_scale=1.4) -> np.ndarray:
    """Boxes with ``w`` and ``h`` scaled about their centre (the release's enlarged rotated
    RoI for the re-scored probability: ``w x 1.2``, ``h x 1.4``)."""
    from ._checks import check_float

    arr = _check_obb(obb, "obb").copy()
    arr[..., 2] *= check_float(w_scale, "w_scale", minimum=0.0, min_inclusive=False)
    arr[..., 3] *= check_float(h_scale, "h_scale", minimum=0.0, min_inclusive=False)
    return arr
