"""Package-specific checks built on the shared vocabulary in ``_checks``."""

from __future__ import annotations

from typing import Any

import numpy as np

from ._checks import check_array, check_tensor, describe

__all__ = ["as_input", "as_tensor", "check_series"]


def check_series(value: Any, name: str, *, ndim: int = 2) -> np.ndarray:
    """A finite real array (numpy, sequence or numeric DataFrame) of ``ndim`` dimensions."""
    if hasattr(value, "to_numpy") and hasattr(value, "columns"):  # pandas DataFrame
        value = value.to_numpy()
    return check_array(value, name, ndim=ndim)


def as_tensor(value: Any, name: str, *, ndim: int, dtype: Any, device: Any = None) -> Any:
    """A torch tensor of ``ndim`` dims from a tensor or array-like, cast to ``dtype``."""
    import torch

    if isinstance(value, torch.Tensor):
        check_tensor(value, name, ndim=ndim)
        return value.to(dtype=dtype, device=device)
    if value is None:
        raise TypeError(f"{name} must be an array or tensor, got {describe(value)}")
    arr = check_series(value, name, ndim=ndim)
    return torch.as_tensor(arr, dtype=dtype, device=device)


def as_input(value: Any, name: str, *, ndim: int, like: Any) -> Any:
    """A floating tensor argument of a module: a tensor is checked and returned unchanged; an
    array-like is checked and converted to the dtype and device of the tensor ``like``."""
    import torch

    if isinstance(value, torch.Tensor):
        return check_tensor(value, name, ndim=ndim)
    if value is None:
        raise TypeError(f"{name} must be a tensor or array, got {describe(value)}")
    arr = check_series(value, name, ndim=ndim)
    return torch.as_tensor(arr, dtype=like.dtype, device=like.device)
