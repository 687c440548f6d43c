"""Package-specific checks, built on the shared vocabulary (``_checks``)."""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from ._checks import check_array, check_tensor, describe


def as_tensor(
    value: Any,
    name: str,
    *,
    ndim: int | tuple[int, ...] | None = None,
    shape: tuple[int | None, ...] | None = None,
    dtype: torch.dtype | None = None,
    device: torch.device | None = None,
) -> torch.Tensor:
    """A finite, non-empty floating tensor from a tensor or an array-like.

    Tensors must be real (floating, integer); bool and complex are refused. The result is cast to
    ``dtype`` (when given; else a floating tensor keeps its dtype and anything else becomes
    float64). Nothing is clamped or dropped.
    """
    if isinstance(value, torch.Tensor):
        check_tensor(value, name, ndim=ndim, shape=shape, dtype="any")
        if value.dtype == torch.bool:
            raise TypeError(f"{name} must hold real numbers, got {describe(value)}")
        if value.is_floating_point():
            check_tensor(value, name, ndim=ndim, shape=shape)
            return value.to(device=device, dtype=dtype or value.dtype)
        return value.to(device=device, dtype=dtype or torch.float64)
    arr = check_array(value, name, ndim=ndim, shape=shape, dtype="numeric")
    out = torch.as_tensor(np.asarray(arr, dtype=np.float64), device=device)
    return out.to(dtype or torch.float64)


def check_layers(value: Any, name: str, sizes: list[int], *, batch: int | None = None, like=None):
    """A list of per-layer tensors ``[B, sizes[i]]`` (same ``B``), each through :func:`as_tensor`."""
    if isinstance(value, torch.Tensor | np.ndarray) or not isinstance(value, list | tuple):
        raise TypeError(f"{name} must be a list of {len(sizes)} tensors, got {describe(value)}")
    if len(value) != len(sizes):
        raise ValueError(f"{name} must hold {len(sizes)} tensors (one per layer), got {len(value)}")
    out = []
    for i, (v, d) in enumerate(zip(value, sizes)):
        kw = {} if like is None else {"dtype": like.dtype, "device": like.device}
        t = as_tensor(v, f"{name}[{i}]", ndim=2, **kw)
        if t.shape[1] != d:
            raise ValueError(f"{name}[{i}] must have {d} columns, got shape {tuple(t.shape)}")
        if batch is None:
            batch = t.shape[0]
        elif t.shape[0] != batch:
            raise ValueError(f"{name}[{i}] has {t.shape[0]} rows but the batch has {batch}")
        out.append(t)
    return out
