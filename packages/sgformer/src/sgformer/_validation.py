"""Package-specific checks, built on the shared vocabulary in ``_checks``."""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from ._checks import check_array, check_int, check_tensor, describe

__all__ = ["as_float_tensor", "as_edge_index", "as_index_tensor"]


def as_float_tensor(value: Any, name: str, *, ndim, allow_empty: bool = False) -> torch.Tensor:
    """A floating tensor (returned unchanged) or an array-like of real numbers (converted,
    float64 kept, other dtypes to float32); NaN/inf, wrong ndim and emptiness are ValueErrors."""
    if isinstance(value, torch.Tensor):
        return check_tensor(value, name, ndim=ndim, allow_empty=allow_empty)
    arr = check_array(value, name, ndim=ndim, dtype="numeric", allow_empty=allow_empty)
    dtype = torch.float64 if arr.dtype == np.float64 else torch.float32
    return torch.as_tensor(arr, dtype=dtype)


def as_index_tensor(value: Any, name: str, *, ndim, allow_empty: bool = True) -> torch.Tensor:
    """An integer tensor or integer array-like -> int64 tensor (bool and float are TypeErrors)."""
    if isinstance(value, torch.Tensor):
        check_tensor(value, name, ndim=ndim, dtype="integer", allow_empty=allow_empty)
        return value.long()
    if isinstance(value, np.ndarray) and value.dtype.kind == "f":
        raise TypeError(f"{name} must hold integers, got {describe(value)}")
    arr = check_array(value, name, ndim=ndim, dtype="int", allow_empty=allow_empty)
    return torch.as_tensor(arr, dtype=torch.long)


def as_edge_index(value: Any, name: str = "edge_index", *, num_nodes: int | None = None):
    """``edge_index`` as an int64 [2, E] tensor with indices in [0, num_nodes)."""
    ei = as_index_tensor(value, name, ndim=2)
    if ei.shape[0] != 2:
        raise ValueError(f"{name} must have shape (2, E), got shape {tuple(ei.shape)}")
    if ei.numel():
        lo = int(ei.min())
        if lo < 0:
            raise ValueError(f"{name} must hold node indices >= 0, got {lo}")
        if num_nodes is not None:
            hi = int(ei.max())
            if hi >= num_nodes:
                raise ValueError(
                    f"{name} holds node index {hi}, out of range for num_nodes={num_nodes}"
                )
    return ei


def as_num_nodes(value: Any, name: str = "num_nodes") -> int:
    return check_int(value, name, minimum=1)
