"""A slippery grid world, sub-optimal offline data from it, and an exact tabular teacher.

The tabular stand-in for the paper's D4RL setting: the teacher (pi*, q*) comes from exact
policy iteration instead of an offline-RL algorithm, and every policy is scored exactly.
"""

from __future__ import annotations

import numpy as np
import torch

import papershelf_mdp as pm

from ._checks import check_array, check_float, check_int, check_rng
from ._validation import as_tensor
from .tabular import TabularMDP, _check_discounted

__all__ = [
    "GridMDP",
    "TabularTeacher",
    "epsilon_greedy_dataset",
    "policy_table",
    "slippery_grid",
]

#: The four moves (dx, dy): right, up, left, down.
MOVES = np.array([[1, 0], [0, 1], [-1, 0], [0, -1]])


class GridMDP(TabularMDP):
    """A :class:`TabularMDP` on a ``size`` x ``size`` grid with ``features`` (S, 2), the cell
    coordinates scaled to [0, 1] (the observations of a neural policy), and the ``goal`` state."""

    def __init__(self, P, R, *, gamma, init, features, goal):
        super().__init__(P, R, gamma=gamma, init=init)
        self.features = check_array(features, "features", shape=(self.n_states, None))
        self.features.setflags(write=False)
        self.goal = check_int(goal, "goal", minimum=0, maximum=self.n_states - 1)


def slippery_grid(size=8, *, slip=0.1, gamma=0.9) -> GridMDP:
    """The ``size`` x ``size`` grid: 4 moves (walls keep the agent in place), each replaced by a
    uniformly random move with probability ``slip``; the goal (top-right corner) is absorbing and
    pays 1 per step, every other reward is 0 (so q >= 0, as the paper's Corollary needs); the
    initial state is uniform over the other cells."""
    n = check_int(size, "size", minimum=2)
    slip = check_float(slip, "slip", minimum=0.0, maximum=1.0)
    S, A = n * n, len(MOVES)
    xy = np.array([(i % n, i // n) for i in range(S)])
    goal = S - 1
    move = np.zeros((S, A), dtype=np.int64)  # deterministic successor of each move
    for s in range(S):
        for a in range(A):
            x, y = xy[s] + MOVES[a]
            move[s, a] = s if not (0 <= x < n and 0 <= y < n) else y * n + x
    P = np.zeros((S, A, S))
    for s in range(S):
        for a in range(A):
            P[s, a, move[s, a]] += 1.0 - slip
            for b in range(A):
                P[s, a, move[s, b]] += slip / A
    P[goal] = 0.0
    P[goal, :, goal] = 1.0
    R = np.zeros((S, A))
    R[goal] = 1.0
    init = np.full(S, 1.0 / (S - 1))
    init[goal] = 0.0
    return GridMDP(P, R, gamma=gamma, init=init, features=xy / (n - 1), goal=goal)


def epsilon_greedy_dataset(
    mdp, n_transitions, *, epsilons=(1.0, 0.5, 0.2), episode_length=50, rng=None
) -> dict:
    """Sub-optimal offline data in the D4RL layout: episodes of the epsilon-greedy policies of
    q* (an equal share of transitions for each epsilon: the paper's "medium-replay" mixture).

    Returns ``observations``/``next_observations`` (n, 2) features, ``actions`` (n,) int,
    ``rewards`` (n,), ``terminals`` (n,) (0: the goal is absorbing, episodes are truncated),
    ``states``/``next_states`` (n,) int state indices.
    """
    if not isinstance(mdp, GridMDP):
        raise TypeError(f"mdp must be a GridMDP, got {type(mdp).__name__}")
    n = check_int(n_transitions, "n_transitions", minimum=1)
    eps = check_array(epsilons, "epsilons", ndim=1)
    if np.any((eps < 0) | (eps > 1)):
        raise ValueError(f"epsilons must lie in [0, 1], got {eps.tolist()}")
    L = check_int(episode_length, "episode_length", minimum=1)
    g = check_rng(rng)
    _, greedy = pm.optimal_policy(mdp)
    A = mdp.n_actions
    parts = []
    shares = np.diff(np.linspace(0, n, len(eps) + 1).round().astype(int))
    for e, m in zip(eps, shares):
        if m == 0:
            continue
        pi = (1 - e) * greedy + e / A
        tr = pm.sample_trajectories(mdp, pi, -(-m // L), length=L, rng=g)
        take = slice(0, m)
        parts.append(
            (
                tr.observations.reshape(-1)[take],
                tr.actions.reshape(-1)[take],
                tr.rewards.reshape(-1)[take],
                tr.next_observations.reshape(-1)[take],
            )
        )
    s, a, r, s2 = (np.concatenate(x) for x in zip(*parts))
    return {
        "observations": mdp.features[s].copy(),
        "actions": a,
        "rewards": r,
        "next_observations": mdp.features[s2].copy(),
        "terminals": np.zeros(len(s)),
        "states": s,
        "next_states": s2,
    }


class TabularTeacher:
    """An exact teacher for observations that are rows of ``features`` (S, d).

    ``policy`` (S, A) and ``q`` (S, A) (default: an optimal policy and Q* of ``mdp``).
    ``teacher(obs)`` gives pi*(.|s) (B, A); ``critic(obs, actions)`` the per-action values
    q(s, .) (B, A) (for :class:`AvPBC`'s discrete objective; ``actions`` is ignored);
    ``value_critic(obs, actions)`` the expected value sum_a actions_a q(s, a) (B,) (the continuous
    form q(s, pi*(s))). Observations are mapped to the nearest feature row.
    """

    def __init__(self, features, policy, q):
        self.features = np.array(check_array(features, "features", ndim=2))  # a writable copy
        S = self.features.shape[0]
        self.policy = check_array(policy, "policy", ndim=2)
        self.q = check_array(q, "q", shape=self.policy.shape)
        if self.policy.shape[0] != S:
            raise ValueError(
                f"policy must have {S} rows (one per feature row), got {self.policy.shape[0]}"
            )
        pm.check_stochastic(self.policy, "policy")

    @classmethod
    def from_mdp(cls, mdp, features=None) -> TabularTeacher:
        """The optimal teacher of ``mdp``: (pi*, Q*) by exact policy iteration."""
        _check_discounted(mdp)
        feats = getattr(mdp, "features", None) if features is None else features
        if feats is None:
            raise ValueError("features is required for an mdp without a features attribute")
        q = pm.optimal_q(mdp)
        _, pi = pm.optimal_policy(mdp)
        return cls(feats, pi, q)

    def state_index(self, obs) -> torch.Tensor:
        """(B,) the index of the feature row nearest to each observation."""
        obs = as_tensor(obs, "obs", ndim=2)
        f = torch.as_tensor(self.features, dtype=obs.dtype, device=obs.device)
        if obs.shape[1] != f.shape[1]:
            raise ValueError(f"obs must have {f.shape[1]} columns, got {obs.shape[1]}")
        return torch.cdist(obs, f).argmin(dim=1)

    def _table(self, table, obs):
        idx = self.state_index(obs)
        return torch.as_tensor(table, dtype=obs.dtype, device=obs.device)[idx]

    def __call__(self, obs) -> torch.Tensor:
        obs = as_tensor(obs, "obs", ndim=2)
        return self._table(self.policy, obs)

    def critic(self, obs, actions=None) -> torch.Tensor:
        obs = as_tensor(obs, "obs", ndim=2)
        return self._table(self.q, obs)

    def value_critic(self, obs, actions) -> torch.Tensor:
        obs = as_tensor(obs, "obs", ndim=2)
        a = as_tensor(actions, "actions", ndim=2, dtype=obs.dtype)
        return (self._table(self.q, obs) * a).sum(dim=1)


def policy_table(policy, features, *, n_actions=None) -> np.ndarray:
    """A discrete torch policy as an (S, A) probability table on the rows of ``features``
    (rows renormalised against rounding), for exact evaluation."""
    from ._validation import check_module, module_dtype

    policy = check_module(policy, "policy")
    f = check_array(features, "features", ndim=2)
    dtype = module_dtype(policy) or torch.get_default_dtype()
    with torch.no_grad():
        p = policy(torch.tensor(f, dtype=dtype)).double().cpu().numpy()
    if n_actions is not None and p.shape[1] != check_int(n_actions, "n_actions", minimum=1):
        raise ValueError(f"policy must output {n_actions} probabilities, got {p.shape[1]}")
    if np.any(p < -1e-9) or not np.allclose(p.sum(axis=1), 1.0, atol=1e-5):
        raise ValueError("policy must output action probabilities (rows >= 0 summing to 1)")
    p = np.clip(p, 0.0, None)
    return p / p.sum(axis=1, keepdims=True)
