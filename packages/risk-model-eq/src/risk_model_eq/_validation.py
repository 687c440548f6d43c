"""Checks of MDPs, policies and moment arrays, built on the shared vocabulary (``_checks``)."""

from __future__ import annotations

import numpy as np

import papershelf_mdp as pm

from ._checks import check_array, check_int


def mdp_arrays(mdp, name: str = "mdp") -> tuple[np.ndarray, np.ndarray, float]:
    """(P (S, A, S), R (S, A, S), gamma) of a discounted :class:`papershelf_mdp.TabularMDP`.

    Rewards of layout (S, A) are broadcast over s' (the reward of (s, a) is paid on every
    transition); finite-horizon MDPs are refused (the moment operators are discounted)."""
    if not isinstance(mdp, pm.TabularMDP):
        raise TypeError(f"{name} must be a TabularMDP, got {type(mdp).__name__}")
    if mdp.gamma is None:
        raise ValueError(
            f"{name} must be discounted (gamma in [0, 1)), got a finite-horizon MDP with "
            f"horizon={mdp.horizon}"
        )
    R = mdp.R
    if mdp.reward_kind == "sa":
        R = np.broadcast_to(R[:, :, None], mdp.P.shape)
    return mdp.P, R, float(mdp.gamma)


def check_policy(pi, mdp, name: str = "pi") -> np.ndarray:
    """One stationary policy (S, A) for the discounted ``mdp``."""
    return pm.check_policy(pi, mdp, name)


def check_policies(policies, mdp, name: str = "policies") -> np.ndarray:
    """Policies as an (N, S, A) array: an (N, S, A) array, a sequence of (S, A) arrays, or one
    (S, A) policy (then N = 1). Every row a probability over actions."""
    S, A = mdp.n_states, mdp.n_actions
    if isinstance(policies, list | tuple) and len(policies) == 0:
        raise ValueError(
            f"{name} must hold at least one policy, got an empty {type(policies).__name__}"
        )
    arr = check_array(policies, name, ndim=(2, 3))
    if arr.ndim == 2:
        arr = arr[None]
    if arr.shape[1:] != (S, A):
        raise ValueError(
            f"{name} must have shape (N, {S}, {A}) (N policies of shape (S, A)), got {arr.shape}"
        )
    pm.check_stochastic(arr, name)
    return arr


def check_moments(M, n_states: int, name: str = "M") -> np.ndarray:
    """A moment array (k, S) with k >= 1 rows (row i = the i-th raw moment per state)."""
    arr = check_array(M, name, ndim=2)
    if arr.shape[1] != n_states:
        raise ValueError(
            f"{name} must have shape (k, {n_states}) (one column per state), got {arr.shape}"
        )
    return arr


def check_count(value, name: str) -> int:
    return check_int(value, name, minimum=1)


def check_same_spaces(model, mdp, *, model_name: str = "model") -> None:
    if (model.n_states, model.n_actions) != (mdp.n_states, mdp.n_actions):
        raise ValueError(
            f"{model_name} has {model.n_states} states and {model.n_actions} actions but mdp has "
            f"{mdp.n_states} and {mdp.n_actions}; they must match"
        )
    if model.gamma != mdp.gamma:
        raise ValueError(
            f"{model_name} has gamma {model.gamma} but mdp has gamma {mdp.gamma}; a model shares "
            "the discount of the MDP it stands for"
        )
