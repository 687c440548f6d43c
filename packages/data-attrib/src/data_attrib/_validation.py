"""Package-specific checks built on the shared vocabulary in ``_checks``."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np
import torch

from ._checks import check_array, check_tensor, describe

__all__ = ["as_batches", "to_numpy_array"]


def to_numpy_array(value: Any, name: str, **kwargs: Any) -> np.ndarray:
    """``check_array`` that also accepts a torch tensor (moved to the CPU first)."""
    if isinstance(value, torch.Tensor):
        if value.is_complex():
            raise TypeError(f"{name} must hold real numbers, got {describe(value)}")
        value = value.detach().cpu().numpy()
    return check_array(value, name, **kwargs)


def _check_batch(batch: Any, name: str) -> tuple[torch.Tensor, ...]:
    if isinstance(batch, torch.Tensor):
        batch = (batch,)
    if not isinstance(batch, tuple | list) or len(batch) == 0:
        raise TypeError(
            f"{name} must yield batches that are tuples of tensors such as (x, y), "
            f"got {describe(batch)}"
        )
    out = []
    for j, t in enumerate(batch):
        if not isinstance(t, torch.Tensor):
            raise TypeError(
                f"{name} must yield tuples of torch tensors; item {j} of a batch is {describe(t)}"
            )
        if t.ndim == 0:
            raise ValueError(
                f"{name}: every tensor of a batch needs a leading batch dimension, item {j} is 0-d"
            )
        if t.is_floating_point():
            check_tensor(t, name, ndim=None, allow_empty=True)
        out.append(t)
    n = out[0].shape[0]
    for j, t in enumerate(out[1:], start=1):
        if t.shape[0] != n:
            raise ValueError(
                f"{name}: the tensors of a batch must have the same length; item 0 has "
                f"{n} rows but item {j} has {t.shape[0]}"
            )
    return tuple(out)


def as_batches(loader: Any, name: str) -> list[tuple[torch.Tensor, ...]]:
    """The batches of ``loader`` as a list of tuples of tensors (every batch checked).

    ``loader`` is a ``torch.utils.data.DataLoader`` (not shuffled), any iterable of batches
    (tuples of tensors whose first dimension is the batch), a ``Dataset`` of examples, or one
    batch given as a tuple/list of tensors such as ``(x, y)``.
    """
    from torch.utils.data import DataLoader, Dataset, RandomSampler

    if loader is None or isinstance(loader, str | bytes | torch.Tensor | np.ndarray):
        raise TypeError(
            f"{name} must be a DataLoader, an iterable of (x, y) batches or one (x, y) tuple "
            f"of tensors, got {describe(loader)}"
        )
    if isinstance(loader, DataLoader):
        if isinstance(loader.sampler, RandomSampler):
            raise ValueError(
                f"{name} must not shuffle (shuffle=False): rows of the scores follow its order"
            )
        batches: Iterable[Any] = loader
    elif isinstance(loader, Dataset) and not isinstance(loader, tuple | list):
        batches = DataLoader(loader, batch_size=256, shuffle=False)
    elif (
        isinstance(loader, tuple | list)
        and loader
        and all(isinstance(t, torch.Tensor) for t in loader)
    ):
        batches = [tuple(loader)]
    elif isinstance(loader, Iterable):
        batches = loader
    else:
        raise TypeError(
            f"{name} must be a DataLoader, an iterable of (x, y) batches or one (x, y) tuple "
            f"of tensors, got {describe(loader)}"
        )
    out = [_check_batch(b, name) for b in batches]
    out = [b for b in out if b[0].shape[0] > 0]
    if not out:
        raise ValueError(f"{name} must hold at least one example, got none")
    width = len(out[0])
    for b in out[1:]:
        if len(b) != width:
            raise ValueError(
                f"{name}: every batch must have the same number of items, got {width} and {len(b)}"
            )
    return out
