"""Checks specific to pasql, built on the shared vocabulary (``_checks``) and on
``papershelf_mdp``'s probability checks."""

from __future__ import annotations

import numpy as np

from papershelf_mdp import check_stochastic

from ._checks import check_array, check_callable, check_float, check_int, describe


def check_agent_state(agent_state, name: str = "agent_state") -> int:
    """An agent state: ``n_states`` (int >= 1), callable ``init(y)`` and ``update(z, y, a)``.
    Returns ``n_states``."""
    for attr in ("n_states", "init", "update"):
        if not hasattr(agent_state, attr):
            raise TypeError(
                f"{name} must have n_states, init(y) and update(z, y, a); got "
                f"{describe(agent_state)} without {attr!r}"
            )
    check_callable(agent_state.init, f"{name}.init")
    check_callable(agent_state.update, f"{name}.update")
    return check_int(agent_state.n_states, f"{name}.n_states", minimum=1)


def check_code(value, name: str, n: int) -> int:
    """An integer code in [0, n) (an observation, an action, an agent state)."""
    if type(value) is int and 0 <= value < n:  # fast path for the per-step loops
        return value
    return check_int(value, name, minimum=0, maximum=n - 1)


def check_periodic_policy(
    policy, name: str, *, n_agent_states: int, n_actions: int | None = None
) -> tuple[np.ndarray, bool]:
    """A periodic policy (L, Z, A), or a stationary (Z, A) read as L = 1. Every row is a
    probability over actions; Z must equal ``agent_state.n_states``. Returns the (L, Z, A)
    array and whether the input was stationary (2-d)."""
    arr = check_array(policy, name, ndim=(2, 3))
    stationary = arr.ndim == 2
    if stationary:
        arr = arr[None]
    L, Z, A = arr.shape
    if Z != n_agent_states:
        raise ValueError(
            f"{name} has {Z} agent states (axis -2, shape {arr.shape[1:] if stationary else arr.shape}) "
            f"but agent_state.n_states is {n_agent_states}"
        )
    if n_actions is not None and A != n_actions:
        raise ValueError(f"{name} has {A} actions (last axis) but the POMDP has {n_actions}")
    check_stochastic(arr, name)
    return arr, stationary


def check_gamma(gamma, name: str = "gamma") -> float:
    return check_float(gamma, name, minimum=0.0, maximum=1.0, max_inclusive=False)


def step_size_table(step_size, n_max: int) -> np.ndarray:
    """alpha[n] for n = 0 .. n_max-1 (n = earlier updates of the entry).

    ``None``: (1 + n)^-0.6; a float in (0, 1]: constant; a callable ``n -> alpha`` (called with
    Python ints) whose values must be finite and in (0, 1]."""
    n_max = max(int(n_max), 1)
    if step_size is None:
        return (1.0 + np.arange(n_max, dtype=np.float64)) ** -0.6
    if callable(step_size):
        out = np.empty(n_max)
        for n in range(n_max):
            v = step_size(n)
            try:
                v = check_float(v, "step_size", minimum=0.0, maximum=1.0, min_inclusive=False)
            except (TypeError, ValueError) as e:
                raise type(e)(f"step_size({n}) returned {describe(v)}: {e}") from None
            out[n] = v
        return out
    if isinstance(step_size, str):
        raise TypeError(
            f"step_size must be None, a float in (0, 1] or a callable n -> alpha, got "
            f"{describe(step_size)}"
        )
    v = check_float(step_size, "step_size", minimum=0.0, maximum=1.0, min_inclusive=False)
    return np.full(n_max, v)


def check_step_size(step_size):
    """Validate ``step_size`` once, without building the table (callables are called later)."""
    if step_size is None or callable(step_size):
        return step_size
    if isinstance(step_size, str):
        raise TypeError(
            f"step_size must be None, a float in (0, 1] or a callable n -> alpha, got "
            f"{describe(step_size)}"
        )
    return check_float(step_size, "step_size", minimum=0.0, maximum=1.0, min_inclusive=False)
