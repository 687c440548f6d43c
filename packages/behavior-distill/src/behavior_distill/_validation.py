"""Package-specific checks, built on the shared vocabulary (``_checks``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import torch

from ._checks import check_array, check_tensor, describe


def as_tensor(
    value: Any,
    name: str,
    *,
    ndim: int | tuple[int, ...],
    dtype: torch.dtype | None = None,
    device: torch.device | None = None,
    integer_ok: bool = False,
) -> torch.Tensor:
    """A finite, non-empty tensor of ``ndim`` dimensions from a tensor or an array-like.

    Floating values are cast to ``dtype`` (when given; else a tensor keeps its dtype and an array
    becomes float64, or its own float dtype); integer values are kept (as int64) when
    ``integer_ok`` (discrete action indices), else made floating. Nothing else is converted.
    """
    if isinstance(value, torch.Tensor):
        check_tensor(value, name, ndim=ndim, dtype="any")
        if value.dtype == torch.bool:
            raise TypeError(f"{name} must hold real numbers, got {describe(value)}")
        if not value.is_floating_point():
            if not integer_ok:
                raise TypeError(f"{name} must be a floating tensor, got {describe(value)}")
            return value.to(device=device, dtype=torch.int64)
        check_tensor(value, name, ndim=ndim)
        return value.to(device=device, dtype=dtype or value.dtype)
    arr = check_array(value, name, ndim=ndim, dtype="numeric")
    if arr.dtype.kind in "iu":
        if integer_ok:
            return torch.as_tensor(arr.astype(np.int64), device=device)
        arr = arr.astype(np.float64)
    return torch.as_tensor(arr, device=device, dtype=dtype)  # dtype None: the array's own


def check_mapping(value: Any, name: str, *, keys: tuple[str, ...]) -> Mapping:
    if not isinstance(value, Mapping):
        raise TypeError(
            f"{name} must be a dict in the D4RL layout (observations, actions, ...), "
            f"got {describe(value)}"
        )
    missing = [k for k in keys if k not in value]
    if missing:
        raise ValueError(f"{name} must have the key(s) {missing}, got keys {sorted(value)}")
    return value


def check_module(value: Any, name: str) -> torch.nn.Module:
    if not isinstance(value, torch.nn.Module):
        raise TypeError(f"{name} must be a torch.nn.Module, got {describe(value)}")
    return value


def module_dtype(module: Any) -> torch.dtype | None:
    """The floating dtype of a module's first parameter, or a callable's ``dtype`` attribute;
    ``None`` when unknown (tensors then keep their dtype)."""
    if isinstance(module, torch.nn.Module):
        for p in module.parameters():
            if p.is_floating_point():
                return p.dtype
        return None
    dtype = getattr(module, "dtype", None)
    return dtype if isinstance(dtype, torch.dtype) else None


def module_device(module: Any) -> torch.device | None:
    if isinstance(module, torch.nn.Module):
        for p in module.parameters():
            return p.device
        return None
    device = getattr(module, "device", None)
    return device if isinstance(device, torch.device) else None
