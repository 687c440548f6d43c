"""RAM3D's Erase and Replace stages and the end-to-end pipeline."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch
from torch import nn

from ._checks import (
    check_callable,
    check_float,
    check_generator,
    check_int,
    check_probability,
    describe,
)
from ._optim import Adam
from ._validation import as_mask, as_tensor, check_module, check_str, check_unit_interval
from .cameras import Camera, get_rays
from .fields import DenseGridField
from .losses import anneal_t, hifa_loss
from .masks import dilate
from .render import render

__all__ = ["RAM3D", "EditedScene", "EraseStage", "ReplaceStage", "render_composite"]


def _check_cameras(cameras: Any) -> list[Camera]:
    if isinstance(cameras, Camera):
        cameras = [cameras]
    if not isinstance(cameras, list | tuple):
        raise TypeError(f"cameras must be a list of ram3d.Camera, got {describe(cameras)}")
    if not cameras:
        raise ValueError("cameras must hold at least one camera, got an empty list")
    for i, c in enumerate(cameras):
        if not isinstance(c, Camera):
            raise TypeError(f"cameras[{i}] must be a ram3d.Camera, got {describe(c)}")
    return list(cameras)


def _check_images(images: Any, cameras: list[Camera]) -> torch.Tensor:
    if isinstance(images, list | tuple):
        if not images:
            raise ValueError("images must hold at least one image, got an empty list")
        images = torch.stack([as_tensor(x, f"images[{i}]", ndim=3) for i, x in enumerate(images)])
    imgs = as_tensor(images, "images", ndim=4)
    check_unit_interval(imgs, "images")
    if imgs.shape[0] != len(cameras):
        raise ValueError(
            f"images must hold one image per camera ({len(cameras)}), got {imgs.shape[0]}"
        )
    if imgs.shape[-1] != 3:
        raise ValueError(f"images must be (N, H, W, 3), got shape {tuple(imgs.shape)}")
    for i, c in enumerate(cameras):
        if tuple(imgs.shape[1:3]) != (c.H, c.W):
            raise ValueError(
                f"images must match the cameras' size: cameras[{i}] is {c.H}x{c.W}, images are "
                f"{imgs.shape[1]}x{imgs.shape[2]}"
            )
    return imgs


def _check_masks(masks: Any, images: torch.Tensor) -> torch.Tensor:
    if isinstance(masks, list | tuple):
        if not masks:
            raise ValueError("masks must hold at least one mask, got an empty list")
        masks = torch.stack([as_mask(m, f"masks[{i}]") for i, m in enumerate(masks)])
    m = as_mask(masks, "masks", ndim=3)
    if tuple(m.shape) != tuple(images.shape[:3]):
        raise ValueError(f"masks must have shape {tuple(images.shape[:3])}, got {tuple(m.shape)}")
    return m


def _check_prior(prior: Any) -> Any:
    if not callable(getattr(prior, "x0_estimate", None)):
        raise TypeError(
            f"prior must have an x0_estimate method (ram3d.InpaintPrior), got {describe(prior)}"
        )
    return prior


def _check_trainable(field: Any, name: str = "field") -> nn.Module:
    check_module(field, name)
    if not any(p.requires_grad for p in field.parameters()):
        raise ValueError(f"{name} must have trainable parameters")
    return field


def render_composite(
    fields: Any,
    cam: Camera,
    image: Any,
    region: Any,
    *,
    near: float,
    far: float,
    n_samples: int = 64,
    bg_color: Any = None,
    generator: torch.Generator | None = None,
) -> tuple[torch.Tensor, Any]:
    """``region * render(fields) + (1 - region) * image`` (H, W, 3), rendering only the rays of
    ``region`` (H, W) bool; also returns the :class:`~ram3d.render.RenderResult` of those rays."""
    if not isinstance(cam, Camera):
        raise TypeError(f"cam must be a ram3d.Camera, got {describe(cam)}")
    img = as_tensor(image, "image", shape=(cam.H, cam.W, 3))
    m = as_mask(region, "region")
    if tuple(m.shape) != (cam.H, cam.W):
        raise ValueError(f"region must have shape ({cam.H}, {cam.W}), got {tuple(m.shape)}")
    o, d = get_rays(cam)
    idx = torch.nonzero(m.reshape(-1)).reshape(-1)
    out = render(
        fields,
        o[idx],
        d[idx],
        near=near,
        far=far,
        n_samples=n_samples,
        bg_color=bg_color,
        generator=generator,
    )
    flat = img.reshape(-1, 3)
    rgb = out.rgb
    dtype = torch.promote_types(flat.dtype, rgb.dtype)
    comp = flat.to(dtype).index_put((idx,), rgb.to(dtype))
    return comp.reshape(cam.H, cam.W, 3), out


class _Stage:
    def __init__(
        self,
        *,
        steps: int = 400,
        lr: float = 0.1,
        dilate_radius: int = 3,
        near: float = 0.05,
        far: float = 4.0,
        n_samples: int = 64,
        generator: torch.Generator | None = None,
        lambda_rgb: float = 0.1,
        halo_weight: float = 1.0,
        t_min: float = 0.02,
        t_max: float = 0.98,
        weight_fn: Callable[[float], float] | None = None,
        bg_color: Any = None,
    ):
        self.steps = check_int(steps, "steps", minimum=1)
        self.lr = check_float(lr, "lr", minimum=0.0, min_inclusive=False)
        self.dilate_radius = check_int(dilate_radius, "dilate_radius", minimum=0)
        self.near = check_float(near, "near", minimum=0.0)
        self.far = check_float(far, "far")
        if not self.far > self.near:
            raise ValueError(f"far must be greater than near ({self.near}), got {self.far}")
        self.n_samples = check_int(n_samples, "n_samples", minimum=1)
        self.generator = check_generator(generator)
        self.lambda_rgb = check_float(lambda_rgb, "lambda_rgb", minimum=0.0)
        self.halo_weight = check_float(halo_weight, "halo_weight", minimum=0.0)
        self.t_min = check_probability(t_min, "t_min")
        self.t_max = check_probability(t_max, "t_max")
        if self.t_min > self.t_max:
            raise ValueError(f"t_min must be <= t_max ({self.t_max}), got {self.t_min}")
        self.weight_fn = None if weight_fn is None else check_callable(weight_fn, "weight_fn")
        self.bg_color = bg_color
        self.history: list[float] = []

    def _order(self, n_views: int) -> list[int]:
        order: list[int] = []
        while len(order) < self.steps:
            if self.generator is None:
                order += list(range(n_views))
            else:
                order += torch.randperm(n_views, generator=self.generator).tolist()
        return order[: self.steps]

    def _fit(self, field, fixed, cameras, images, masks, prior, prompt, bg_aug_p=0.0):
        cameras = _check_cameras(cameras)
        imgs = _check_images(images, cameras)
        m = _check_masks(masks, imgs)
        prior = _check_prior(prior)
        prompt = check_str(prompt, "prompt")
        dil = torch.stack([dilate(mi, self.dilate_radius) for mi in m])
        halos = dil & ~m
        params = [p for p in field.parameters() if p.requires_grad]
        opt = Adam(params, self.lr)
        frozen = [(p, p.requires_grad) for f in fixed for p in f.parameters()]
        for p, _ in frozen:
            p.requires_grad_(False)
        self.history = []
        try:
            for k, v in enumerate(self._order(len(cameras))):
                t = anneal_t(k, max(self.steps - 1, 1), t_min=self.t_min, t_max=self.t_max)
                aug = bg_aug_p > 0 and float(torch.rand((), generator=self.generator)) < bg_aug_p
                # background augmentation: the foreground alone over a random solid colour
                bg = torch.rand(3, generator=self.generator) if aug else self.bg_color
                comp, out = render_composite(
                    [field] if aug else [field, *fixed],
                    cameras[v],
                    imgs[v],
                    dil[v],
                    near=self.near,
                    far=self.far,
                    n_samples=self.n_samples,
                    bg_color=bg,
                    generator=self.generator,
                )
                x = comp.permute(2, 0, 1)[None]
                mask = m[v].to(x.dtype)[None, None]
                z, z0_hat, rgb_hat = prior.x0_estimate(x, mask, prompt, t, view=v)
                w = 1.0 if self.weight_fn is None else float(self.weight_fn(t))
                loss = hifa_loss(z, z0_hat, x, rgb_hat, lambda_rgb=self.lambda_rgb, weight=w)
                if self.halo_weight > 0 and not aug and bool(halos[v].any()):
                    sel = halos[v].reshape(-1)[dil[v].reshape(-1)]  # halo among D's rays
                    target = imgs[v].reshape(-1, 3)[halos[v].reshape(-1)].to(out.rgb.dtype)
                    loss = loss + self.halo_weight * torch.mean((out.rgb[sel] - target) ** 2)
                opt.zero_grad()
                loss.backward()
                opt.step()
                self.history.append(float(loss.detach()))
        finally:
            for p, flag in frozen:
                p.requires_grad_(flag)
        return field


class EraseStage(_Stage):
    """RAM3D's Erase stage: fit a "bubble" field that renders the background hidden by the
    object. For each step one view's rays inside the dilated mask ``D = dilate(M, r)`` are
    rendered, composited as ``D * render + (1 - D) * image`` and distilled with the HiFA loss
    from ``prior`` (``t`` annealed from ``t_max`` to ``t_min``), plus ``halo_weight`` times the
    reconstruction MSE on the halo ``D \\ M`` where the background is visible. Views are visited
    in order (with a ``generator``: in random order per epoch, with stratified ray samples).

    Options (keyword-only): ``steps=400, lr=0.1, dilate_radius=3, near=0.05, far=4.0,
    n_samples=64, generator=None, lambda_rgb=0.1, halo_weight=1.0, t_min=0.02, t_max=0.98,
    weight_fn=None`` (``w(t)``; None: 1) and ``bg_color=None``."""

    def fit(self, field, cameras, images, masks, prior, prompt):
        """Train ``field`` (an ``nn.Module`` field, in place) on ``cameras`` (N), ``images``
        (N, H, W, 3) in [0, 1], object ``masks`` (N, H, W) bool; returns the field."""
        field = _check_trainable(field)
        return self._fit(field, [], cameras, images, masks, prior, prompt)


class ReplaceStage(_Stage):
    """RAM3D's Replace stage: fit a foreground field composed with the frozen background field
    (densities summed, colours density-weighted), distilled inside ``D`` with the edit prompt.
    ``bg_aug_p``: probability of a step rendering the foreground alone over a random solid
    colour (background augmentation; details inferred). The other options are
    :class:`EraseStage`'s."""

    def __init__(self, *, bg_aug_p: float = 0.0, **options: Any):
        super().__init__(**options)
        self.bg_aug_p = check_probability(bg_aug_p, "bg_aug_p")

    def fit(self, field, cameras, images, masks, bg_field, prior, prompt):
        """Train the foreground ``field`` (in place) over the frozen ``bg_field``; returns it."""
        field = _check_trainable(field)
        check_module(bg_field, "bg_field")
        if bg_field is field:
            raise ValueError("bg_field must be another module than field")
        return self._fit(field, [bg_field], cameras, images, masks, prior, prompt, self.bg_aug_p)


@dataclass(frozen=True)
class EditedScene:
    """The result of :meth:`RAM3D.run`: the fields, the masks used, and the training views."""

    bg_field: nn.Module
    fg_field: nn.Module | None
    masks: torch.Tensor
    dilated: torch.Tensor
    cameras: list
    images: torch.Tensor
    near: float
    far: float
    n_samples: int

    def render(self, cam: Camera, image: Any = None, mask: Any = None) -> torch.Tensor:
        """The edited view (H, W, 3): with ``image`` and ``mask`` (the region D to replace),
        the input image outside ``mask`` and ``bg ⊕ fg`` inside; without, the composed bubble
        fields alone over black."""
        fields = [self.bg_field] if self.fg_field is None else [self.fg_field, self.bg_field]
        with torch.no_grad():
            if image is None and mask is None:
                if not isinstance(cam, Camera):
                    raise TypeError(f"cam must be a ram3d.Camera, got {describe(cam)}")
                o, d = get_rays(cam)
                out = render(fields, o, d, near=self.near, far=self.far, n_samples=self.n_samples)
                return out.rgb.reshape(cam.H, cam.W, 3)
            if image is None or mask is None:
                raise ValueError("image and mask must be given together")
            comp, _ = render_composite(
                fields, cam, image, mask, near=self.near, far=self.far, n_samples=self.n_samples
            )
            return comp

    def render_view(self, i: int) -> torch.Tensor:
        """Training view ``i`` edited: the input outside ``D_i``, the composed fields inside."""
        i = check_int(i, "i", minimum=0, maximum=len(self.cameras) - 1)
        return self.render(self.cameras[i], self.images[i], self.dilated[i])


class RAM3D:
    """The end-to-end Erase-and-Replace pipeline: segment the object named by ``search_prompt``
    in every view with ``segmenter``, erase it (``EraseStage`` with ``background_prompt``),
    then, given an ``edit_prompt``, fit the new object (``ReplaceStage``). ``field_factory()``
    makes each new field (default: a 32^3 :class:`DenseGridField` on [-1, 1]^3)."""

    def __init__(
        self,
        segmenter: Any,
        prior: Any,
        *,
        erase: EraseStage | None = None,
        replace: ReplaceStage | None = None,
        field_factory: Callable[[], nn.Module] | None = None,
        background_prompt: str = "background",
    ):
        if not callable(getattr(segmenter, "segment", None)):
            raise TypeError(
                f"segmenter must have a segment method (ram3d.TextSegmenter), got {describe(segmenter)}"
            )
        self.segmenter = segmenter
        self.prior = _check_prior(prior)
        if erase is not None and not isinstance(erase, EraseStage):
            raise TypeError(f"erase must be an EraseStage, got {describe(erase)}")
        if replace is not None and not isinstance(replace, ReplaceStage):
            raise TypeError(f"replace must be a ReplaceStage, got {describe(replace)}")
        self.erase = erase or EraseStage()
        self.replace = replace or ReplaceStage()
        self.field_factory = (
            DenseGridField
            if field_factory is None
            else check_callable(field_factory, "field_factory")
        )
        self.background_prompt = check_str(background_prompt, "background_prompt")

    def segment(self, cameras: Any, images: Any, search_prompt: str) -> torch.Tensor:
        cameras = _check_cameras(cameras)
        imgs = _check_images(images, cameras)
        search_prompt = check_str(search_prompt, "search_prompt")
        masks = [
            as_mask(self.segmenter.segment(imgs[i], search_prompt, view=i), f"segmenter output {i}")
            for i in range(len(cameras))
        ]
        return _check_masks(masks, imgs)

    def run(self, cameras: Any, images: Any, search_prompt: str, edit_prompt: str | None = None):
        """Erase the object named ``search_prompt`` and, unless ``edit_prompt`` is None, replace
        it; returns an :class:`EditedScene`."""
        cameras = _check_cameras(cameras)
        imgs = _check_images(images, cameras)
        if edit_prompt is not None:
            edit_prompt = check_str(edit_prompt, "edit_prompt")
        masks = self.segment(cameras, imgs, search_prompt)
        bg = self.field_factory()
        self.erase.fit(bg, cameras, imgs, masks, self.prior, self.background_prompt)
        fg = None
        if edit_prompt is not None:
            fg = self.field_factory()
            self.replace.fit(fg, cameras, imgs, masks, bg, self.prior, edit_prompt)
        r = self.replace if fg is not None else self.erase
        dil = torch.stack([dilate(m, r.dilate_radius) for m in masks])
        return EditedScene(bg, fg, masks, dil, cameras, imgs, r.near, r.far, r.n_samples)
