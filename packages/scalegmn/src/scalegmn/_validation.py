"""Package-specific checks, built on the shared vocabulary in ``_checks``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import torch

from ._checks import check_array, check_int, check_tensor, describe

__all__ = ["as_float_tensor", "check_layer_dims", "check_layouts", "check_mlp", "is_mlp_list"]


def as_float_tensor(value: Any, name: str, *, ndim, allow_empty: bool = False) -> torch.Tensor:
    """A floating tensor (returned unchanged) or an array-like of real numbers (converted,
    float64 kept, other dtypes to float32); NaN/inf, wrong ndim and emptiness are ValueErrors."""
    if isinstance(value, torch.Tensor):
        return check_tensor(value, name, ndim=ndim, allow_empty=allow_empty)
    arr = check_array(value, name, ndim=ndim, dtype="numeric", allow_empty=allow_empty)
    dtype = torch.float64 if arr.dtype == np.float64 else torch.float32
    return torch.as_tensor(arr, dtype=dtype)


def check_layer_dims(value: Any, name: str = "layer_dims") -> tuple[int, ...]:
    """At least two positive layer widths ``(d_0, ..., d_L)``."""
    if isinstance(value, str | bytes) or not isinstance(value, Sequence | np.ndarray):
        raise TypeError(f"{name} must be a sequence of positive integers, got {describe(value)}")
    dims = tuple(check_int(d, f"{name}[{i}]", minimum=1) for i, d in enumerate(value))
    if len(dims) < 2:
        raise ValueError(f"{name} must hold at least 2 layer widths, got {list(dims)}")
    return dims


def check_layouts(value: Any, name: str = "layer_dims") -> tuple[tuple[int, ...], ...]:
    """One layout ``(d_0, ..., d_L)`` or a non-empty sequence of layouts sharing d_0 and d_L
    (a model that serves networks of different widths and depths). Returns the distinct
    layouts in order."""
    if (
        isinstance(value, Sequence)
        and not isinstance(value, str | bytes)
        and len(value) > 0
        and all(isinstance(v, Sequence | np.ndarray) and not isinstance(v, str) for v in value)
    ):
        layouts = [check_layer_dims(v, f"{name}[{i}]") for i, v in enumerate(value)]
        for i, d in enumerate(layouts):
            if (d[0], d[-1]) != (layouts[0][0], layouts[0][-1]):
                raise ValueError(
                    f"{name}[{i}] must have the input width {layouts[0][0]} and output width "
                    f"{layouts[0][-1]} of {name}[0], got {list(d)}"
                )
        return tuple(dict.fromkeys(layouts))
    return (check_layer_dims(value, name),)


def is_mlp_list(weights: Any) -> bool:
    """True when ``weights`` is a list of networks (each a list of weight tensors)."""
    return (
        isinstance(weights, Sequence)
        and not isinstance(weights, str | bytes)
        and len(weights) > 0
        and isinstance(weights[0], list | tuple)
    )


def _as_list(value: Any, name: str) -> list:
    if isinstance(value, torch.Tensor | np.ndarray | str | bytes) or not isinstance(
        value, Sequence
    ):
        raise TypeError(f"{name} must be a list of tensors (one per layer), got {describe(value)}")
    if len(value) == 0:
        raise ValueError(f"{name} must hold at least one layer, got an empty list")
    return list(value)


def check_mlp(
    weights: Any, biases: Any, *, layer_dims: tuple[int, ...] | None = None
) -> tuple[list[torch.Tensor], list[torch.Tensor], bool]:
    """Validate an MLP given as ``weights`` (W_l [d_l, d_{l-1}] or batched [B, d_l, d_{l-1}])
    and ``biases`` (b_l [d_l] or [B, d_l]). Returns the tensors (one common floating dtype and
    device) and whether they are batched."""
    ws = _as_list(weights, "weights")
    bs = _as_list(biases, "biases")
    if len(bs) != len(ws):
        raise ValueError(f"biases must hold one tensor per layer: {len(ws)} weights, got {len(bs)}")
    ws = [as_float_tensor(w, f"weights[{i}]", ndim=(2, 3)) for i, w in enumerate(ws)]
    batched = ws[0].ndim == 3
    wnd = 3 if batched else 2
    for i, w in enumerate(ws):
        if w.ndim != wnd:
            raise ValueError(
                f"weights[{i}] must be {wnd}-D like weights[0], got shape {tuple(w.shape)}"
            )
    bs = [as_float_tensor(b, f"biases[{i}]", ndim=wnd - 1) for i, b in enumerate(bs)]
    lead = ws[0].shape[:1] if batched else ()
    for i, (w, b) in enumerate(zip(ws, bs, strict=True)):
        if w.shape[: len(lead)] != lead:
            raise ValueError(
                f"weights[{i}] has batch size {w.shape[0]} but weights[0] has {lead[0]}"
            )
        if i > 0 and w.shape[-1] != ws[i - 1].shape[-2]:
            raise ValueError(
                f"weights[{i}] has {w.shape[-1]} input columns but weights[{i - 1}] has "
                f"{ws[i - 1].shape[-2]} output rows, got shape {tuple(w.shape)}"
            )
        if tuple(b.shape) != tuple(w.shape[:-1]):
            raise ValueError(
                f"biases[{i}] must have shape {tuple(w.shape[:-1])} to match weights[{i}], "
                f"got shape {tuple(b.shape)}"
            )
    dims = (ws[0].shape[-1], *(w.shape[-2] for w in ws))
    if layer_dims is not None and tuple(dims) != tuple(layer_dims):
        if len(dims) != len(layer_dims):
            raise ValueError(
                f"weights must hold {len(layer_dims) - 1} layers (layer_dims "
                f"{list(layer_dims)}), got {len(ws)}"
            )
        i = next(k for k in range(1, len(dims)) if dims[k - 1 : k + 1] != layer_dims[k - 1 : k + 1])
        raise ValueError(
            f"weights[{i - 1}] must have shape (..., {layer_dims[i]}, {layer_dims[i - 1]}) for "
            f"layer_dims {list(layer_dims)}, got shape {tuple(ws[i - 1].shape)}"
        )
    dtype = ws[0].dtype
    for t in ws + bs:
        dtype = torch.promote_types(dtype, t.dtype)
    device = ws[0].device
    ws = [w.to(device=device, dtype=dtype) for w in ws]
    bs = [b.to(device=device, dtype=dtype) for b in bs]
    return ws, bs, batched
