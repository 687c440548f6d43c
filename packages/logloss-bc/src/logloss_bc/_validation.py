"""Checks specific to this package, built on the shared vocabulary (``_checks``)."""

from __future__ import annotations

import numpy as np

from papershelf_mdp import TabularMDP

from ._checks import check_array, check_same_length


def check_mdp(mdp, name: str = "mdp", *, finite: bool = True) -> TabularMDP:
    """A :class:`TabularMDP`; with ``finite`` it must have a finite horizon."""
    if not isinstance(mdp, TabularMDP):
        raise TypeError(f"{name} must be a TabularMDP, got {type(mdp).__name__}")
    if finite and mdp.horizon is None:
        raise ValueError(
            f"{name} must have a finite horizon (imitation is episodic here), got a discounted "
            f"MDP with gamma={mdp.gamma}"
        )
    return mdp


def check_indices(value, name: str, *, upper: int, ndim=2, what: str = "index") -> np.ndarray:
    """An integer array (integral floats accepted) with every entry in ``[0, upper)``; a NaN or
    infinite entry is a ValueError like everywhere else."""
    arr = check_array(value, name, ndim=ndim, dtype="any")
    if arr.dtype.kind == "f":
        check_array(arr, name)  # NaN / inf -> ValueError
    arr = check_array(arr, name, dtype="int")
    if arr.min() < 0 or arr.max() >= upper:
        bad = arr[(arr < 0) | (arr >= upper)].flat[0]
        raise ValueError(f"{name} must hold {what}es in [0, {upper - 1}], got {int(bad)}")
    return arr


def check_same_shape(**arrays) -> tuple:
    """All keyword arrays have the same shape (after :func:`check_same_length` on axis 0)."""
    check_same_length(**arrays)
    (first, a0), *rest = arrays.items()
    for k, a in rest:
        if a.shape != a0.shape:
            raise ValueError(f"{k} has shape {a.shape} but {first} has {a0.shape}; they must match")
    return a0.shape
