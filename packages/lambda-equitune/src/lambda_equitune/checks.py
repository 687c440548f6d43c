"""Equivariance checks for any module and group: ``equivariance_error`` and ``assert_equivariant``."""

from __future__ import annotations

from typing import Any

import torch
from torch import nn

from ._checks import check_float, check_tensor, describe
from .groups import check_group
from .wrappers import _resolve_action

__all__ = ["assert_equivariant", "equivariance_error"]


def equivariance_error(
    module: nn.Module, group: Any, x: torch.Tensor, *, output_action: Any = None
) -> float:
    """``max_g max |module(g x) − a(module(x), g)|`` (absolute, over every entry), a float.

    ``output_action``: ``None`` checks invariance (``a(y, g) = y``); a group or a callable
    ``a(y, g)`` checks equivariance. The module runs in eval mode (dropout off) under
    ``torch.no_grad()``; its training flag is restored afterwards.
    """
    if not callable(module):
        raise TypeError(f"module must be a torch.nn.Module or callable, got {describe(module)}")
    group = check_group(group)
    check_tensor(x, "x", dtype="any", ndim=range(1, 16))
    action = _resolve_action(output_action)
    was_training = module.training if isinstance(module, nn.Module) else None
    if isinstance(module, nn.Module):
        module.eval()
    try:
        with torch.no_grad():
            base = module(x)
            worst = 0.0
            for g in group.elements:
                out = module(group.act(x, g))
                ref = base if action is None else action(base, g)
                if out.shape != ref.shape:
                    raise ValueError(
                        f"module(g x) has shape {tuple(out.shape)} but the acted output has shape "
                        f"{tuple(ref.shape)} (g = {g!r}); pass the right output_action"
                    )
                if out.numel():
                    worst = max(worst, float((out.double() - ref.double()).abs().max()))
    finally:
        if was_training is not None:
            module.train(was_training)
    return worst


def assert_equivariant(
    module: nn.Module,
    group: Any,
    x: torch.Tensor,
    *,
    output_action: Any = None,
    atol: float = 1e-5,
) -> float:
    """Raise ``AssertionError`` unless ``equivariance_error(...) <= atol``; returns the error."""
    atol = check_float(atol, "atol", minimum=0.0)
    err = equivariance_error(module, group, x, output_action=output_action)
    if not err <= atol:
        raise AssertionError(
            f"{type(module).__name__} is not {'invariant' if output_action is None else 'equivariant'}"
            f" under {group!r}: max error {err:.3g} > atol {atol:.3g}"
        )
    return err
