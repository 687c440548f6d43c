"""Pinhole cameras in OpenCV axes (x right, y down, z forward) and their rays."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import torch

from ._checks import check_float, check_int, describe
from ._validation import as_mask, as_tensor

__all__ = ["Camera", "get_rays", "look_at", "orbit_cameras", "project", "select_rays"]


@dataclass(frozen=True)
class Camera:
    """A pinhole camera: intrinsics ``K`` (3, 3), camera-to-world ``c2w`` (4, 4) in OpenCV axes
    (the camera looks along its +z axis, +x is image right, +y is image down), image size ``H`` x
    ``W``. Arrays are turned into tensors (float32 unless already floating)."""

    K: Any
    c2w: Any
    H: int
    W: int

    def __post_init__(self):
        K = as_tensor(self.K, "K", shape=(3, 3))
        c2w = as_tensor(self.c2w, "c2w", shape=(4, 4))
        H = check_int(self.H, "H", minimum=1)
        W = check_int(self.W, "W", minimum=1)
        if abs(float(torch.linalg.det(K.double()))) < 1e-12:
            raise ValueError("K must be invertible, got a singular matrix")
        R = c2w[:3, :3].double()
        if not torch.allclose(R.T @ R, torch.eye(3, dtype=R.dtype), atol=1e-4):
            raise ValueError("c2w must have an orthonormal rotation block c2w[:3, :3]")
        bottom = c2w[3].double()
        if not torch.allclose(bottom, torch.tensor([0.0, 0.0, 0.0, 1.0], dtype=bottom.dtype)):
            raise ValueError(f"c2w's last row must be (0, 0, 0, 1), got {bottom.tolist()}")
        object.__setattr__(self, "K", K)
        object.__setattr__(self, "c2w", c2w)
        object.__setattr__(self, "H", H)
        object.__setattr__(self, "W", W)

    @property
    def center(self) -> torch.Tensor:
        """The camera centre in world coordinates, (3,)."""
        return self.c2w[:3, 3]

    @property
    def forward(self) -> torch.Tensor:
        """The optical axis (camera +z) in world coordinates, (3,)."""
        return self.c2w[:3, 2]


def _check_camera(cam: Any, name: str = "cam") -> Camera:
    if not isinstance(cam, Camera):
        raise TypeError(f"{name} must be a ram3d.Camera, got {describe(cam)}")
    return cam


def get_rays(cam: Camera) -> tuple[torch.Tensor, torch.Tensor]:
    """Rays through every pixel centre, row-major: pixel (row i, column j) is ray ``i * W + j``,
    through image point (u, v) = (j + 0.5, i + 0.5). Returns ``(o, d)``, both (H*W, 3), with unit
    directions ``d``."""
    cam = _check_camera(cam)
    dtype = cam.c2w.dtype
    i, j = torch.meshgrid(
        torch.arange(cam.H, dtype=dtype), torch.arange(cam.W, dtype=dtype), indexing="ij"
    )
    pix = torch.stack([j + 0.5, i + 0.5, torch.ones_like(i)], dim=-1).reshape(-1, 3)
    d_cam = pix @ torch.linalg.inv(cam.K.to(dtype)).T
    d = d_cam @ cam.c2w[:3, :3].T
    d = d / d.norm(dim=-1, keepdim=True)
    o = cam.c2w[:3, 3].expand(d.shape[0], 3).clone()
    return o, d


def select_rays(cam: Camera, mask: Any) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """The rays of the pixels where ``mask`` (H, W) is true: ``(o, d, index)``, ``index`` the
    row-major pixel indices (so ``image.reshape(-1, 3)[index]`` are their pixels)."""
    cam = _check_camera(cam)
    m = as_mask(mask, "mask")
    if tuple(m.shape) != (cam.H, cam.W):
        raise ValueError(f"mask must have shape ({cam.H}, {cam.W}), got {tuple(m.shape)}")
    o, d = get_rays(cam)
    index = torch.nonzero(m.reshape(-1), as_tuple=False).reshape(-1)
    return o[index], d[index], index


def project(cam: Camera, points: Any) -> tuple[torch.Tensor, torch.Tensor]:
    """Project world points (n, 3) into ``cam``: ``(uv, z)``, ``uv`` (n, 2) continuous pixel
    coordinates (u along columns, v along rows; pixel (i, j) covers [j, j+1) x [i, i+1)) and ``z``
    (n,) the depth along the optical axis."""
    cam = _check_camera(cam)
    p = as_tensor(points, "points", ndim=2, shape=(None, 3), dtype=cam.c2w.dtype)
    R = cam.c2w[:3, :3]
    t = cam.c2w[:3, 3]
    pc = (p - t) @ R  # world -> camera: R^T (p - t)
    z = pc[:, 2]
    uvw = pc @ cam.K.to(p.dtype).T
    return uvw[:, :2] / uvw[:, 2:3], z


def look_at(eye: Any, target: Any, *, up: Any = (0.0, 0.0, 1.0)) -> torch.Tensor:
    """The (4, 4) OpenCV camera-to-world matrix of a camera at ``eye`` looking at ``target``,
    image-up as close to world ``up`` as possible (so camera +y, image down, is along -up)."""
    e = as_tensor(eye, "eye", shape=(3,))
    tg = as_tensor(target, "target", shape=(3,), dtype=e.dtype)
    u = as_tensor(up, "up", shape=(3,), dtype=e.dtype)
    z = tg - e
    if float(z.norm()) == 0.0:
        raise ValueError("target must differ from eye")
    z = z / z.norm()
    x = torch.linalg.cross(z, -u)
    if float(x.norm()) < 1e-8:
        raise ValueError("up must not be parallel to the viewing direction")
    x = x / x.norm()
    y = torch.linalg.cross(z, x)
    c2w = torch.eye(4, dtype=e.dtype)
    c2w[:3, 0], c2w[:3, 1], c2w[:3, 2], c2w[:3, 3] = x, y, z, e
    return c2w


def orbit_cameras(
    n: int,
    *,
    radius: float = 0.75,
    height: float = 0.0,
    H: int = 48,
    W: int = 48,
    fov_deg: float = 60.0,
    target: Any = (0.0, 0.0, 0.0),
    phase: float = 0.0,
) -> list[Camera]:
    """``n`` cameras evenly spaced on a horizontal circle (world z up), all looking at
    ``target``, with a square-pixel pinhole of horizontal field of view ``fov_deg``."""
    n = check_int(n, "n", minimum=1)
    radius = check_float(radius, "radius", minimum=0.0, min_inclusive=False)
    height = check_float(height, "height")
    H = check_int(H, "H", minimum=1)
    W = check_int(W, "W", minimum=1)
    fov = check_float(
        fov_deg, "fov_deg", minimum=0.0, maximum=180.0, min_inclusive=False, max_inclusive=False
    )
    phase = check_float(phase, "phase")
    f = 0.5 * W / math.tan(math.radians(fov) / 2)
    K = torch.tensor([[f, 0.0, W / 2], [0.0, f, H / 2], [0.0, 0.0, 1.0]])
    cams = []
    for k in range(n):
        a = phase + 2 * math.pi * k / n
        eye = (radius * math.cos(a), radius * math.sin(a), height)
        cams.append(Camera(K, look_at(eye, target), H, W))
    return cams
