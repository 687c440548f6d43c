"""Constituent policies: anything with ``act(obs, h, rng)``; tabular ones also carry ``probs``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol, runtime_checkable

import numpy as np

from papershelf_mdp import TabularMDP, check_policy, check_stochastic

from ._checks import check_array, check_callable, check_int, check_rng


@runtime_checkable
class Policy(Protocol):
    """The constituent protocol: ``act(obs, h, rng) -> action`` at step ``h``."""

    def act(self, obs: Any, h: int, rng: np.random.Generator) -> Any: ...


class TabularPolicy:
    """A policy given by action probabilities ``probs``: (S, A) stationary or (H, S, A).

    ``act(obs, h, rng)`` samples an action for the integer state ``obs`` at step ``h``.
    """

    def __init__(self, probs):
        arr = check_array(probs, "probs", ndim=(2, 3))
        check_stochastic(arr, "probs")
        self.probs = arr
        self.probs.setflags(write=False)
        self.n_states, self.n_actions = arr.shape[-2], arr.shape[-1]
        self.horizon = arr.shape[0] if arr.ndim == 3 else None
        self._cum = np.cumsum(arr, axis=-1)

    def act(self, obs, h, rng):
        s = check_int(obs, "obs", minimum=0, maximum=self.n_states - 1)
        row = self._cum[h, s] if self.horizon is not None else self._cum[s]
        return int(min(np.searchsorted(row, rng.random(), side="right"), self.n_actions - 1))

    def __repr__(self) -> str:
        return f"TabularPolicy(probs of shape {self.probs.shape})"


class FunctionPolicy:
    """Wrap a callable ``fn(obs, h, rng) -> action`` (or ``fn(obs) -> action`` with
    ``uses_step=False``) as a constituent."""

    def __init__(self, fn: Callable, *, uses_step: bool = True):
        self.fn = check_callable(fn, "fn")
        self.uses_step = bool(uses_step)

    def act(self, obs, h, rng):
        return self.fn(obs, h, rng) if self.uses_step else self.fn(obs)


def check_constituent(policy, name: str = "policy"):
    if not callable(getattr(policy, "act", None)):
        raise TypeError(f"{name} must have a method act(obs, h, rng), got {type(policy).__name__}")
    return policy


def as_probs(policy, mdp: TabularMDP, name: str = "policy") -> np.ndarray:
    """(H, S, A) probabilities of a TabularPolicy or an array policy, checked against ``mdp``."""
    if isinstance(policy, TabularPolicy):
        policy = policy.probs
    elif hasattr(policy, "act") and not isinstance(policy, np.ndarray):
        raise TypeError(
            f"{name} must be a TabularPolicy or an array of action probabilities for exact "
            f"evaluation, got {type(policy).__name__}"
        )
    return check_policy(policy, mdp, name)


def constant_policy(action, n_states, n_actions) -> TabularPolicy:
    """The policy that always plays ``action``."""
    S = check_int(n_states, "n_states", minimum=1)
    A = check_int(n_actions, "n_actions", minimum=1)
    a = check_int(action, "action", minimum=0, maximum=A - 1)
    probs = np.zeros((S, A))
    probs[:, a] = 1.0
    return TabularPolicy(probs)


def random_deterministic_policy(n_states, n_actions, *, horizon=None, rng=None) -> TabularPolicy:
    """A uniformly random deterministic policy, stationary or (with ``horizon``) per step."""
    S = check_int(n_states, "n_states", minimum=1)
    A = check_int(n_actions, "n_actions", minimum=1)
    g = check_rng(rng)
    shape = (S,) if horizon is None else (check_int(horizon, "horizon", minimum=1), S)
    probs = np.eye(A)[g.integers(A, size=shape)]
    return TabularPolicy(probs)
