"""Dataset validation and the discrete state index shared by the nonparametric models."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ._checks import check_array, check_callable, check_same_length
from .features import as_observations

KEYS = ("observations", "actions", "next_observations", "terminals")


def check_features(features, name: str = "features"):
    check_callable(features, name)
    dim = getattr(features, "dim", None)
    if not isinstance(dim, int | np.integer) or isinstance(dim, bool) or dim < 1:
        raise TypeError(f"{name} must have an int attribute dim >= 1, got dim={dim!r}")
    return features


def check_dataset(dataset, name: str = "dataset") -> dict:
    """A D4RL-layout dict: observations (N,) or (N, obs_dim), actions (N,) or (N, act_dim),
    next_observations like observations, terminals (N,) of 0/1 or bools; rewards are ignored."""
    if not isinstance(dataset, Mapping):
        raise TypeError(
            f"{name} must be a dict of arrays (D4RL layout), got {type(dataset).__name__}"
        )
    for k in KEYS:
        if k not in dataset:
            raise ValueError(f"{name} must have the key {k!r}; it has {sorted(dataset)}")
    obs = as_observations(dataset["observations"], f"{name}['observations']")
    nxt = as_observations(dataset["next_observations"], f"{name}['next_observations']")
    act = check_array(dataset["actions"], f"{name}['actions']", ndim=(1, 2), dtype="numeric")
    term = check_array(dataset["terminals"], f"{name}['terminals']", ndim=1, dtype="any")
    check_same_length(
        **{
            f"{name}['observations']": obs,
            f"{name}['actions']": act,
            f"{name}['next_observations']": nxt,
            f"{name}['terminals']": term,
        }
    )
    if nxt.shape[1] != obs.shape[1]:
        raise ValueError(
            f"{name}['next_observations'] must have {obs.shape[1]} columns like "
            f"{name}['observations'], got shape {nxt.shape}"
        )
    if not np.all((term == 0) | (term == 1)):
        raise ValueError(f"{name}['terminals'] must hold 0/1 or booleans")
    return {"observations": obs, "actions": act, "next_observations": nxt, "terminals": term}


class StateIndex:
    """The distinct observation rows of a dataset (observations and next observations), with a
    nearest-row lookup (Euclidean; exact rows map to themselves)."""

    def __init__(self, data: dict):
        both = np.concatenate([data["observations"], data["next_observations"]])
        self.states, inv = np.unique(both, axis=0, return_inverse=True)
        inv = inv.reshape(-1)
        n = len(data["observations"])
        self.src, self.dst = inv[:n], inv[n:]
        self.n_states = len(self.states)
        order = np.argsort(self.src, kind="stable")
        self.order = order
        self.counts = np.bincount(self.src, minlength=self.n_states)
        self.starts = np.concatenate([[0], np.cumsum(self.counts)[:-1]])

    def lookup(self, obs: np.ndarray, *, only=None) -> np.ndarray:
        cand = np.arange(self.n_states) if only is None else np.flatnonzero(only)
        out = np.empty(len(obs), dtype=np.int64)
        for lo in range(0, len(obs), 1024):
            q = obs[lo : lo + 1024]
            d = ((q[:, None, :] - self.states[cand][None]) ** 2).sum(-1)
            out[lo : lo + 1024] = cand[np.argmin(d, axis=1)]
        return out
