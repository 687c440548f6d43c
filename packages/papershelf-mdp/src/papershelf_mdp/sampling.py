"""Trajectories and a gymnasium-style environment for a :class:`TabularMDP`."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._checks import check_int, check_rng
from ._validation import check_policy
from .evaluation import _check_mdp
from .mdp import TabularMDP


@dataclass(frozen=True)
class Trajectories:
    """n episodes of ``length`` steps: int states and actions, float rewards, all (n, length)."""

    observations: np.ndarray
    actions: np.ndarray
    rewards: np.ndarray
    next_observations: np.ndarray

    @property
    def returns(self) -> np.ndarray:
        """Undiscounted sum of rewards of each episode, (n,)."""
        return self.rewards.sum(axis=1)


def _draw(cum: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Row-wise inverse-CDF draws: cum (n, K) cumulative probabilities, u (n,) uniforms."""
    idx = (u[:, None] > cum).sum(axis=1)
    return np.minimum(idx, cum.shape[1] - 1)


def sample_trajectories(
    mdp: TabularMDP, policy, n_episodes, *, length=None, rng=None
) -> Trajectories:
    """Sample ``n_episodes`` episodes of ``policy`` (vectorised over episodes).

    ``length`` defaults to the horizon (required for a discounted MDP). Rewards are the entries
    of R for the sampled transitions (so (S, A, S) rewards are per transition)."""
    _check_mdp(mdp)
    pi = check_policy(policy, mdp)
    n = check_int(n_episodes, "n_episodes", minimum=1)
    if length is None:
        if mdp.horizon is None:
            raise ValueError("length is required for a discounted MDP (it has no horizon)")
        length = mdp.horizon
    L = check_int(length, "length", minimum=1)
    if mdp.horizon is not None and L > mdp.horizon:
        raise ValueError(f"length must be <= horizon {mdp.horizon}, got {L}")
    g = check_rng(rng)
    P = mdp.transitions()
    obs = np.empty((n, L), dtype=np.int64)
    act = np.empty((n, L), dtype=np.int64)
    nxt = np.empty((n, L), dtype=np.int64)
    rew = np.empty((n, L))
    s = _draw(np.cumsum(mdp.init)[None].repeat(n, 0), g.random(n))
    for h in range(L):
        p_h = pi[h] if pi.ndim == 3 else pi
        P_h = P[h] if P.ndim == 4 else P
        a = _draw(np.cumsum(p_h[s], axis=1), g.random(n))
        s2 = _draw(np.cumsum(P_h[s, a], axis=1), g.random(n))
        obs[:, h], act[:, h], nxt[:, h] = s, a, s2
        rew[:, h] = _rewards(mdp, h, s, a, s2)
        s = s2
    return Trajectories(obs, act, rew, nxt)


def _rewards(mdp: TabularMDP, h, s, a, s2) -> np.ndarray:
    k, R = mdp.reward_kind, mdp.R
    if k == "sa":
        return R[s, a]
    if k == "sas":
        return R[s, a, s2]
    if k == "hsa":
        return R[h, s, a]
    return R[h, s, a, s2]


class TabularEnv:
    """A gymnasium-API environment over a :class:`TabularMDP` (no gymnasium import needed).

    ``reset(seed=None, options=None) -> (state, {"h": 0})``; ``step(action) -> (state, reward,
    terminated, truncated, info)``. With a finite horizon the episode ends with
    ``terminated=True`` after H steps (the horizon is part of the problem, so nothing is
    bootstrapped past it); a discounted MDP never terminates and is truncated after
    ``max_steps`` steps when that is given. Observations are ints (wrap with a one-hot or an
    (n, 1) float for a regressor)."""

    def __init__(self, mdp: TabularMDP, *, max_steps=None):
        self.mdp = _check_mdp(mdp)
        self.max_steps = None if max_steps is None else check_int(max_steps, "max_steps", minimum=1)
        self.n_states, self.n_actions = mdp.n_states, mdp.n_actions
        self._rng = np.random.default_rng()
        self._state: int | None = None
        self._h = 0
        # cumulative rows once, so a step is one draw and one search
        self._cum_P = np.cumsum(mdp.P, axis=-1)
        self._cum_init = np.cumsum(mdp.init)

    def reset(self, *, seed=None, options=None):
        if seed is not None:
            self._rng = check_rng(seed, "seed")
        self._h = 0
        self._state = self._sample(self._cum_init)
        return self._state, {"h": 0}

    def _sample(self, cum: np.ndarray) -> int:
        return int(min(np.searchsorted(cum, self._rng.random(), side="right"), cum.shape[0] - 1))

    def step(self, action):
        if self._state is None:
            raise RuntimeError("call reset() before step()")
        if type(action) is int and 0 <= action < self.n_actions:
            a = action
        else:
            a = check_int(action, "action", minimum=0, maximum=self.n_actions - 1)
        h, s = self._h, self._state
        cum = self._cum_P[h, s, a] if self._cum_P.ndim == 4 else self._cum_P[s, a]
        s2 = self._sample(cum)
        r = self.mdp.transition_reward(h, s, a, s2)
        self._h += 1
        self._state = s2
        terminated = self.mdp.horizon is not None and self._h >= self.mdp.horizon
        truncated = not terminated and self.max_steps is not None and self._h >= self.max_steps
        if terminated or truncated:
            self._state = None
        return s2, r, terminated, truncated, {"h": self._h}
