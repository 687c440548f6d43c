"""Small testbeds: the zigzag chain, random tabular instances, wall-and-gap navigation."""

from __future__ import annotations

import math

import numpy as np

from papershelf_mdp import TabularEnv, TabularMDP

from ._checks import check_float, check_int, check_rng
from .policies import FunctionPolicy, TabularPolicy, constant_policy, random_deterministic_policy


def zigzag(m: int = 6, *, eps: float = 0.01) -> tuple[TabularMDP, list[TabularPolicy]]:
    """A chain where both constituents are poor and switching between them is optimal.

    States A_0 .. A_m (indices 0..m) and an absorbing end state (index m+1); horizon H = m.
    At A_i the correct action is 1 ("R") for even i and 0 ("L") for odd i and leads to A_{i+1};
    the wrong action ends the episode with reward eps*i; entering A_m pays 1. Returns the MDP and
    the constituents [always L, always R], whose start values are 0 and eps; max-following and the
    optimal policy both reach A_m (value 1).
    """
    m = check_int(m, "m", minimum=2)
    eps = check_float(eps, "eps", minimum=0.0, maximum=1.0 / m, max_inclusive=False)
    S, end = m + 2, m + 1
    P = np.zeros((S, 2, S))
    R = np.zeros((S, 2, S))
    for i in range(m):
        correct = 1 if i % 2 == 0 else 0
        P[i, correct, i + 1] = 1.0
        P[i, 1 - correct, end] = 1.0
        R[i, 1 - correct, end] = eps * i
    R[m - 1, 1 if (m - 1) % 2 == 0 else 0, m] = 1.0
    P[m, :, m] = 1.0
    P[end, :, end] = 1.0
    init = np.zeros(S)
    init[0] = 1.0
    mdp = TabularMDP(P, R, init, horizon=m, reward_kind="sas")
    return mdp, [constant_policy(0, S, 2), constant_policy(1, S, 2)]


def tie_break_example() -> tuple[TabularMDP, list[TabularPolicy]]:
    """Two constituents tied at the start whose max-following policies differ by the tie-break.

    Horizon 2, states {0 (start), 1, 2}. From 0, action 0 goes to 1 (reward 0) and action 1 to 2
    (reward 0.5); state 1 pays 0.5 for any action; state 2 pays 1 for action 1, 0 for action 0.
    Constituent 0 plays 0, 0, 1 in states 0, 1, 2 (value 0.5 from the start); constituent 1
    plays 1, 0, 0 (value 0.5). Max-following with ``tie_break="first"`` follows 0 (value 0.5);
    with ``"last"`` it follows 1, reaches state 2 and there switches to 0 (value 1.5).
    """
    P = np.zeros((3, 2, 3))
    P[0, 0, 1] = P[0, 1, 2] = 1.0
    P[1, :, 1] = P[2, :, 2] = 1.0
    R = np.array([[0.0, 0.5], [0.5, 0.5], [0.0, 1.0]])
    mdp = TabularMDP(P, R, [1.0, 0.0, 0.0], horizon=2)
    pi0 = TabularPolicy(np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0]]))
    pi1 = TabularPolicy(np.array([[0.0, 1.0], [1.0, 0.0], [1.0, 0.0]]))
    return mdp, [pi0, pi1]


def random_instance(
    n_states: int = 20,
    n_actions: int = 4,
    *,
    horizon: int = 10,
    n_constituents: int = 3,
    rng=None,
) -> tuple[TabularMDP, list[TabularPolicy]]:
    """A random finite-horizon MDP (Dirichlet(1) rows, Uniform(0, 1) rewards (S, A), random start
    distribution) with ``n_constituents`` random deterministic stationary constituents."""
    S = check_int(n_states, "n_states", minimum=1)
    A = check_int(n_actions, "n_actions", minimum=1)
    H = check_int(horizon, "horizon", minimum=1)
    K = check_int(n_constituents, "n_constituents", minimum=1)
    g = check_rng(rng)
    P = g.dirichlet(np.ones(S), size=(S, A))
    R = g.random((S, A))
    init = g.dirichlet(np.ones(S))
    mdp = TabularMDP(P, R, init, horizon=H)
    return mdp, [random_deterministic_policy(S, A, rng=g) for _ in range(K)]


def tabular_env(mdp: TabularMDP) -> TabularEnv:
    """The gymnasium-API environment of a tabular MDP (papershelf_mdp.TabularEnv)."""
    return TabularEnv(mdp)


class WallGapNavigation:
    """2-D point navigation with a wall and a gap (gymnasium API, continuous states).

    The point starts at (0.1, U(0.1, 0.3)) and should reach the goal (0.9, 0.9); a wall at
    x in [0.48, 0.52] blocks every y outside the gap [0.8, 0.95]. Actions 0..4 move right,
    left, up, down by ``step`` (plus N(0, noise^2) jitter) or stay; a move into the wall or
    across it outside the gap leaves the point where it is. Reward = -distance to the goal after
    the move. The episode ends (terminated) after ``horizon`` steps. Observations are float
    arrays (x, y).
    """

    GOAL = np.array([0.9, 0.9])  # the reward below hard-codes it for speed
    WALL = (0.48, 0.52)
    GAP = (0.8, 0.95)
    MOVES = np.array([[1, 0], [-1, 0], [0, 1], [0, -1], [0, 0]], dtype=float)

    def __init__(self, *, horizon: int = 40, step: float = 0.05, noise: float = 0.005):
        self.horizon = check_int(horizon, "horizon", minimum=1)
        self.step_size = check_float(step, "step", minimum=0.0, min_inclusive=False)
        self.noise = check_float(noise, "noise", minimum=0.0)
        self.n_actions = 5
        self._rng = np.random.default_rng()
        self._pos: tuple[float, float] | None = None
        self._h = 0

    def reset(self, *, seed=None, options=None):
        if seed is not None:
            self._rng = check_rng(seed, "seed")
        self._pos = (0.1, float(self._rng.uniform(0.1, 0.3)))
        self._h = 0
        return np.array(self._pos), {"h": 0}

    def _blocked(self, ax: float, ay: float, bx: float, by: float) -> bool:
        lo, hi = self.WALL
        g0, g1 = self.GAP
        if max(ax, bx) < lo or min(ax, bx) > hi:
            return False
        # the move meets the wall slab: allowed only if it stays within the gap's y range
        return not (g0 <= ay <= g1 and g0 <= by <= g1)

    def step(self, action):
        if self._pos is None:
            raise RuntimeError("call reset() before step()")
        a = action if type(action) is int and 0 <= action <= 4 else None
        if a is None:
            a = check_int(action, "action", minimum=0, maximum=4)
        x, y = self._pos
        dx, dy = self.MOVES[a] * self.step_size
        if a != 4 and self.noise:
            jx, jy = self._rng.normal(0.0, self.noise, size=2)
            dx, dy = dx + jx, dy + jy
        nx, ny = min(max(x + dx, 0.0), 1.0), min(max(y + dy, 0.0), 1.0)
        if self._blocked(x, y, nx, ny):
            nx, ny = x, y
        self._pos = (float(nx), float(ny))
        self._h += 1
        reward = -math.hypot(nx - 0.9, ny - 0.9)
        terminated = self._h >= self.horizon
        if terminated:
            self._pos = None
        return np.array([nx, ny]), reward, terminated, False, {"h": self._h}


def go_to_gap() -> FunctionPolicy:
    """Head for the gap's centre (0.5, 0.875) and stay there."""
    target = np.array([0.5, 0.875])

    def act(obs, h, rng):
        x, y = obs
        if y < target[1] - 0.025 and x < WallGapNavigation.WALL[0]:
            return 2  # up
        if y > target[1] + 0.025 and x < WallGapNavigation.WALL[0]:
            return 3  # down
        if x < target[0] - 0.025:
            return 0  # right
        if x > target[0] + 0.025:
            return 1  # left
        return 4

    return FunctionPolicy(act)


def go_to_goal() -> FunctionPolicy:
    """Goal-directed, x first: move right until level with the goal, then vertically (it runs
    into the wall when the gap is not on its way)."""
    goal = WallGapNavigation.GOAL

    def act(obs, h, rng):
        x, y = obs
        if x < goal[0] - 0.025:
            return 0
        if x > goal[0] + 0.025:
            return 1
        if y < goal[1] - 0.025:
            return 2
        if y > goal[1] + 0.025:
            return 3
        return 4

    return FunctionPolicy(act)


def evaluate(env, policy, n_episodes: int, *, horizon: int, rng=None) -> np.ndarray:
    """Monte Carlo returns of ``policy`` (``act(obs, h, rng)``) on ``env``, (n_episodes,)."""
    n = check_int(n_episodes, "n_episodes", minimum=1)
    H = check_int(horizon, "horizon", minimum=1)
    g = check_rng(rng)
    out = np.empty(n)
    for i in range(n):
        obs, _ = env.reset(seed=int(g.integers(2**31)) if i == 0 else None)
        total = 0.0
        for t in range(H):
            obs, r, terminated, truncated, _ = env.step(policy.act(obs, t, g))
            total += float(r)
            if terminated or truncated:
                break
        out[i] = total
    return out
