"""Package-specific checks, built on the shared vocabulary (``_checks``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import torch

from ._checks import check_array, check_tensor, describe


def as_tensor(
    value: Any,
    name: str,
    *,
    ndim: int | Sequence[int] | None = None,
    shape: Sequence[int | None] | None = None,
    dtype: torch.dtype | None = None,
    allow_empty: bool = False,
) -> torch.Tensor:
    """A finite real tensor from a tensor or an array-like (bools are refused).

    Floating tensors and arrays keep their dtype unless ``dtype`` is given (so a float64 image
    stays bit-exact); integer ones become ``dtype`` (default float32). Nothing is clamped.
    """
    if isinstance(value, torch.Tensor):
        check_tensor(value, name, ndim=ndim, shape=shape, dtype="any", allow_empty=allow_empty)
        if value.dtype == torch.bool:
            raise TypeError(f"{name} must hold real numbers, got {describe(value)}")
        if value.is_floating_point():
            check_tensor(value, name, ndim=ndim, shape=shape, allow_empty=allow_empty)
            return value if dtype is None else value.to(dtype)
        return value.to(dtype or torch.float32)
    arr = check_array(value, name, ndim=ndim, shape=shape, dtype="numeric", allow_empty=allow_empty)
    if arr.dtype.kind == "f":
        return torch.as_tensor(arr, dtype=dtype)
    return torch.as_tensor(np.asarray(arr, dtype=np.float64), dtype=dtype or torch.float32)


def as_mask(value: Any, name: str, *, ndim: int | Sequence[int] = 2) -> torch.Tensor:
    """A boolean mask tensor from a bool tensor/array (or a 0/1 numeric one)."""
    if isinstance(value, torch.Tensor):
        check_tensor(value, name, ndim=ndim, dtype="any")
        if value.dtype == torch.bool:
            return value
        t = value
    else:
        arr = check_array(value, name, ndim=ndim, dtype="any")
        if arr.dtype == np.bool_:
            return torch.as_tensor(arr)
        t = torch.as_tensor(arr)
    if t.is_floating_point() and not bool(torch.isfinite(t).all()):
        raise ValueError(f"{name} must be finite, got NaN or infinite value(s)")
    if not bool(((t == 0) | (t == 1)).all()):
        raise ValueError(f"{name} must be a boolean mask (only 0 and 1), got other values")
    return t != 0


def check_unit_interval(t: torch.Tensor, name: str) -> torch.Tensor:
    if t.numel() and (bool((t < 0).any()) or bool((t > 1).any())):
        lo, hi = float(t.min()), float(t.max())
        raise ValueError(f"{name} must lie in [0, 1], got values in [{lo:g}, {hi:g}]")
    return t


def check_module(value: Any, name: str) -> torch.nn.Module:
    if not isinstance(value, torch.nn.Module):
        raise TypeError(f"{name} must be a torch.nn.Module, got {describe(value)}")
    return value


def check_fields(fields: Any, name: str = "fields") -> list:
    """A field (a callable ``x -> (sigma, rgb)``) or a non-empty list/tuple of them."""
    if callable(fields) and not isinstance(fields, list | tuple):
        return [fields]
    if not isinstance(fields, list | tuple):
        raise TypeError(f"{name} must be a field or a list of fields, got {describe(fields)}")
    if not fields:
        raise ValueError(
            f"{name} must hold at least one field, got an empty {type(fields).__name__}"
        )
    for i, f in enumerate(fields):
        if not callable(f):
            raise TypeError(
                f"{name}[{i}] must be a field (callable x -> (sigma, rgb)), got {describe(f)}"
            )
    return list(fields)


def check_str(value: Any, name: str) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a str, got {describe(value)}")
    return value
