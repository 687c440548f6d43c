"""Package-specific checks built on the shared ``_checks`` vocabulary."""

from __future__ import annotations

from typing import Any

from ._checks import check_tensor, describe


def check_module(value: Any, name: str) -> Any:
    """An ``nn.Module`` instance."""
    from torch import nn

    if not isinstance(value, nn.Module):
        raise TypeError(f"{name} must be a torch.nn.Module, got {describe(value)}")
    return value


def check_images(value: Any, name: str) -> Any:
    """A finite, non-empty floating tensor of shape [B, C, H, W]."""
    return check_tensor(value, name, ndim=4)


def check_labels(value: Any, name: str, n: int, *, num_classes: int | None = None) -> Any:
    """An integer tensor of shape [n] with values in [0, num_classes)."""
    check_tensor(value, name, ndim=1, dtype="integer")
    if value.shape[0] != n:
        raise ValueError(f"{name} must have length {n} (the batch size), got {value.shape[0]}")
    if bool((value < 0).any()):
        raise ValueError(f"{name} must be non-negative class indices, got min {int(value.min())}")
    if num_classes is not None and bool((value >= num_classes).any()):
        raise ValueError(
            f"{name} must be class indices below {num_classes}, got max {int(value.max())}"
        )
    return value
