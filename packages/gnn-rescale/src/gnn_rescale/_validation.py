"""Package-specific checks built on the shared vocabulary in ``_checks``."""

from __future__ import annotations

from typing import Any

import torch

from ._checks import check_array, check_tensor


def check_features(x: Any, name: str, *, dim: int | None = None) -> torch.Tensor:
    """Node features: a floating tensor [N, F] (F = ``dim`` when given), finite, N >= 1."""
    check_tensor(x, name, ndim=2, dtype="floating")
    if dim is not None and x.shape[1] != dim:
        raise ValueError(f"{name} must have {dim} columns, got shape {tuple(x.shape)}")
    return x


def check_edge_index(value: Any, name: str, *, num_nodes: int) -> torch.Tensor:
    """An integer tensor [2, E] with entries in [0, num_nodes)."""
    check_tensor(value, name, ndim=2, dtype="integer", allow_empty=True)
    if value.shape[0] != 2:
        raise ValueError(f"{name} must have shape [2, E], got shape {tuple(value.shape)}")
    if value.numel() and (int(value.min()) < 0 or int(value.max()) >= num_nodes):
        raise ValueError(
            f"{name} entries must lie in [0, {num_nodes}), got range "
            f"[{int(value.min())}, {int(value.max())}]"
        )
    return value


def as_scale_vector(value: Any, name: str, *, size: int, like: torch.Tensor) -> torch.Tensor:
    """Positive finite scale factors: a scalar, a sequence/array or a tensor of ``size`` entries,
    returned as a tensor of ``like``'s dtype and device."""
    if isinstance(value, torch.Tensor):
        check_tensor(value, name, ndim=(0, 1), dtype="floating")
        t = value.detach().to(dtype=like.dtype, device=like.device)
    else:
        arr = check_array(value, name, ndim=(0, 1))
        t = torch.as_tensor(arr, dtype=like.dtype, device=like.device)
    if t.ndim == 0:
        t = t.expand(size).clone()
    if t.shape[0] != size:
        raise ValueError(f"{name} must have {size} entries (one per neuron), got {t.shape[0]}")
    if bool((t <= 0).any()):
        raise ValueError(f"{name} must be > 0, got min {float(t.min())}")
    return t
