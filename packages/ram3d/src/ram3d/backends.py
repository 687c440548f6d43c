"""The pluggable large models (protocols) and CPU test doubles.

RAM3D needs a text-prompted segmenter (LangSAM in the paper) and a text-conditioned latent
inpainting diffusion prior (Stable Diffusion inpainting). Any object with the methods below
plugs in; this package ships no adapter for the real models (they need user-supplied weights
and a GPU) but the oracles that make the pipeline testable on a CPU.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

import torch

from ._checks import check_float, check_generator, check_int, describe
from ._validation import as_mask, as_tensor, check_unit_interval

__all__ = [
    "InpaintPrior",
    "MaskOracle",
    "NoisyTargetOracle",
    "PromptRouter",
    "TargetOracle",
    "TextSegmenter",
]


@runtime_checkable
class TextSegmenter(Protocol):
    """``segment(image (H, W, 3) in [0, 1], prompt, *, view=None) -> bool (H, W)``."""

    def segment(self, image: Any, prompt: str, *, view: int | None = None) -> Any: ...


@runtime_checkable
class InpaintPrior(Protocol):
    """``x0_estimate(image, mask, prompt, t, *, view=None) -> (z, z0_hat, rgb_hat)``.

    ``image`` (1, 3, H, W) in [0, 1] is the composited render (differentiable), ``mask``
    (1, 1, H, W) float, 1 where to inpaint, ``t`` in [0, 1] the diffusion time. ``z = E(image)``
    must stay differentiable; ``z0_hat`` (z's shape) is the one-step denoised latent
    ``(z_t - sqrt(1 - abar_t) eps_hat) / sqrt(abar_t)`` and ``rgb_hat`` (image's shape) its
    decoding; the loss detaches both. ``guidance`` is the classifier-free guidance scale (None:
    the prior's own); the stages pass ``view`` (the index of the training view) by keyword."""

    def x0_estimate(
        self,
        image: torch.Tensor,
        mask: torch.Tensor,
        prompt: str,
        t: float,
        guidance: float | None = None,
        *,
        view=None,
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]: ...


def _stack_images(images: Any, name: str) -> torch.Tensor:
    if isinstance(images, list | tuple):
        if not images:
            raise ValueError(f"{name} must hold at least one image, got an empty list")
        images = torch.stack([as_tensor(x, f"{name}[{i}]", ndim=3) for i, x in enumerate(images)])
    t = as_tensor(images, name, ndim=(3, 4))
    if t.ndim == 3:  # one view
        t = t[None]
    if t.shape[-1] != 3:
        raise ValueError(f"{name} must be (N, H, W, 3), got shape {tuple(t.shape)}")
    return check_unit_interval(t, name)


def _check_view(view: Any, n: int) -> int:
    if view is None:
        if n == 1:
            return 0
        raise ValueError(f"view must be given (an index into the {n} views), got None")
    return check_int(view, "view", minimum=0, maximum=n - 1)


def _check_image(image: Any, hw: tuple[int, int]) -> torch.Tensor:
    if not isinstance(image, torch.Tensor):
        raise TypeError(f"image must be a torch.Tensor (1, 3, H, W), got {describe(image)}")
    if tuple(image.shape) != (1, 3, *hw):
        raise ValueError(
            f"image must have shape (1, 3, {hw[0]}, {hw[1]}), got {tuple(image.shape)}"
        )
    return image


class MaskOracle:
    """A segmenter returning given masks (``masks`` (N, H, W) bool), one per view."""

    def __init__(self, masks: Any):
        if isinstance(masks, list | tuple):
            masks = torch.stack([as_mask(m, f"masks[{i}]") for i, m in enumerate(masks)])
        self.masks = as_mask(masks, "masks", ndim=3)

    def segment(self, image: Any, prompt: str, *, view: int | None = None) -> torch.Tensor:
        v = _check_view(view, self.masks.shape[0])
        return self.masks[v].clone()


class TargetOracle:
    """An inpainting "prior" that returns a fixed target image per view (``targets``
    (N, H, W, 3) in [0, 1]) whatever the time step, with the identity as its latent space:
    ``x0_estimate`` gives ``(image, target, target)``. Distilling with it fits the field to the
    targets, which makes the pipeline checkable against a known ground truth."""

    def __init__(self, targets: Any):
        self.targets = _stack_images(targets, "targets")

    def _target(self, view: Any, mask: torch.Tensor) -> torch.Tensor:
        v = _check_view(view, self.targets.shape[0])
        return self.targets[v].permute(2, 0, 1)[None]

    def x0_estimate(
        self,
        image: torch.Tensor,
        mask: Any,
        prompt: str,
        t: float,
        guidance: float | None = None,
        *,
        view: int | None = None,
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """``(image, target, target)`` for the target of ``view`` (``t``, ``guidance`` and
        ``prompt`` are accepted and ignored)."""
        image = _check_image(image, tuple(self.targets.shape[1:3]))
        m = torch.as_tensor(mask)
        if tuple(m.shape[-2:]) != tuple(self.targets.shape[1:3]):
            raise ValueError(
                f"mask must be (1, 1, {self.targets.shape[1]}, {self.targets.shape[2]}), "
                f"got {tuple(m.shape)}"
            )
        target = self._target(view, m.reshape(self.targets.shape[1:3]) > 0.5).to(image.dtype)
        return image, target, target


class NoisyTargetOracle(TargetOracle):
    """A :class:`TargetOracle` whose views disagree: view ``v``'s target is shifted by a colour
    ``s_v ~ N(0, per_view_noise^2 I_3)`` inside the mask it is given (drawn once per view, from
    ``generator``), like independent per-view inpaintings. Values are not clipped."""

    def __init__(
        self, targets: Any, per_view_noise: float, *, generator: torch.Generator | None = None
    ):
        super().__init__(targets)
        self.per_view_noise = check_float(per_view_noise, "per_view_noise", minimum=0.0)
        generator = check_generator(generator)
        n = self.targets.shape[0]
        self.shifts = self.per_view_noise * torch.randn(
            n, 3, generator=generator, dtype=self.targets.dtype
        )

    def _target(self, view: Any, mask: torch.Tensor) -> torch.Tensor:
        v = _check_view(view, self.targets.shape[0])
        img = self.targets[v] + mask[..., None].to(self.targets.dtype) * self.shifts[v]
        return img.permute(2, 0, 1)[None]


class PromptRouter:
    """A prior that hands each call to ``priors[prompt]`` (e.g. one oracle for the erase
    stage's background prompt, another for the edit prompt); an unknown prompt is a
    ValueError."""

    def __init__(self, priors: dict):
        if not isinstance(priors, dict):
            raise TypeError(f"priors must be a dict prompt -> prior, got {describe(priors)}")
        if not priors:
            raise ValueError("priors must hold at least one prompt")
        for k, p in priors.items():
            if not isinstance(k, str):
                raise TypeError(f"priors' keys must be prompts (str), got {describe(k)}")
            if not callable(getattr(p, "x0_estimate", None)):
                raise TypeError(f"priors[{k!r}] must have an x0_estimate method, got {describe(p)}")
        self.priors = dict(priors)

    def x0_estimate(self, image, mask, prompt, t, guidance=None, *, view=None):
        if prompt not in self.priors:
            raise ValueError(f"prompt must be one of {sorted(self.priors)}, got {prompt!r}")
        return self.priors[prompt].x0_estimate(image, mask, prompt, t, guidance, view=view)
