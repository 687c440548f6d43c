"""The paper-scale checks of the brief (the default reproduce.py setting), held-out views."""

import pytest
import ram3d
import torch


@pytest.fixture(scope="module")
def scene():
    return ram3d.room_scene(n_train=16, n_test=4)


def _stage(scene, seed=0):
    return ram3d.EraseStage(
        steps=400,
        lr=0.2,
        dilate_radius=5,
        near=scene.near,
        far=scene.far,
        n_samples=scene.n_samples,
        generator=torch.Generator().manual_seed(seed),
    )


def _render(field, cam, scene):
    with torch.no_grad():
        out = ram3d.render_camera([field], cam, near=scene.near, far=scene.far)
    return out.rgb.reshape(cam.H, cam.W, 3)


@pytest.mark.slow
def test_erase_recovers_the_background_on_held_out_views(scene):
    field = ram3d.DenseGridField(32)
    _stage(scene).fit(
        field,
        scene.train_cameras,
        scene.train_images,
        scene.train_masks,
        ram3d.TargetOracle(scene.train_backgrounds),
        "background",
    )
    for cam, truth, m in zip(scene.test_cameras, scene.test_backgrounds, scene.test_masks):
        assert ram3d.masked_psnr(_render(field, cam, scene), truth, m) >= 25.0


@pytest.mark.slow
def test_distillation_averages_inconsistent_per_view_targets(scene):
    oracle = ram3d.NoisyTargetOracle(
        scene.train_backgrounds, 0.1, generator=torch.Generator().manual_seed(1)
    )
    field = ram3d.DenseGridField(32)
    _stage(scene).fit(
        field, scene.train_cameras, scene.train_images, scene.train_masks, oracle, "background"
    )
    shifts = torch.stack(
        [
            (_render(field, c, scene)[m] - b[m]).mean(0)
            for c, b, m in zip(scene.train_cameras, scene.train_backgrounds, scene.train_masks)
        ]
    )
    ratio = shifts.std(0).mean() / oracle.shifts.std(0).mean()
    assert ratio < 0.5
