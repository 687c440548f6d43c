"""Erase / Replace stages on a tiny synthetic scene (fast) and at the paper-check scale (slow)."""

import numpy as np
import pytest
import ram3d
import torch


@pytest.fixture(scope="module")
def tiny():
    return ram3d.room_scene(n_train=4, n_test=1, H=16, W=16, res=16, sphere_radius=0.2)


def _kw(scene, **extra):
    return dict(near=scene.near, far=scene.far, n_samples=24, dilate_radius=1, **extra)


def _masked_psnrs(fields, cams, truth, masks, scene, n_samples=24):
    out = []
    with torch.no_grad():
        for c, t, m in zip(cams, truth, masks):
            r = ram3d.render_camera(fields, c, near=scene.near, far=scene.far, n_samples=n_samples)
            out.append(ram3d.masked_psnr(r.rgb.reshape(c.H, c.W, 3), t, m))
    return np.array(out)


def test_erase_fits_the_oracle_and_keeps_pixels_outside_d(tiny):
    field = ram3d.DenseGridField(12)
    before = _masked_psnrs(
        [field], tiny.train_cameras, tiny.train_backgrounds, tiny.train_masks, tiny
    )
    stage = ram3d.EraseStage(
        steps=60, lr=0.2, generator=torch.Generator().manual_seed(0), **_kw(tiny)
    )
    out = stage.fit(
        field,
        tiny.train_cameras,
        tiny.train_images,
        tiny.train_masks,
        ram3d.TargetOracle(tiny.train_backgrounds),
        "background",
    )
    assert out is field and len(stage.history) == 60
    assert np.mean(stage.history[-8:]) < 0.2 * np.mean(stage.history[:4])
    after = _masked_psnrs(
        [field], tiny.train_cameras, tiny.train_backgrounds, tiny.train_masks, tiny
    )
    assert after.mean() > before.mean() + 8
    cam, img, m = tiny.train_cameras[0], tiny.train_images[0], tiny.train_masks[0]
    d = ram3d.dilate(m, 1)
    comp, _ = ram3d.render_composite([field], cam, img, d, near=tiny.near, far=tiny.far)
    assert torch.equal(comp[~d], img[~d])  # bit-identical outside D


def test_replace_leaves_the_background_field_untouched(tiny):
    bg = ram3d.DenseGridField(8)
    snap = {k: v.clone() for k, v in bg.state_dict().items()}
    fg = ram3d.DenseGridField(8, aabb=((-0.3,) * 3, (0.3,) * 3))
    fg0 = fg.color.detach().clone()
    stage = ram3d.ReplaceStage(steps=6, lr=0.1, **_kw(tiny))
    stage.fit(
        fg,
        tiny.train_cameras,
        tiny.train_images,
        tiny.train_masks,
        bg,
        ram3d.TargetOracle(tiny.train_replaced),
        "a blue cube",
    )
    for k, v in bg.state_dict().items():
        assert torch.equal(v, snap[k])
    assert all(p.requires_grad for p in bg.parameters())  # restored after the fit
    assert not torch.equal(fg.color, fg0)


def test_background_augmentation_renders_the_foreground_alone():
    seen = []

    class Spy(ram3d.TargetOracle):
        def x0_estimate(self, image, mask, prompt, t, guidance=None, *, view=None):
            seen.append(image.detach().clone())
            return super().x0_estimate(image, mask, prompt, t, guidance, view=view)

    scene = ram3d.room_scene(n_train=2, n_test=0, H=8, W=8, res=8, sphere_radius=0.25)
    bg = ram3d.DenseGridField(4, init_density=50.0)
    fg = ram3d.DenseGridField(
        4, aabb=((-0.3,) * 3, (0.3,) * 3), activation="relu", init_density=0.0
    )
    kw = dict(near=scene.near, far=scene.far, n_samples=8, dilate_radius=0, steps=2, lr=1e-9)
    args = (fg, scene.train_cameras, scene.train_images, scene.train_masks, bg)
    ram3d.ReplaceStage(bg_aug_p=1.0, generator=torch.Generator().manual_seed(0), **kw).fit(
        *args, Spy(scene.train_replaced), "x"
    )
    m = scene.train_masks[0]
    # an empty foreground over a solid colour: one colour over the whole mask
    inside = seen[0][0].permute(1, 2, 0)[m]
    assert (inside - inside[0]).abs().max() < 1e-6
    seen.clear()
    ram3d.ReplaceStage(bg_aug_p=0.0, **kw).fit(*args, Spy(scene.train_replaced), "x")
    want, _ = ram3d.render_composite(
        [bg],
        scene.train_cameras[0],
        scene.train_images[0],
        m,
        near=scene.near,
        far=scene.far,
        n_samples=8,
    )
    assert (seen[0][0].permute(1, 2, 0) - want).abs().max() < 1e-6


def test_ram3d_end_to_end_with_oracles(tiny):
    prior = ram3d.PromptRouter(
        {
            "background": ram3d.TargetOracle(tiny.train_backgrounds),
            "a blue cube": ram3d.TargetOracle(tiny.train_replaced),
        }
    )
    pipe = ram3d.RAM3D(
        ram3d.MaskOracle(tiny.train_masks),
        prior,
        erase=ram3d.EraseStage(steps=20, lr=0.2, **_kw(tiny)),
        replace=ram3d.ReplaceStage(steps=20, lr=0.2, **_kw(tiny)),
        field_factory=lambda: ram3d.DenseGridField(8),
    )
    scene = pipe.run(tiny.train_cameras, tiny.train_images, "red sphere", "a blue cube")
    assert torch.equal(scene.masks, tiny.train_masks)
    view = scene.render_view(1)
    d = scene.dilated[1]
    assert torch.equal(view[~d], tiny.train_images[1][~d])
    assert view.shape == (16, 16, 3) and scene.render(tiny.test_cameras[0]).shape == (16, 16, 3)
    with pytest.raises(ValueError, match="prompt"):
        prior.x0_estimate(
            torch.zeros(1, 3, 16, 16), torch.zeros(1, 1, 16, 16), "a dog", 0.5, view=0
        )


def test_noisy_oracle_shifts_only_inside_the_mask():
    targets = torch.full((3, 5, 5, 3), 0.5)
    orc = ram3d.NoisyTargetOracle(targets, 0.2, generator=torch.Generator().manual_seed(0))
    mask = torch.zeros(1, 1, 5, 5)
    mask[..., 1:3, 2:4] = 1
    x = torch.zeros(1, 3, 5, 5)
    for v in range(3):
        z, z0, rgb_hat = orc.x0_estimate(x, mask, "p", 0.3, view=v)
        assert z is x and torch.equal(z0, rgb_hat)
        img = rgb_hat[0].permute(1, 2, 0)
        m = mask[0, 0].bool()
        assert torch.equal(img[~m], targets[v][~m])
        assert torch.allclose(img[m], 0.5 + orc.shifts[v], atol=1e-7)
    assert orc.shifts.std() > 0.05


def test_metrics():
    a = torch.zeros(4, 4, 3)
    b = torch.full((4, 4, 3), 0.1)
    assert ram3d.psnr(a, b) == pytest.approx(20.0)
    m = torch.zeros(4, 4, dtype=torch.bool)
    m[0, 0] = True
    b[0, 0] = 0.01
    assert ram3d.masked_psnr(a, b, m) == pytest.approx(40.0)
    ib = torch.tensor([[1.0, 0.0], [1.0, 0.0]])
    ia = torch.tensor([[0.0, 1.0], [1.0, 1.0]])
    s = ram3d.clip_direction_similarity(ib, ia, torch.tensor([1.0, 0.0]), torch.tensor([0.0, 1.0]))
    assert s[0].item() == pytest.approx(1.0)
    assert s[1].item() == pytest.approx(np.cos(np.pi / 8), abs=1e-9)
    assert ram3d.clip_direction_consistency(ib, ia)[0].item() == pytest.approx(np.cos(np.pi / 8))


def test_target_oracle_single_view_and_guidance_argument():
    target = torch.rand(4, 5, 3)
    orc = ram3d.TargetOracle(target)
    x = torch.zeros(1, 3, 4, 5, requires_grad=True)
    z, z0, rgb_hat = orc.x0_estimate(x, torch.ones(4, 5), "p", 0.7, 7.5)
    assert z is x and torch.equal(z0[0].permute(1, 2, 0), target) and torch.equal(z0, rgb_hat)
