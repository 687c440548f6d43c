"""Checks of probability arrays, built on the shared vocabulary (``_checks``)."""

from __future__ import annotations

import numpy as np

from ._checks import check_array

#: Tolerance on a probability row's sum.
ATOL = 1e-8


def check_stochastic(arr: np.ndarray, name: str, *, atol: float = ATOL) -> np.ndarray:
    """Entries >= 0 and every row (last axis) sums to 1 within ``atol``."""
    if np.any(arr < 0):
        idx = tuple(int(i) for i in np.argwhere(arr < 0)[0])
        raise ValueError(f"{name} must be non-negative, got {arr[idx]} at index {idx}")
    sums = arr.sum(axis=-1)
    bad = np.abs(sums - 1.0) > atol
    if np.any(bad):
        idx = tuple(int(i) for i in np.argwhere(bad)[0])
        raise ValueError(
            f"{name} rows must sum to 1 (a probability over the last axis), got a row summing to "
            f"{sums[idx]:.6g} at index {idx}"
        )
    return arr


def check_distribution(value, name: str, *, size: int) -> np.ndarray:
    arr = check_array(value, name, ndim=1)
    if arr.shape[0] != size:
        raise ValueError(
            f"{name} must have length {size} (one entry per state), got {arr.shape[0]}"
        )
    return check_stochastic(arr, name)


def check_policy(policy, mdp, name: str = "policy") -> np.ndarray:
    """A policy for ``mdp`` as (H, S, A) (finite horizon; a stationary (S, A) is repeated) or
    (S, A) (discounted); every row a probability over actions."""
    S, A = mdp.n_states, mdp.n_actions
    arr = check_array(policy, name, ndim=(2, 3))
    if arr.ndim == 3:
        if mdp.horizon is None:
            raise ValueError(
                f"{name} has shape {arr.shape} (H, S, A) but the MDP is discounted: give (S, A)"
            )
        if arr.shape != (mdp.horizon, S, A):
            raise ValueError(f"{name} must have shape ({mdp.horizon}, {S}, {A}), got {arr.shape}")
    elif arr.shape != (S, A):
        raise ValueError(f"{name} must have shape ({S}, {A}) (S, A), got {arr.shape}")
    check_stochastic(arr, name)
    if mdp.horizon is not None and arr.ndim == 2:
        arr = np.broadcast_to(arr, (mdp.horizon, S, A))
    return arr
