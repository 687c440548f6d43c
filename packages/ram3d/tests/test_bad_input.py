"""Bad input gets a TypeError (wrong type) or ValueError (wrong value) naming the argument.

One case per public argument, by kind (see ``papershelf_harness.suite``); ``call(value)`` feeds
``value`` as the argument ``name`` with every other argument valid. Plain tests below cover the
rules the kinds do not (tensor-only arguments, modules, cameras, priors, ranges of images).
"""

import numpy as np
import pytest
import ram3d
import torch
from hypothesis import strategies as st

from papershelf_harness import suite
from papershelf_harness.suite import Array, Int, Mismatch, Number, Option, OutOfRange, keyword
from papershelf_harness.testing import assert_rejects

K = np.array([[10.0, 0, 4], [0, 10.0, 3], [0, 0, 1]])
C2W = np.eye(4)
CAM = ram3d.Camera(K, C2W, 6, 8)
O = np.zeros((4, 3))
D = np.tile([0.0, 0.0, 1.0], (4, 1))
FIELD = ram3d.ConstantField(1.0)
IMG = np.full((6, 8, 3), 0.5)
MASK = np.zeros((6, 8), dtype=bool)
MASK[2:4, 3:5] = True
IMAGES = np.full((1, 6, 8, 3), 0.5)
MASKS = MASK[None]
ORACLE = ram3d.TargetOracle(IMAGES)
RENDER_KW = dict(near=0.1, far=2.0, n_samples=4)
STAGE_KW = dict(steps=1, lr=0.1, dilate_radius=1, near=0.1, far=2.0, n_samples=4)


def _floats(lo=None, hi=None):
    return st.floats(min_value=lo, max_value=hi, allow_nan=False, allow_infinity=False)


def render(**kw):
    args = dict(o=O, d=D, **RENDER_KW)
    args.update(kw)
    return ram3d.render(FIELD, args.pop("o"), args.pop("d"), **args)


def erase(**kw):
    args = dict(images=IMAGES, masks=MASKS)
    args.update(kw)
    field = ram3d.DenseGridField(4)
    return ram3d.EraseStage(**STAGE_KW).fit(
        field, [CAM], args["images"], args["masks"], ORACLE, "background"
    )


def anneal(**kw):
    args = dict(step=3, total=10, t_min=0.1, t_max=0.9)
    args.update(kw)
    return ram3d.anneal_t(args.pop("step"), args.pop("total"), **args)


CASES = [
    # --- cameras
    Array("Camera.K", "K", lambda v: ram3d.Camera(v, C2W, 6, 8), (3, 3), ndims=(2,)),
    Array("Camera.c2w", "c2w", lambda v: ram3d.Camera(K, v, 6, 8), (4, 4), ndims=(2,)),
    Int("Camera.H", "H", lambda v: ram3d.Camera(K, C2W, v, 8), minimum=1),
    Int("Camera.W", "W", lambda v: ram3d.Camera(K, C2W, 6, v), minimum=1),
    Mismatch("Camera.K.singular", "K", lambda: ram3d.Camera(np.zeros((3, 3)), C2W, 6, 8)),
    Mismatch("Camera.c2w.scaled", "c2w", lambda: ram3d.Camera(K, 2 * np.eye(4), 6, 8)),
    Array("select_rays.mask", "mask", lambda v: ram3d.select_rays(CAM, v), (6, 8), ndims=(2,)),
    Mismatch("select_rays.mask", "mask", lambda: ram3d.select_rays(CAM, np.ones((5, 8), bool))),
    Array("project.points", "points", lambda v: ram3d.project(CAM, v), (2, 3), ndims=(2,)),
    Array("look_at.eye", "eye", lambda v: ram3d.look_at(v, (0, 0, 0)), (3,), ndims=(1,)),
    Array("look_at.target", "target", lambda v: ram3d.look_at((1, 0, 0), v), (3,), ndims=(1,)),
    Mismatch("look_at.target", "target", lambda: ram3d.look_at((1, 0, 0), (1, 0, 0))),
    Mismatch("look_at.up", "up", lambda: ram3d.look_at((1, 0, 0), (0, 0, 0), up=(1, 0, 0))),
    Int("orbit_cameras.n", "n", lambda v: ram3d.orbit_cameras(v), minimum=1),
    keyword(Number, ram3d.orbit_cameras, "radius", 2),
    keyword(OutOfRange, ram3d.orbit_cameras, "radius", 2, values=_floats(hi=0.0)),
    keyword(Number, ram3d.orbit_cameras, "fov_deg", 2),
    keyword(OutOfRange, ram3d.orbit_cameras, "fov_deg", 2, values=_floats(lo=180.0, hi=1e6)),
    # --- fields
    Int("DenseGridField.res", "res", lambda v: ram3d.DenseGridField(v), minimum=2),
    Array(
        "DenseGridField.aabb", "aabb", lambda v: ram3d.DenseGridField(4, v), (2, 3), ndims=(1, 2)
    ),
    Mismatch(
        "DenseGridField.aabb", "aabb", lambda: ram3d.DenseGridField(4, [[0, 0, 0], [1, 0, 1]])
    ),
    keyword(Number, ram3d.DenseGridField, "init_density", 4),
    keyword(OutOfRange, ram3d.DenseGridField, "init_density", 4, values=_floats(hi=0.0)),
    keyword(Option, ram3d.DenseGridField, "activation", 4, valid=frozenset(("softplus", "relu"))),
    Array(
        "DenseGridField.from_values.sigma",
        "sigma",
        lambda v: ram3d.DenseGridField.from_values(v, np.full((2, 2, 2, 3), 0.5)),
        (2, 2, 2),
        ndims=(3,),
    ),
    Array(
        "DenseGridField.from_values.rgb",
        "rgb",
        lambda v: ram3d.DenseGridField.from_values(np.ones((2, 2, 2)), v),
        (2, 2, 2, 3),
        ndims=(4,),
    ),
    Mismatch(
        "from_values.rgb.range",
        "rgb",
        lambda: ram3d.DenseGridField.from_values(np.ones((2, 2, 2)), np.ones((2, 2, 2, 3))),
    ),
    Mismatch(
        "from_values.sigma.negative",
        "sigma",
        lambda: ram3d.DenseGridField.from_values(-np.ones((2, 2, 2)), np.full((2, 2, 2, 3), 0.5)),
    ),
    Number("ConstantField.sigma", "sigma", lambda v: ram3d.ConstantField(v)),
    OutOfRange("ConstantField.sigma", "sigma", lambda v: ram3d.ConstantField(v), _floats(hi=-1e-9)),
    Array("ConstantField.rgb", "rgb", lambda v: ram3d.ConstantField(1.0, v), (3,), ndims=(1,)),
    Int("MLPField.hidden", "hidden", lambda v: ram3d.MLPField(v), minimum=1),
    Int("MLPField.n_layers", "n_layers", lambda v: ram3d.MLPField(4, v), minimum=1),
    Int("MLPField.n_freqs", "n_freqs", lambda v: ram3d.MLPField(4, 1, v), minimum=0),
    # --- render
    Array("render.o", "o", lambda v: render(o=v), (4, 3), ndims=(2,), empty_ok=True),
    Array("render.d", "d", lambda v: render(d=v), (4, 3), ndims=(2,), empty_ok=True),
    Mismatch("render.d", "d", lambda: render(d=np.ones((3, 3)))),
    Mismatch("render.d.width", "d", lambda: render(d=np.ones((4, 2)))),
    Number("render.near", "near", lambda v: render(near=v)),
    OutOfRange("render.near", "near", lambda v: render(near=v), _floats(hi=-1e-9)),
    Number("render.far", "far", lambda v: render(far=v)),
    OutOfRange("render.far", "far", lambda v: render(far=v), _floats(hi=0.1)),
    Int("render.n_samples", "n_samples", lambda v: render(n_samples=v), minimum=1),
    Array(
        "render.bg_color",
        "bg_color",
        lambda v: render(bg_color=v),
        (3,),
        ndims=(1, 2),
        none_ok=True,
    ),
    Mismatch("render.bg_color", "bg_color", lambda: render(bg_color=(1.0, 0.0))),
    Mismatch("render.bg_color.rows", "bg_color", lambda: render(bg_color=np.ones((2, 3)))),
    # --- masks
    Array("dilate.mask", "mask", lambda v: ram3d.dilate(v, 1), (6, 8), ndims=(2,)),
    Int("dilate.r", "r", lambda v: ram3d.dilate(MASK, v), minimum=0),
    Mismatch("dilate.mask.values", "mask", lambda: ram3d.dilate(np.full((3, 3), 0.5), 1)),
    Array("halo.mask", "mask", lambda v: ram3d.halo(v, 1), (6, 8), ndims=(2,)),
    Int("halo.r", "r", lambda v: ram3d.halo(MASK, v), minimum=0),
    Int("disk.r", "r", lambda v: ram3d.disk(v), minimum=0),
    Array("bbox_crop.mask", "mask", lambda v: ram3d.bbox_crop(v), (6, 8), ndims=(2,)),
    Int("bbox_crop.pad", "pad", lambda v: ram3d.bbox_crop(MASK, v), minimum=0),
    Array(
        "composite.render",
        "render",
        lambda v: ram3d.composite(v, IMG, MASK),
        (6, 8, 3),
        ndims=(2, 3),
    ),
    Array(
        "composite.image", "image", lambda v: ram3d.composite(IMG, v, MASK), (6, 8, 3), ndims=(3,)
    ),
    Array("composite.mask", "mask", lambda v: ram3d.composite(IMG, IMG, v), (6, 8), ndims=(2,)),
    Mismatch("composite.render", "render", lambda: ram3d.composite(np.ones((6, 7, 3)), IMG, MASK)),
    Mismatch("composite.mask", "mask", lambda: ram3d.composite(IMG, IMG, MASK[:5])),
    # --- losses
    Int("anneal_t.step", "step", lambda v: anneal(step=v), minimum=0),
    OutOfRange("anneal_t.step>total", "step", lambda v: anneal(step=v), st.integers(11, 10**6)),
    Int("anneal_t.total", "total", lambda v: anneal(total=v, step=0), minimum=1),
    Number("anneal_t.t_min", "t_min", lambda v: anneal(t_min=v)),
    OutOfRange(
        "anneal_t.t_min>t_max", "t_min", lambda v: anneal(t_min=v), _floats(lo=0.91, hi=1e6)
    ),
    Number("anneal_t.t_max", "t_max", lambda v: anneal(t_max=v)),
    Option(
        "anneal_t.kind",
        "kind",
        lambda v: anneal(kind=v),
        valid=frozenset(ram3d.losses.ANNEAL_KINDS),
    ),
    # --- backends
    Array(
        "TargetOracle.targets",
        "targets",
        lambda v: ram3d.TargetOracle(v),
        (1, 6, 8, 3),
        ndims=(3, 4),
    ),
    Mismatch("TargetOracle.targets.range", "targets", lambda: ram3d.TargetOracle(IMAGES + 1)),
    Number(
        "NoisyTargetOracle.per_view_noise",
        "per_view_noise",
        lambda v: ram3d.NoisyTargetOracle(IMAGES, v),
    ),
    OutOfRange(
        "NoisyTargetOracle.per_view_noise",
        "per_view_noise",
        lambda v: ram3d.NoisyTargetOracle(IMAGES, v),
        _floats(hi=-1e-9),
    ),
    Array("MaskOracle.masks", "masks", lambda v: ram3d.MaskOracle(v), (1, 6, 8), ndims=(3,)),
    # --- stages
    keyword(
        Int,
        ram3d.EraseStage,
        "steps",
        kwargs={k: v for k, v in STAGE_KW.items() if k != "steps"},
        minimum=1,
    ),
    keyword(Number, ram3d.EraseStage, "lr"),
    keyword(OutOfRange, ram3d.EraseStage, "lr", values=_floats(hi=0.0)),
    keyword(Int, ram3d.EraseStage, "dilate_radius", minimum=0),
    keyword(Number, ram3d.EraseStage, "near"),
    keyword(Number, ram3d.EraseStage, "far"),
    keyword(OutOfRange, ram3d.EraseStage, "far", values=_floats(hi=0.05)),
    keyword(Int, ram3d.EraseStage, "n_samples", minimum=1),
    keyword(Number, ram3d.EraseStage, "lambda_rgb"),
    keyword(OutOfRange, ram3d.EraseStage, "lambda_rgb", values=_floats(hi=-1e-9)),
    keyword(Number, ram3d.EraseStage, "halo_weight"),
    keyword(Number, ram3d.EraseStage, "t_min"),
    keyword(OutOfRange, ram3d.EraseStage, "t_max", values=_floats(lo=1.0 + 1e-9, hi=1e6)),
    keyword(Number, ram3d.ReplaceStage, "bg_aug_p"),
    keyword(OutOfRange, ram3d.ReplaceStage, "bg_aug_p", values=_floats(lo=1.0 + 1e-9, hi=1e6)),
    Array("EraseStage.fit.images", "images", lambda v: erase(images=v), (1, 6, 8, 3), ndims=(4,)),
    Array("EraseStage.fit.masks", "masks", lambda v: erase(masks=v), (1, 6, 8), ndims=(3,)),
    Mismatch("EraseStage.fit.images", "images", lambda: erase(images=np.full((2, 6, 8, 3), 0.5))),
    Mismatch(
        "EraseStage.fit.images.size", "images", lambda: erase(images=np.full((1, 5, 8, 3), 0.5))
    ),
    Mismatch("EraseStage.fit.images.range", "images", lambda: erase(images=IMAGES * 3)),
    Mismatch("EraseStage.fit.masks", "masks", lambda: erase(masks=MASKS[:, :5])),
    # --- metrics, scene
    Array("psnr.a", "a", lambda v: ram3d.psnr(v, IMG), (6, 8, 3), ndims=(1, 2, 3, 4)),
    Mismatch("psnr.b", "b", lambda: ram3d.psnr(IMG, IMG[:2])),
    Number("psnr.max_val", "max_val", lambda v: ram3d.psnr(IMG, IMG, max_val=v)),
    Array("masked_psnr.mask", "mask", lambda v: ram3d.masked_psnr(IMG, IMG, v), (6, 8), ndims=(2,)),
    Mismatch("masked_psnr.mask", "mask", lambda: ram3d.masked_psnr(IMG, IMG, MASK[:3])),
    Array(
        "clip_direction_similarity.image_before",
        "image_before",
        lambda v: ram3d.clip_direction_similarity(v, np.ones((2, 4)), np.ones(4), np.ones(4)),
        (2, 4),
        ndims=(2,),
    ),
    Mismatch(
        "clip_direction_similarity.text_after",
        "text_after",
        lambda: ram3d.clip_direction_similarity(
            np.ones((2, 4)), np.ones((2, 4)), np.ones(4), np.ones(3)
        ),
    ),
    keyword(Int, ram3d.room_scene, "n_train", minimum=1),
    keyword(Number, ram3d.room_scene, "sphere_radius"),
]

globals().update(suite.bad_input_suite(CASES, max_examples=3))


def test_tensors_are_checked_like_arrays():
    assert_rejects(
        ValueError,
        "o",
        ram3d.render,
        FIELD,
        torch.full((2, 3), float("nan")),
        torch.ones(2, 3),
        near=0.0,
        far=1.0,
    )
    assert_rejects(
        TypeError,
        "d",
        ram3d.render,
        FIELD,
        torch.ones(2, 3),
        torch.ones(2, 3, dtype=torch.bool),
        near=0.0,
        far=1.0,
    )
    assert_rejects(
        ValueError, "image", ram3d.composite, IMG, torch.full((6, 8, 3), float("inf")), MASK
    )
    assert_rejects(ValueError, "mask", ram3d.dilate, torch.full((3, 3), 2), 1)


def test_hifa_loss_takes_tensors():
    z = torch.zeros(1, 4, 2, 2)
    rgb = torch.zeros(1, 3, 4, 4)
    assert_rejects(
        TypeError, "z", ram3d.hifa_loss, np.zeros((1, 4, 2, 2)), z, rgb, rgb, lambda_rgb=0.1
    )
    assert_rejects(
        ValueError, "z0_hat", ram3d.hifa_loss, z, torch.zeros(1, 4, 2, 3), rgb, rgb, lambda_rgb=0.1
    )
    assert_rejects(
        ValueError, "rgb_hat", ram3d.hifa_loss, z, z, rgb, torch.zeros(1, 3, 4, 5), lambda_rgb=0.1
    )
    assert_rejects(
        ValueError,
        "rgb",
        ram3d.hifa_loss,
        z,
        z,
        torch.full((1, 3, 4, 4), float("nan")),
        rgb,
        lambda_rgb=0.1,
    )
    assert_rejects(ValueError, "lambda_rgb", ram3d.hifa_loss, z, z, rgb, rgb, lambda_rgb=-1.0)
    assert_rejects(TypeError, "lambda_rgb", ram3d.hifa_loss, z, z, rgb, rgb, lambda_rgb="0.1")
    assert_rejects(
        ValueError, "weight", ram3d.hifa_loss, z, z, rgb, rgb, lambda_rgb=0.1, weight=float("nan")
    )
    assert_rejects(
        ValueError, "z", ram3d.hifa_loss, torch.zeros(0), torch.zeros(0), rgb, rgb, lambda_rgb=0.1
    )
    assert_rejects(
        TypeError, "halo", ram3d.halo_l2, torch.zeros(4, 4, 3), torch.zeros(4, 4, 3), "halo"
    )
    assert_rejects(
        ValueError,
        "halo",
        ram3d.halo_l2,
        torch.zeros(4, 4, 3),
        torch.zeros(4, 4, 3),
        np.ones((3, 4), bool),
    )


def test_fields_cameras_priors_and_modules():
    assert_rejects(TypeError, "fields", ram3d.render, "field", O, D, near=0.0, far=1.0)
    assert_rejects(ValueError, "fields", ram3d.render, [], O, D, near=0.0, far=1.0)
    assert_rejects(TypeError, "fields", ram3d.render, [FIELD, 3], O, D, near=0.0, far=1.0)
    assert_rejects(TypeError, "x", FIELD, np.zeros((2, 3)))
    assert_rejects(ValueError, "x", ram3d.DenseGridField(4), torch.zeros(2, 2))
    assert_rejects(TypeError, "cam", ram3d.get_rays, "camera")
    assert_rejects(TypeError, "generator", render, generator=0)
    assert_rejects(TypeError, "generator", ram3d.EraseStage, generator="seed")
    stage = ram3d.EraseStage(**STAGE_KW)
    field = ram3d.DenseGridField(4)
    assert_rejects(TypeError, "field", stage.fit, "field", [CAM], IMAGES, MASKS, ORACLE, "bg")
    assert_rejects(TypeError, "cameras", stage.fit, field, "cams", IMAGES, MASKS, ORACLE, "bg")
    assert_rejects(ValueError, "cameras", stage.fit, field, [], IMAGES, MASKS, ORACLE, "bg")
    assert_rejects(TypeError, "prior", stage.fit, field, [CAM], IMAGES, MASKS, object(), "bg")
    assert_rejects(TypeError, "prompt", stage.fit, field, [CAM], IMAGES, MASKS, ORACLE, 3)
    rs = ram3d.ReplaceStage(**STAGE_KW)
    assert_rejects(TypeError, "bg_field", rs.fit, field, [CAM], IMAGES, MASKS, "bg", ORACLE, "x")
    assert_rejects(ValueError, "bg_field", rs.fit, field, [CAM], IMAGES, MASKS, field, ORACLE, "x")
    assert_rejects(TypeError, "segmenter", ram3d.RAM3D, object(), ORACLE)
    assert_rejects(TypeError, "prior", ram3d.RAM3D, ram3d.MaskOracle(MASKS), "sd")
    assert_rejects(TypeError, "priors", ram3d.PromptRouter, [ORACLE])
    x, m = torch.zeros(1, 3, 6, 8), torch.zeros(1, 1, 6, 8)
    assert_rejects(ValueError, "view", ORACLE.x0_estimate, x, m, "p", 0.5, view=3)
    assert_rejects(ValueError, "image", ORACLE.x0_estimate, x[..., :7], m, "p", 0.5)
    two = ram3d.TargetOracle(np.concatenate([IMAGES, IMAGES]))
    assert_rejects(ValueError, "view", two.x0_estimate, x, m, "p", 0.5)


@pytest.mark.parametrize("value", [True, "x"])
def test_bool_is_not_a_bg_color(value):
    assert_rejects(TypeError, "bg_color", render, bg_color=value)
