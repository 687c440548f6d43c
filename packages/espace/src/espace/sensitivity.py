"""Layer-wise sensitivity analysis: project one layer at a time, measure, choose."""

from __future__ import annotations

from collections.abc import Callable

from torch import nn

from ._checks import check_callable, check_float, describe
from ._validation import check_module
from .layers import ProjectedLinear, _set_module

__all__ = ["layer_sensitivity", "select_calibrators"]


def layer_sensitivity(
    model: nn.Module, eval_fn: Callable[[nn.Module], float], candidates: dict
) -> dict[str, dict[str, float]]:
    """``{layer: {calibrator: eval_fn(model with only that layer projected)}}``.

    ``candidates`` is ``{calibrator: {layer: P}}`` (e.g. the projections of the MSE, GO and NL
    calibrators at one rank). Each layer is swapped for a :class:`ProjectedLinear` in turn and
    put back afterwards, so ``model`` is unchanged on return. ``eval_fn`` returns a float (a
    validation loss or perplexity; lower is better).
    """
    model = check_module(model, "model")
    eval_fn = check_callable(eval_fn, "eval_fn")
    if not isinstance(candidates, dict):
        raise TypeError(
            f"candidates must be a dict {{calibrator: {{layer: P}}}}, got {describe(candidates)}"
        )
    if not candidates:
        raise ValueError("candidates must hold at least one calibrator, got an empty dict")
    modules = dict(model.named_modules())
    table: dict[str, dict[str, float]] = {}
    for calibrator, projections in candidates.items():
        if not isinstance(projections, dict) or not projections:
            raise ValueError(
                f"candidates[{calibrator!r}] must be a non-empty dict {{layer: P}}, got "
                f"{describe(projections)}"
            )
        for name, P in projections.items():
            if name not in modules:
                raise ValueError(f"candidates[{calibrator!r}] names {name!r}, not a module")
            original = modules[name]
            layer = ProjectedLinear.from_linear(original, P, mode="inference")
            _set_module(model, name, layer)
            try:
                value = check_float(eval_fn(model), "eval_fn(model)", finite=False)
            finally:
                _set_module(model, name, original)
            table.setdefault(name, {})[str(calibrator)] = value
    return table


def select_calibrators(table: dict[str, dict[str, float]]) -> dict[str, str]:
    """The calibrator with the lowest measured value per layer (ties: the first listed)."""
    if not isinstance(table, dict):
        raise TypeError(
            f"table must be a dict {{layer: {{calibrator: value}}}}, got {describe(table)}"
        )
    if not table:
        raise ValueError("table must hold at least one layer, got an empty dict")
    choice: dict[str, str] = {}
    for name, row in table.items():
        if not isinstance(row, dict) or not row:
            raise ValueError(f"table[{name!r}] must be a non-empty dict, got {describe(row)}")
        values = {
            k: check_float(v, f"table[{name!r}][{k!r}]", finite=False) for k, v in row.items()
        }
        choice[name] = min(values, key=lambda k: values[k])
    return choice
