"""Package-specific checks, built on the vendored ``_checks`` vocabulary."""

from __future__ import annotations

from typing import Any

import numpy as np

from ._checks import check_array, check_int, check_tensor, describe


def check_tokens(value: Any, name: str, *, dim: int | None = None, ndim: int = 3) -> Any:
    """A finite floating tensor ``[B, N, dim]`` (``ndim`` dimensions; last one ``dim``)."""
    value = check_tensor(value, name, ndim=ndim)
    if dim is not None and value.shape[-1] != dim:
        raise ValueError(
            f"{name} must have last dimension {dim} (the model width), got shape "
            f"{tuple(value.shape)}"
        )
    return value


def check_module(value: Any, name: str) -> Any:
    """A ``torch.nn.Module``."""
    import torch

    if not isinstance(value, torch.nn.Module):
        raise TypeError(f"{name} must be a torch.nn.Module, got {describe(value)}")
    return value


def check_size_pair(value: Any, name: str) -> tuple[int, int]:
    """A pair ``(H, W)`` of positive integers."""
    if not isinstance(value, tuple | list) or len(value) != 2:
        if isinstance(value, tuple | list):
            raise ValueError(f"{name} must be a pair (H, W), got {len(value)} value(s)")
        raise TypeError(f"{name} must be a pair (H, W) of integers, got {describe(value)}")
    return (
        check_int(value[0], f"{name}[0]", minimum=1),
        check_int(value[1], f"{name}[1]", minimum=1),
    )


def as_matrix(value: Any, name: str, *, ndim: int | tuple[int, ...] = 2) -> tuple[Any, bool]:
    """A finite real matrix from a torch tensor or an array-like: ``(value, is_torch)``.

    Torch tensors are checked and returned as they are; anything else becomes float64 numpy.
    """
    if type(value).__module__.startswith("torch"):
        return check_tensor(value, name, ndim=ndim), True
    return check_array(value, name, ndim=ndim), False


def as_labels(value: Any, name: str) -> np.ndarray:
    """Integer labels (a torch tensor or an array-like) as an int64 numpy array, any shape."""
    if type(value).__module__.startswith("torch"):
        value = check_tensor(value, name, dtype="integer", allow_empty=False)
        return value.detach().cpu().numpy().astype(np.int64)
    arr = np.asarray(value) if not isinstance(value, np.ndarray) else value
    if arr.dtype == object or arr.dtype.kind not in "iub":
        raise TypeError(f"{name} must hold integer class labels, got {describe(value)}")
    if arr.dtype.kind == "b":
        raise TypeError(f"{name} must hold integer class labels, got a bool array")
    if arr.size == 0:
        raise ValueError(f"{name} must not be empty, got shape {arr.shape}")
    return arr.astype(np.int64)
