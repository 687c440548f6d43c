"""Package-specific checks built on the shared ``_checks`` vocabulary."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import torch

from ._checks import check_array, check_tensor, describe


def as_float_tensor(
    value: Any,
    name: str,
    *,
    ndim: int | Sequence[int] | None = None,
    shape: Sequence[int | None] | None = None,
    allow_neg_inf: bool = False,
) -> tuple[torch.Tensor, bool]:
    """``value`` (a floating tensor, or anything numpy takes) as a floating tensor, and whether
    it was a tensor. NaN and +inf are refused; -inf only with ``allow_neg_inf``."""
    is_tensor = isinstance(value, torch.Tensor)
    if is_tensor:
        check_tensor(value, name, ndim=ndim, shape=shape, finite=False)
        t = value
    else:
        arr = check_array(value, name, ndim=ndim, shape=shape, finite=False)
        t = torch.from_numpy(np.ascontiguousarray(arr))
    bad = torch.isnan(t) | (t == float("inf"))
    if not allow_neg_inf:
        bad |= t == float("-inf")
    if bool(bad.any()):
        what = "NaN or +inf" if allow_neg_inf else "NaN or infinite"
        raise ValueError(f"{name} must be finite, got {int(bad.sum())} {what} value(s)")
    return t, is_tensor


def check_classnames(value: Any, name: str = "classnames") -> list[str]:
    """A non-empty sequence of non-empty strings (a single string is refused)."""
    if isinstance(value, str | bytes) or not isinstance(value, Sequence | tuple | list):
        if not (hasattr(value, "__iter__") and not isinstance(value, str | bytes | dict)):
            raise TypeError(f"{name} must be a sequence of strings, got {describe(value)}")
    items = list(value)
    if not items:
        raise ValueError(f"{name} must not be empty")
    for i, c in enumerate(items):
        if not isinstance(c, str):
            raise TypeError(f"{name}[{i}] must be a str, got {describe(c)}")
        if not c.strip():
            raise ValueError(f"{name}[{i}] must be a non-empty string, got {c!r}")
    return items


def check_encoder_inputs(ctx: Any, classnames: Any, token_dim: int) -> list[str]:
    """The text-encoder protocol's inputs: ``ctx`` [C, M, token_dim] and C class names."""
    check_tensor(ctx, "ctx", ndim=3)
    names = check_classnames(classnames, "classnames")
    if ctx.shape[2] != token_dim:
        raise ValueError(f"ctx must have token_dim={token_dim} columns, got {ctx.shape[2]}")
    if len(names) != ctx.shape[0]:
        raise ValueError(f"classnames has {len(names)} names but ctx has {ctx.shape[0]} rows")
    return names
