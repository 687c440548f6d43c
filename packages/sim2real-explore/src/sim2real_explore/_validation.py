"""Package-specific checks, built on the shared vocabulary (``_checks``)."""

from __future__ import annotations

import numbers

import numpy as np

from papershelf_mdp import TabularMDP, check_policy

from ._checks import check_array, describe


def check_finite_mdp(mdp, name: str = "mdp") -> TabularMDP:
    """A :class:`TabularMDP` with a finite horizon (everything here is episodic)."""
    if not isinstance(mdp, TabularMDP):
        raise TypeError(f"{name} must be a TabularMDP, got {describe(mdp)}")
    if mdp.horizon is None:
        raise ValueError(
            f"{name} must have a finite horizon (sim2real transfer is episodic), got a discounted "
            f"MDP with gamma={mdp.gamma}"
        )
    return mdp


def check_mdp(mdp, name: str = "mdp") -> TabularMDP:
    if not isinstance(mdp, TabularMDP):
        raise TypeError(f"{name} must be a TabularMDP, got {describe(mdp)}")
    return mdp


def policy_array(policy, mdp: TabularMDP, name: str = "policy") -> np.ndarray:
    """Action probabilities (H, S, A) for a finite-horizon ``mdp`` (an (S, A) policy repeated)."""
    if hasattr(policy, "probs") and not isinstance(policy, np.ndarray):
        policy = policy.probs
    return np.ascontiguousarray(check_policy(policy, mdp, name))


def check_policy_list(policies, mdp: TabularMDP, name: str = "policies") -> list[np.ndarray]:
    """A non-empty collection of policies, each (S, A) or (H, S, A), returned as (H, S, A) arrays.

    A list or tuple holds one policy per entry; a single 2-D array, or a 3-D array of shape
    (H, S, A), is one policy; a 4-D array (K, H, S, A) is a stack of K policies. Any other 3-D
    array is refused (it could be K stationary policies or one time-varying policy)."""
    H, S, A = mdp.horizon, mdp.n_states, mdp.n_actions
    if isinstance(policies, np.ndarray) or (
        hasattr(policies, "probs") and not isinstance(policies, list | tuple)
    ):
        arr = check_array(policies.probs if hasattr(policies, "probs") else policies, name)
        if arr.ndim == 2:
            return [policy_array(arr, mdp, name)]
        if arr.ndim == 3:
            if arr.shape != (H, S, A):
                raise ValueError(
                    f"{name}: a 3-D array must be one policy of shape ({H}, {S}, {A}) "
                    f"(H, S, A), got shape {arr.shape}; pass several policies as a list"
                )
            return [policy_array(arr, mdp, name)]
        if arr.ndim == 4:
            return [policy_array(p, mdp, f"{name}[{k}]") for k, p in enumerate(arr)]
        raise ValueError(
            f"{name} must be a list of policies or a 2-, 3- or 4-d array, got {arr.shape}"
        )
    if not isinstance(policies, list | tuple):
        raise TypeError(
            f"{name} must be a list of policies (action-probability arrays), got "
            f"{describe(policies)}"
        )
    out = [policy_array(p, mdp, f"{name}[{k}]") for k, p in enumerate(policies)]
    if not out:
        raise ValueError(f"{name} must hold at least one policy, got an empty collection")
    return out


def state_index(obs, n_states: int, name: str = "observation") -> int:
    """An integer observation (int, numpy integer, or a one-element integer array) in [0, S)."""
    if type(obs) is int:
        s = obs
    elif isinstance(obs, numbers.Integral) and not isinstance(obs, bool | np.bool_):
        s = int(obs)
    else:
        arr = np.asarray(obs) if isinstance(obs, np.ndarray | list | tuple) else None
        if arr is None or arr.size != 1 or arr.dtype.kind not in "iu":
            raise TypeError(f"{name} must be an integer state index, got {describe(obs)}")
        s = int(arr.reshape(()))
    if not 0 <= s < n_states:
        raise ValueError(f"{name} must be a state index in [0, {n_states}), got {s}")
    return s


def check_env(env, name: str = "real_env"):
    """Anything with the gymnasium API: ``reset(seed=...)`` and ``step(action)``."""
    if not (callable(getattr(env, "reset", None)) and callable(getattr(env, "step", None))):
        raise TypeError(
            f"{name} must be an environment with the gymnasium API (reset(seed=None) -> "
            f"(obs, info), step(a) -> 5-tuple), got {describe(env)}"
        )
    return env


def env_n_actions(env, name: str = "real_env") -> int | None:
    """The number of discrete actions of ``env``: ``action_space.n`` or ``n_actions``."""
    space = getattr(env, "action_space", None)
    n = getattr(space, "n", None) if space is not None else None
    if n is None:
        n = getattr(env, "n_actions", None)
    if n is None:
        return None
    if not isinstance(n, numbers.Integral) or isinstance(n, bool) or int(n) < 1:
        raise ValueError(f"{name} must have a positive number of discrete actions, got {n!r}")
    return int(n)
