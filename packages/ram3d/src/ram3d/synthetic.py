"""A small synthetic scene with a known ground truth: a box room with smoothly coloured walls,
a red sphere (the object to erase) and a blue cube (its replacement), seen by cameras on a
circle inside the room. Every image is rendered with this package's own renderer."""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from ._checks import check_float, check_int
from .cameras import Camera, get_rays, orbit_cameras
from .fields import DenseGridField
from .render import render

__all__ = ["RoomScene", "room_scene"]


@dataclass(frozen=True)
class RoomScene:
    """Ground truth of :func:`room_scene`. Image stacks are (N, H, W, 3), masks (N, H, W)."""

    room: DenseGridField
    sphere: DenseGridField
    cube: DenseGridField
    train_cameras: list[Camera]
    test_cameras: list[Camera]
    train_images: torch.Tensor  # room + sphere
    train_backgrounds: torch.Tensor  # room alone: the erase target
    train_replaced: torch.Tensor  # room + cube: the replace target
    train_masks: torch.Tensor  # where the sphere shows
    test_images: torch.Tensor
    test_backgrounds: torch.Tensor
    test_replaced: torch.Tensor
    test_masks: torch.Tensor
    test_cube_masks: torch.Tensor  # where the cube shows
    near: float
    far: float
    n_samples: int


def _grid(res: int, lo: float, hi: float) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    a = torch.linspace(lo, hi, res)
    return torch.meshgrid(a, a, a, indexing="ij")


def _room(res: int, density: float) -> DenseGridField:
    x, y, z = _grid(res, -1.0, 1.0)
    wall = torch.maximum(torch.maximum(x.abs(), y.abs()), z.abs()) >= 0.85
    sigma = torch.where(wall, density, 0.0)
    rgb = torch.stack(
        [
            0.5 + 0.35 * torch.sin(2.5 * x + 1.5 * z + 0.3),
            0.5 + 0.35 * torch.sin(2.0 * y - 1.7 * x + 1.1),
            0.5 + 0.35 * torch.cos(1.8 * z + 2.2 * y - 0.4),
        ],
        dim=-1,
    )
    return DenseGridField.from_values(sigma, rgb)


def _solid(res: int, inside: torch.Tensor, color, density: float, half: float) -> DenseGridField:
    sigma = torch.where(inside, density, 0.0)
    rgb = torch.tensor(color).expand(res, res, res, 3).clone()
    return DenseGridField.from_values(sigma, rgb, aabb=((-half,) * 3, (half,) * 3))


def _renders(fields, cams, near, far, n_samples):
    out = []
    with torch.no_grad():
        for c in cams:
            o, d = get_rays(c)
            r = render(fields, o, d, near=near, far=far, n_samples=n_samples)
            out.append((r.rgb.reshape(c.H, c.W, 3), r.acc.reshape(c.H, c.W)))
    return torch.stack([a for a, _ in out]), torch.stack([b for _, b in out])


def room_scene(
    *,
    n_train: int = 12,
    n_test: int = 4,
    H: int = 48,
    W: int = 48,
    res: int = 48,
    sphere_radius: float = 0.15,
    cube_half: float = 0.085,
    n_samples: int = 64,
    mask_threshold: float = 0.01,
) -> RoomScene:
    """Build the scene: ``n_train`` training and ``n_test`` held-out cameras (offset by half
    the training spacing) on a circle of radius 0.7, 0.15 above the sphere's centre, 60 degree
    field of view; walls at |coordinate| >= 0.85 of the [-1, 1]^3 room (grid ``res``^3). Masks
    are the pixels where the sphere's (cube's) own opacity exceeds ``mask_threshold``."""
    n_train = check_int(n_train, "n_train", minimum=1)
    n_test = check_int(n_test, "n_test", minimum=0)
    res = check_int(res, "res", minimum=8)
    sphere_radius = check_float(sphere_radius, "sphere_radius", minimum=0.02, maximum=0.3)
    cube_half = check_float(cube_half, "cube_half", minimum=0.01, maximum=0.3)
    mask_threshold = check_float(
        mask_threshold, "mask_threshold", minimum=0.0, maximum=1.0, min_inclusive=False
    )
    near, far = 0.4, 2.2  # near 0.4: no samples in the cameras' vicinity, where floaters cheat
    room = _room(res, 80.0)
    half = 0.3
    sres = 25
    x, y, z = _grid(sres, -half, half)
    sphere = _solid(
        sres, (x * x + y * y + z * z).sqrt() <= sphere_radius, (0.85, 0.1, 0.1), 80.0, half
    )
    box = torch.maximum(torch.maximum(x.abs(), y.abs()), z.abs()) <= cube_half
    cube = _solid(sres, box, (0.1, 0.25, 0.9), 80.0, half)
    kw = dict(radius=0.7, height=0.15, H=H, W=W, fov_deg=60.0)
    train = orbit_cameras(n_train, **kw)
    test = orbit_cameras(n_test, phase=math.pi / n_train, **kw) if n_test else []

    def views(cams):
        if not cams:
            e = torch.zeros(0, H, W, 3)
            return (
                e,
                e,
                e,
                torch.zeros(0, H, W, dtype=torch.bool),
                torch.zeros(0, H, W, dtype=torch.bool),
            )
        img, _ = _renders([room, sphere], cams, near, far, n_samples)
        bg, _ = _renders([room], cams, near, far, n_samples)
        rep, _ = _renders([room, cube], cams, near, far, n_samples)
        _, acc_s = _renders([sphere], cams, near, far, n_samples)
        _, acc_c = _renders([cube], cams, near, far, n_samples)
        return img, bg, rep, acc_s > mask_threshold, acc_c > mask_threshold

    ti, tb, tr, tm, _ = views(train)
    vi, vb, vr, vm, vc = views(test)
    return RoomScene(
        room, sphere, cube, train, test, ti, tb, tr, tm, vi, vb, vr, vm, vc, near, far, n_samples
    )
