"""The renderer against closed forms and a brute-force per-ray loop."""

import math

import numpy as np
import pytest
import ram3d
import torch


def _rays(n=7, seed=0):
    g = torch.Generator().manual_seed(seed)
    o = torch.rand(n, 3, generator=g, dtype=torch.float64) * 0.2 - 0.1
    d = torch.randn(n, 3, generator=g, dtype=torch.float64)
    return o, d / d.norm(dim=-1, keepdim=True)


def _grid_field(seed, res=8):
    g = torch.Generator().manual_seed(seed)
    f = ram3d.DenseGridField(res).double()
    with torch.no_grad():
        f.density.copy_(torch.randn(f.density.shape, generator=g, dtype=torch.float64) * 2)
        f.color.copy_(torch.randn(f.color.shape, generator=g, dtype=torch.float64))
    return f


def test_constant_slab_matches_closed_form_transmittance():
    # slab x in [0.5, 1.5] of density 3: bins of width 0.25 on [0, 2] put its faces on bin edges
    slab = ram3d.ConstantField(3.0, (0.2, 0.4, 0.6), aabb=((0.5, -9, -9), (1.5, 9, 9)))
    o = torch.zeros(1, 3, dtype=torch.float64)
    d = torch.tensor([[1.0, 0.0, 0.0]], dtype=torch.float64)
    out = ram3d.render(slab, o, d, near=0.0, far=2.0, n_samples=8, bg_color=(1.0, 1.0, 1.0))
    T = math.exp(-3.0 * 1.0)
    assert out.acc.item() == pytest.approx(1 - T, abs=1e-12)
    expect = (1 - T) * np.array([0.2, 0.4, 0.6]) + T * 1.0
    np.testing.assert_allclose(out.rgb[0].numpy(), expect, atol=1e-12)
    # expected distance: integral of t sigma T(t) dt over [0.5, 1.5], by quadrature of the bins
    t = 0.125 + 0.25 * np.arange(8)
    inside = (t > 0.5) & (t < 1.5)
    w = np.where(inside, np.exp(-3.0 * np.clip(t - 0.125 - 0.5, 0, 1)) * (1 - np.exp(-0.75)), 0)
    np.testing.assert_allclose(out.weights[0].numpy(), w, atol=1e-12)
    np.testing.assert_allclose(out.depth.item(), (w * t).sum(), atol=1e-12)


def test_slanted_ray_uses_the_ray_length():
    # a non-unit direction: optical depth is sigma * length, not sigma * t
    slab = ram3d.ConstantField(2.0)
    o = torch.zeros(1, 3, dtype=torch.float64)
    d = torch.tensor([[0.0, 3.0, 4.0]], dtype=torch.float64)  # |d| = 5
    out = ram3d.render(slab, o, d, near=0.0, far=0.1, n_samples=5)
    assert out.acc.item() == pytest.approx(1 - math.exp(-2.0 * 0.5), abs=1e-12)


def _brute_force(fields, o, d, near, far, n, bg):
    """One ray at a time, one sample at a time, python floats."""
    delta = (far - near) / n
    rgbs, accs, depths, ws = [], [], [], []
    for r in range(o.shape[0]):
        T, col, dep, acc, wr = 1.0, np.zeros(3), 0.0, 0.0, []
        for i in range(n):
            t = near + (i + 0.5) * delta
            x = (o[r] + t * d[r])[None]
            sig = 0.0
            c = np.zeros(3)
            for f in fields:
                with torch.no_grad():
                    s, rgb = f(x)
                sig += float(s[0])
                c += float(s[0]) * rgb[0].numpy()
            c = c / sig if sig > 0 else c
            a = 1 - math.exp(-sig * delta * float(d[r].norm()))
            w = T * a
            col += w * c
            dep += w * t
            acc += w
            wr.append(w)
            T *= 1 - a
        rgbs.append(col + (1 - acc) * np.asarray(bg))
        accs.append(acc)
        depths.append(dep)
        ws.append(wr)
    return np.array(rgbs), np.array(accs), np.array(depths), np.array(ws)


def test_two_fields_match_brute_force_compositing():
    fields = [_grid_field(1), _grid_field(2)]
    o, d = _rays()
    out = ram3d.render(fields, o, d, near=0.1, far=1.9, n_samples=16, bg_color=(0.3, 0.2, 0.1))
    rgb, acc, depth, w = _brute_force(fields, o, d, 0.1, 1.9, 16, (0.3, 0.2, 0.1))
    np.testing.assert_allclose(out.rgb.detach().numpy(), rgb, atol=1e-10)
    np.testing.assert_allclose(out.acc.detach().numpy(), acc, atol=1e-10)
    np.testing.assert_allclose(out.depth.detach().numpy(), depth, atol=1e-10)
    np.testing.assert_allclose(out.weights.detach().numpy(), w, atol=1e-10)
    assert ((out.acc >= 0) & (out.acc <= 1)).all()


def test_zero_density_foreground_leaves_the_background_render():
    bg = ram3d.DenseGridField(8)
    with torch.no_grad():
        bg.density.uniform_(-3, 5)
        bg.color.normal_()
    fg = ram3d.DenseGridField(8, activation="relu", init_density=0.0)
    with torch.no_grad():
        fg.color.normal_()
    o, d = _rays(50)
    a = ram3d.render([bg], o.float(), d.float(), near=0.0, far=2.0)
    b = ram3d.render([fg, bg], o.float(), d.float(), near=0.0, far=2.0)
    assert (a.rgb - b.rgb).abs().max() < 1e-6
    assert (a.acc - b.acc).abs().max() < 1e-6


def test_two_half_density_copies_equal_one_field():
    f = _grid_field(3)
    half = _grid_field(3)
    f.activation = half.activation = "relu"
    with torch.no_grad():
        half.density.mul_(0.5)
    o, d = _rays(40)
    one = ram3d.render(f, o, d, near=0.0, far=2.0, n_samples=32)
    two = ram3d.render([half, half], o, d, near=0.0, far=2.0, n_samples=32)
    for k in ("rgb", "depth", "acc", "weights"):
        assert (one[k] - two[k]).abs().max() < 1e-12


def test_opaque_wall_depth_and_opacity_bounds():
    wall = ram3d.ConstantField(1e4, aabb=((1.0, -5, -5), (5, 5, 5)))
    o = torch.zeros(3, 3)
    d = torch.tensor([[1.0, 0, 0], [1.0, 0, 0], [-1.0, 0, 0]])
    out = ram3d.render(wall, o, d, near=0.0, far=2.0, n_samples=200)
    assert out.acc[0] == 1.0 and out.acc[2] == 0.0  # [0, 1] exactly
    assert out.depth[0].item() == pytest.approx(1.005, abs=1e-3)  # first bin past x = 1
    assert ((out.weights >= 0) & (out.weights <= 1)).all()


def test_result_is_a_named_tuple_and_a_mapping():
    o, d = _rays(3)
    out = ram3d.render(ram3d.ConstantField(1.0), o, d, near=0.0, far=1.0, n_samples=4)
    rgb, depth, acc, weights = out
    assert (
        out["rgb"] is rgb
        and out.acc is acc
        and set(out.keys()) == {"rgb", "depth", "acc", "weights"}
    )
    assert rgb.shape == (3, 3) and depth.shape == (3,) and weights.shape == (3, 4)


def test_generator_stratifies_within_bins_reproducibly():
    f = _grid_field(4)
    o, d = _rays(20)
    kw = dict(near=0.0, far=2.0, n_samples=8)
    a = ram3d.render(f, o, d, generator=torch.Generator().manual_seed(5), **kw)
    b = ram3d.render(f, o, d, generator=torch.Generator().manual_seed(5), **kw)
    c = ram3d.render(f, o, d, **kw)
    assert torch.equal(a.rgb, b.rgb) and not torch.equal(a.rgb, c.rgb)
    # a constant field does not care where in the bin it is sampled
    slab = ram3d.ConstantField(0.7)
    s1 = ram3d.render(slab, o, d, generator=torch.Generator().manual_seed(1), **kw)
    s0 = ram3d.render(slab, o, d, **kw)
    assert (s1.acc - s0.acc).abs().max() < 1e-12


def test_gradients_reach_every_field():
    a, b = _grid_field(5), _grid_field(6)
    o, d = _rays(10)
    ram3d.render([a, b], o, d, near=0.0, far=2.0).rgb.sum().backward()
    assert a.density.grad.abs().sum() > 0 and b.color.grad.abs().sum() > 0


def test_grid_field_from_values_is_trilinear():
    g = torch.Generator().manual_seed(0)
    sigma = torch.rand(5, 5, 5, generator=g) * 4
    rgb = torch.rand(5, 5, 5, 3, generator=g) * 0.8 + 0.1
    f = ram3d.DenseGridField.from_values(sigma, rgb, aabb=((0, 0, 0), (4, 4, 4)))
    x = torch.tensor([[1.25, 2.5, 3.75], [0.0, 4.0, 2.0], [9.0, 1.0, 1.0]])
    s, c = f(x)

    def tri(v, p):
        i0 = np.floor(p).astype(int).clip(0, 3)
        fr = p - i0
        out = 0.0
        for dx in (0, 1):
            for dy in (0, 1):
                for dz in (0, 1):
                    w = (fr[0] if dx else 1 - fr[0]) * (fr[1] if dy else 1 - fr[1])
                    w *= fr[2] if dz else 1 - fr[2]
                    out = out + w * v[i0[0] + dx, i0[1] + dy, i0[2] + dz]
        return out

    for k in range(2):
        p = x[k].numpy().astype(float)
        assert s[k].item() == pytest.approx(float(tri(sigma.numpy(), p)), abs=1e-5)
        logit = tri(torch.logit(rgb).numpy(), p)
        np.testing.assert_allclose(c[k].detach().numpy(), 1 / (1 + np.exp(-logit)), atol=1e-5)
    assert s[2] == 0 and (c[2] == 0).all()  # outside the box


def test_scalar_aabb_is_a_cube():
    a = ram3d.DenseGridField(4, (-0.5, 0.5))
    assert torch.equal(a.aabb, torch.tensor([[-0.5] * 3, [0.5] * 3]))
    x = torch.tensor([[0.4, -0.4, 0.0], [0.6, 0.0, 0.0]])
    s, _ = a(x)
    assert s[0] > 0 and s[1] == 0
