"""Package-specific checks built on the shared vocabulary in ``_checks``."""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from ._checks import check_array, check_float, check_tensor


def as_tensor(value: Any, name: str, *, ndim: int, dtype: torch.dtype, shape=None) -> torch.Tensor:
    """A finite, non-empty float tensor (numpy arrays and nested lists accepted), cast to ``dtype``."""
    if isinstance(value, torch.Tensor):
        check_tensor(value, name, ndim=ndim, shape=shape)
        return value.detach().to(dtype)
    arr = check_array(value, name, ndim=ndim, shape=shape)
    return torch.as_tensor(np.ascontiguousarray(arr), dtype=dtype)


def as_time(value: Any, name: str, *, batch: int, dtype: torch.dtype) -> torch.Tensor:
    """A time: a positive finite float, or a tensor/array of shape [batch] (or [batch, 1])."""
    if isinstance(value, torch.Tensor | np.ndarray | list | tuple):
        t = as_tensor(value, name, ndim=(0, 1, 2), dtype=dtype)
        if t.ndim == 2:
            if t.shape[1] != 1:
                raise ValueError(
                    f"{name} must have shape [{batch}] or [{batch}, 1], got {tuple(t.shape)}"
                )
            t = t[:, 0]
        if t.ndim == 0:
            t = t.expand(batch)
        if t.shape[0] != batch:
            raise ValueError(f"{name} must have {batch} entries (one per row), got {t.shape[0]}")
        if bool((t <= 0).any()):
            raise ValueError(f"{name} must be positive, got min {float(t.min())}")
        return t
    t = check_float(value, name, minimum=0.0, min_inclusive=False)
    return torch.full((batch,), t, dtype=dtype)
