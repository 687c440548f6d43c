"""Masks against brute force; compositing is bit-exact outside the mask."""

import numpy as np
import pytest
import ram3d
import torch


def _random_mask(seed, H=17, W=13, p=0.08):
    return np.random.default_rng(seed).random((H, W)) < p


def _brute_dilate(m, r):
    H, W = m.shape
    out = np.zeros_like(m)
    ys, xs = np.nonzero(m)
    for i in range(H):
        for j in range(W):
            out[i, j] = bool(((ys - i) ** 2 + (xs - j) ** 2 <= r * r).any())
    return out


@pytest.mark.parametrize("r", [0, 1, 2, 3, 5])
@pytest.mark.parametrize("seed", [0, 1])
def test_dilate_is_disk_dilation(seed, r):
    m = _random_mask(seed)
    got = ram3d.dilate(m, r)
    assert isinstance(got, np.ndarray) and got.dtype == bool
    np.testing.assert_array_equal(got, _brute_dilate(m, r))
    t = ram3d.dilate(torch.as_tensor(m), r)
    assert isinstance(t, torch.Tensor) and t.dtype == torch.bool
    np.testing.assert_array_equal(t.numpy(), got)


@pytest.mark.parametrize("r", [0, 1, 4])
def test_halo_partitions_the_dilated_mask(r):
    m = _random_mask(3)
    h = ram3d.halo(m, r)
    d = ram3d.dilate(m, r)
    assert not (h & m).any()
    np.testing.assert_array_equal(h | m, d)
    if r == 0:
        assert not h.any()


def test_bbox_crop():
    m = np.zeros((10, 12), dtype=bool)
    m[3:5, 4:9] = True
    assert ram3d.bbox_crop(m, 2) == (slice(1, 7), slice(2, 11))
    assert ram3d.bbox_crop(m, 100) == (slice(0, 10), slice(0, 12))
    with pytest.raises(ValueError, match="mask"):
        ram3d.bbox_crop(np.zeros((3, 3), dtype=bool))


def test_composite_is_bit_exact_outside_the_mask():
    rng = np.random.default_rng(0)
    image = rng.random((6, 5, 3))
    render = torch.rand(30, 3)
    mask = _random_mask(2, 6, 5, 0.4)
    out = ram3d.composite(render, image, mask)
    assert out.shape == (6, 5, 3)
    np.testing.assert_array_equal(out.numpy()[~mask], image[~mask])
    np.testing.assert_array_equal(out.numpy()[mask], render.reshape(6, 5, 3).double().numpy()[mask])


def test_render_composite_equals_composite_of_the_full_render():
    cam = ram3d.orbit_cameras(1, radius=0.7, H=12, W=10)[0]
    f = ram3d.DenseGridField(6)
    with torch.no_grad():
        f.density.uniform_(0, 3)
        f.color.normal_()
    image = torch.rand(12, 10, 3)
    region = torch.as_tensor(_random_mask(4, 12, 10, 0.3))
    kw = dict(near=0.1, far=2.0, n_samples=16)
    got, out = ram3d.render_composite([f], cam, image, region, **kw)
    full = ram3d.render_camera([f], cam, **kw)
    want = ram3d.composite(full, image, region)
    assert out.rgb.shape == (int(region.sum()), 3)
    assert (got - want).abs().max() < 1e-6
    assert torch.equal(got[~region], image[~region])
