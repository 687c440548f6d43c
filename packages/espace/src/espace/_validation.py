"""Package-specific checks built on the shared vocabulary in ``_checks``."""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from torch import nn

from ._checks import check_array, check_tensor, describe


def as_float_tensor(value: Any, name: str, *, ndim: int | None = None) -> torch.Tensor:
    """A real floating tensor (numpy arrays and nested lists are converted), finite, non-empty."""
    if isinstance(value, torch.Tensor):
        check_tensor(value, name, ndim=ndim)
        return value
    arr = check_array(value, name, ndim=ndim)
    if arr.dtype.kind not in "f":
        arr = arr.astype(np.float64)
    return torch.from_numpy(np.ascontiguousarray(arr))


def is_conv1d(module: Any) -> bool:
    """Hugging Face's ``Conv1D`` (GPT-2): a linear layer whose weight is stored (in, out)."""
    return (
        isinstance(module, nn.Module)
        and type(module).__name__ == "Conv1D"
        and isinstance(getattr(module, "weight", None), torch.Tensor)
        and module.weight.ndim == 2
    )


def is_linear(module: Any) -> bool:
    return isinstance(module, nn.Linear) or is_conv1d(module)


def check_linear(value: Any, name: str) -> nn.Module:
    if not is_linear(value):
        raise TypeError(
            f"{name} must be a torch.nn.Linear (or a Hugging Face Conv1D), got {describe(value)}"
        )
    check_tensor(value.weight, f"{name}.weight", ndim=2)
    return value


def linear_parts(module: nn.Module) -> tuple[torch.Tensor, torch.Tensor | None]:
    """``(W, b)`` of a linear layer with ``W`` as (out_features N, in_features K)."""
    w = module.weight.t() if is_conv1d(module) else module.weight
    return w, module.bias


def check_module(value: Any, name: str) -> nn.Module:
    if not isinstance(value, nn.Module):
        raise TypeError(f"{name} must be a torch.nn.Module, got {describe(value)}")
    return value
