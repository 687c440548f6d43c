"""ReplaceAnything3D (RAM3D): text-guided object replacement in 3D scenes with compositional
NeRFs. Exact compositional volume rendering, masks and halo, the HiFA distillation loss, the
Erase and Replace stages, pluggable segmenter/inpainting priors and CPU oracles."""

from importlib.metadata import PackageNotFoundError, version

from .backends import (
    InpaintPrior,
    MaskOracle,
    NoisyTargetOracle,
    PromptRouter,
    TargetOracle,
    TextSegmenter,
)
from .cameras import Camera, get_rays, look_at, orbit_cameras, project, select_rays
from .fields import ConstantField, DenseGridField, MLPField
from .losses import anneal_t, halo_l2, hifa_loss
from .masks import bbox_crop, composite, dilate, disk, halo
from .metrics import clip_direction_consistency, clip_direction_similarity, masked_psnr, psnr
from .pipeline import RAM3D, EditedScene, EraseStage, ReplaceStage, render_composite
from .render import RenderResult, composite_fields, render, render_camera
from .synthetic import RoomScene, room_scene

try:
    __version__ = version("ram3d")
except PackageNotFoundError:  # pragma: no cover - running from a source tree
    __version__ = "0.0.0"

__all__ = [
    "RAM3D",
    "Camera",
    "ConstantField",
    "DenseGridField",
    "EditedScene",
    "EraseStage",
    "InpaintPrior",
    "MLPField",
    "MaskOracle",
    "NoisyTargetOracle",
    "PromptRouter",
    "RenderResult",
    "ReplaceStage",
    "RoomScene",
    "TargetOracle",
    "TextSegmenter",
    "__version__",
    "anneal_t",
    "bbox_crop",
    "clip_direction_consistency",
    "clip_direction_similarity",
    "composite",
    "composite_fields",
    "dilate",
    "disk",
    "get_rays",
    "halo",
    "halo_l2",
    "hifa_loss",
    "look_at",
    "masked_psnr",
    "orbit_cameras",
    "project",
    "psnr",
    "render",
    "render_camera",
    "render_composite",
    "room_scene",
    "select_rays",
]
