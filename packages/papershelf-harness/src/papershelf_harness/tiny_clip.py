"""A tiny random-initialised open_clip CLIP for tests and ``--quick`` script runs.

No weights are downloaded: the model is built from a config in milliseconds. Needs ``torch`` and
``open_clip_torch`` (imported when the model is built), which the packages that test against
open_clip have in their test groups::

    from papershelf_harness.tiny_clip import tiny_open_clip

    model = tiny_open_clip(embed_dim=16, seed=0)      # eval mode
    text = model.encode_text(open_clip.tokenize(["a photo of a cat."]))   # [1, 16]
"""

from __future__ import annotations

from typing import Any

__all__ = ["tiny_open_clip"]


def _int(value: Any, name: str, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int, got {type(value).__name__}")
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value}")
    return value


def tiny_open_clip(
    *,
    embed_dim: int = 16,
    image_size: int = 32,
    patch_size: int = 16,
    width: int = 32,
    vision_layers: int = 1,
    text_layers: int = 2,
    heads: int = 2,
    seed: int = 0,
) -> Any:
    """An ``open_clip.CLIP`` with a ViT image tower (``image_size`` / ``patch_size`` patches,
    ``width``, ``vision_layers``) and open_clip's text tower (its 49,408-token BPE vocabulary and
    77-token context, so ``open_clip.tokenize`` feeds it; ``width``, ``heads``, ``text_layers``),
    both projected to ``embed_dim``; parameters drawn after ``torch.manual_seed(seed)`` inside
    ``torch.random.fork_rng`` (the caller's global RNG state is left as it was); in eval mode."""
    for value, name in (
        (embed_dim, "embed_dim"),
        (image_size, "image_size"),
        (patch_size, "patch_size"),
        (width, "width"),
        (vision_layers, "vision_layers"),
        (text_layers, "text_layers"),
        (heads, "heads"),
    ):
        _int(value, name, 1)
    _int(seed, "seed", 0)
    if image_size % patch_size:
        raise ValueError(f"patch_size must divide image_size, got {patch_size} and {image_size}")
    if width % heads:
        raise ValueError(f"heads must divide width, got {heads} and {width}")
    import open_clip
    import torch

    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        model = open_clip.CLIP(
            embed_dim=embed_dim,
            vision_cfg={
                "image_size": image_size,
                "patch_size": patch_size,
                "width": width,
                "layers": vision_layers,
                "head_width": width // heads,
            },
            text_cfg={
                "context_length": 77,
                "vocab_size": 49408,
                "width": width,
                "heads": heads,
                "layers": text_layers,
            },
        )
    return model.eval()
