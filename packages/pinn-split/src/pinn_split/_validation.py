"""Package-specific checks, built on the shared vocabulary (``_checks``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import torch

from ._checks import check_array, check_int, check_tensor, describe


def as_points(value: Any, name: str, *, dim: int | None, dtype: torch.dtype) -> torch.Tensor:
    """A finite, non-empty [n, dim] floating tensor from a tensor or an array-like (dim None:
    any number of columns)."""
    if isinstance(value, torch.Tensor):
        check_tensor(value, name, ndim=2, dtype="any")
        if value.dtype == torch.bool or not value.is_floating_point():
            raise TypeError(f"{name} must be a floating tensor, got {describe(value)}")
        check_tensor(value, name, ndim=2, shape=(None, dim))
        return value.to(dtype=dtype)
    arr = check_array(value, name, ndim=2, shape=(None, dim))
    return torch.as_tensor(arr, dtype=dtype)


def check_alpha(value: Any, name: str, *, dim: int) -> tuple[int, ...]:
    """A multi-index: a tuple (or list) of ``dim`` non-negative integers."""
    if not isinstance(value, tuple | list):
        raise TypeError(
            f"{name} must be a tuple of {dim} non-negative integers, got {describe(value)}"
        )
    if len(value) != dim:
        raise ValueError(f"{name} must have {dim} entries (one per input), got {len(value)}")
    return tuple(check_int(a, f"{name}[{i}]", minimum=0) for i, a in enumerate(value))


def check_terms(value: Any, name: str, *, dim: int, allow_empty: bool = False) -> dict:
    """``{alpha: coeff}`` with alpha a multi-index and coeff a finite number or a callable."""
    if not isinstance(value, Mapping):
        raise TypeError(f"{name} must be a dict {{alpha: coeff}}, got {describe(value)}")
    if not value and not allow_empty:
        raise ValueError(f"{name} must have at least one term, got an empty dict")
    out = {}
    for alpha, coeff in value.items():
        key = check_alpha(alpha, f"{name} key {alpha!r}", dim=dim)
        out[key] = check_coeff(coeff, f"{name}[{alpha!r}]")
    return out


def check_coeff(value: Any, name: str) -> Any:
    if callable(value):
        return value
    from ._checks import check_float

    return check_float(value, name)


def check_net(value: Any, name: str, *, dim: int | None = None) -> Any:
    """A torch.nn.Module (or any callable [n, dim] -> [n]) whose input dimension, when it
    declares one as ``.d``, is ``dim``."""
    if not callable(value) or isinstance(value, type):
        raise TypeError(f"{name} must be a torch.nn.Module or a callable, got {describe(value)}")
    d = getattr(value, "d", None)
    if dim is not None and isinstance(d, int) and d != dim:
        raise ValueError(f"{name} takes {d} inputs but the PDE has dim={dim}")
    return value


def module_dtype(module: Any) -> torch.dtype:
    if not isinstance(module, torch.nn.Module):
        return torch.float64
    for p in module.parameters():
        if p.is_floating_point():
            return p.dtype
    for b in module.buffers():
        if b.is_floating_point():
            return b.dtype
    return torch.float64
