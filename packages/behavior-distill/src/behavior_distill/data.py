"""Offline datasets in the D4RL layout, saved to and loaded from ``.npz`` files."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import numpy as np

from ._checks import check_array, check_same_length, describe

__all__ = ["D4RL_KEYS", "load_dataset", "save_dataset"]

#: The fields of a D4RL ``qlearning_dataset`` dict (``actions`` may be (n,) ints here).
D4RL_KEYS = ("observations", "actions", "rewards", "next_observations", "terminals")


def _check_dataset(data, name: str = "data") -> dict:
    if not isinstance(data, Mapping):
        raise TypeError(f"{name} must be a dict in the D4RL layout, got {describe(data)}")
    if "observations" not in data:
        raise ValueError(f"{name} must have the key 'observations', got keys {sorted(data)}")
    out = {}
    for key, value in data.items():
        if not isinstance(key, str):
            raise TypeError(f"{name} keys must be strings, got {describe(key)}")
        if hasattr(value, "detach"):  # a torch tensor
            value = value.detach().cpu().numpy()
        out[key] = check_array(value, f"{name}[{key!r}]", dtype="any", allow_empty=False)
    check_array(out["observations"], f"{name}['observations']", ndim=2)
    check_same_length(**{f"{name}[{k!r}]": v for k, v in out.items()})
    return out


def save_dataset(path, data) -> Path:
    """Write a D4RL-layout dict (numpy arrays or tensors, equal lengths) to ``path`` (.npz)."""
    arrays = _check_dataset(data)
    path = Path(path)
    np.savez_compressed(path, **arrays)
    return path if path.suffix == ".npz" else path.with_name(path.name + ".npz")


def load_dataset(path) -> dict:
    """Read a ``.npz`` file written by :func:`save_dataset` (or any with the D4RL keys) back into
    a dict of numpy arrays, checked (finite, equal lengths, 2-d observations)."""
    with np.load(Path(path), allow_pickle=False) as f:
        data = {k: f[k] for k in f.files}
    return _check_dataset(data, "path")
