"""Rays against an independent per-pixel construction and reprojection."""

import math

import numpy as np
import ram3d
import torch


def _cam(H=5, W=7):
    K = torch.tensor([[6.0, 0.0, W / 2], [0.0, 5.0, H / 2], [0.0, 0.0, 1.0]], dtype=torch.float64)
    c2w = ram3d.look_at(
        torch.tensor([1.0, -2.0, 0.5], dtype=torch.float64), (0.0, 0.2, 0.1), up=(0.0, 0.0, 1.0)
    )
    return ram3d.Camera(K, c2w, H, W)


def test_rays_match_a_per_pixel_loop():
    cam = _cam()
    o, d = ram3d.get_rays(cam)
    K = cam.K.numpy()
    R = cam.c2w[:3, :3].numpy()
    assert o.shape == (35, 3) and d.shape == (35, 3)
    for i in range(cam.H):
        for j in range(cam.W):
            x = ((j + 0.5) - K[0, 2]) / K[0, 0]
            y = ((i + 0.5) - K[1, 2]) / K[1, 1]
            v = R @ np.array([x, y, 1.0])
            np.testing.assert_allclose(d[i * cam.W + j].numpy(), v / np.linalg.norm(v), atol=1e-12)
            np.testing.assert_allclose(o[i * cam.W + j].numpy(), cam.c2w[:3, 3].numpy())
    np.testing.assert_allclose(d.norm(dim=-1).numpy(), 1.0, atol=1e-12)


def test_centre_pixel_looks_along_the_forward_axis():
    cam = _cam(5, 7)
    _, d = ram3d.get_rays(cam)
    np.testing.assert_allclose(d[2 * 7 + 3].numpy(), cam.forward.numpy(), atol=1e-12)
    # OpenCV axes: +x image right, +y image down
    assert d[2 * 7 + 6] @ cam.c2w[:3, 0] > 0 and d[4 * 7 + 3] @ cam.c2w[:3, 1] > 0


def test_points_on_rays_reproject_to_their_pixel():
    cam = _cam()
    o, d = ram3d.get_rays(cam)
    pts = o + 1.7 * d
    uv, z = ram3d.project(cam, pts)
    i, j = torch.meshgrid(torch.arange(cam.H), torch.arange(cam.W), indexing="ij")
    centres = torch.stack([j + 0.5, i + 0.5], dim=-1).reshape(-1, 2).double()
    np.testing.assert_allclose(uv.numpy(), centres.numpy(), atol=1e-9)
    assert (z > 0).all()
    # a known point: the pixel it falls in has the ray that passes nearest to it
    p = torch.tensor([[0.1, 0.15, 0.2]], dtype=torch.float64)
    uv_p, _ = ram3d.project(cam, p)
    u, v = uv_p[0].tolist()
    k = int(math.floor(v)) * cam.W + int(math.floor(u))
    dist = torch.linalg.cross(p - o, d).norm(dim=-1)
    assert int(dist.argmin()) == k


def test_select_rays_and_orbit():
    cam = _cam()
    mask = torch.zeros(5, 7, dtype=torch.bool)
    mask[1, 2] = mask[4, 6] = True
    o, d, idx = ram3d.select_rays(cam, mask)
    assert idx.tolist() == [1 * 7 + 2, 4 * 7 + 6]
    assert torch.equal(d, ram3d.get_rays(cam)[1][idx])
    cams = ram3d.orbit_cameras(4, radius=2.0, H=9, W=9)
    for c in cams:
        _, dd = ram3d.get_rays(c)
        centre = dd[4 * 9 + 4]
        np.testing.assert_allclose(centre.numpy(), (-c.center / c.center.norm()).numpy(), atol=1e-6)
