"""The cliff grid of the stitching experiment and random-walk offline datasets."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from papershelf_mdp import TabularMDP, check_stochastic

from ._checks import check_array, check_float, check_int, check_probability, check_rng

__all__ = ["CliffGrid", "cliff_grid", "random_walk_dataset"]

MOVES = ((-1, 0), (1, 0), (0, -1), (0, 1), (0, 0))  # up, down, left, right, stay


@dataclass(frozen=True)
class CliffGrid:
    """A rows x cols grid, states r * cols + c, actions up/down/left/right/stay (moves into a
    wall or the border stay put; with ``slip`` the action is replaced by a uniformly random one).

    ``P`` (S, 5, S); ``walls`` and ``cliff`` are state indices (walls are never entered).
    """

    rows: int
    cols: int
    P: np.ndarray
    walls: tuple[int, ...]
    cliff: tuple[int, ...]

    @property
    def n_states(self) -> int:
        return self.rows * self.cols

    @property
    def free(self) -> np.ndarray:
        return np.array([s for s in range(self.n_states) if s not in self.walls])

    def reward(self, goal, *, cliff_penalty=1.0) -> np.ndarray:
        """r(s) = 1{s = goal} - cliff_penalty * 1{s in cliff}: (S,)."""
        goal = check_int(goal, "goal", minimum=0, maximum=self.n_states - 1)
        if goal in self.walls:
            raise ValueError(f"goal must be a free cell, got wall cell {goal}")
        pen = check_float(cliff_penalty, "cliff_penalty")
        r = np.zeros(self.n_states)
        r[list(self.cliff)] = -pen
        r[goal] = 1.0
        return r

    def mdp(self, state_reward, *, gamma, start=None) -> TabularMDP:
        """The papershelf_mdp.TabularMDP with R(s, a) = state_reward[s]."""
        r = check_array(state_reward, "state_reward", shape=(self.n_states,))
        init = None
        if start is not None:
            init = np.zeros(self.n_states)
            init[check_int(start, "start", minimum=0, maximum=self.n_states - 1)] = 1.0
        return TabularMDP(self.P, np.repeat(r[:, None], 5, axis=1), init, gamma=gamma)


def cliff_grid(rows=7, cols=7, *, slip=0.0) -> CliffGrid:
    """7 x 7 default: a wall down column 3 (rows 0..4, gap at rows 5-6) and cliff cells along the
    bottom row next to the gap (row 6, columns 1..5), so the only crossing runs beside the cliff."""
    rows = check_int(rows, "rows", minimum=3)
    cols = check_int(cols, "cols", minimum=3)
    slip = check_probability(slip, "slip")
    mid = cols // 2
    walls = tuple(r * cols + mid for r in range(rows - 2))
    cliff = tuple((rows - 1) * cols + c for c in range(1, cols - 1) if c != mid)
    S = rows * cols
    det = np.zeros((S, 5, S))
    for s in range(S):
        r, c = divmod(s, cols)
        for a, (dr, dc) in enumerate(MOVES):
            r2, c2 = r + dr, c + dc
            t = r2 * cols + c2
            ok = 0 <= r2 < rows and 0 <= c2 < cols and t not in walls
            det[s, a, t if ok else s] = 1.0
    P = (1 - slip) * det + slip * det.mean(axis=1, keepdims=True)
    return CliffGrid(rows, cols, P, walls, cliff)


def random_walk_dataset(P, n_segments, length, *, starts=None, rng=None) -> dict:
    """Reward-free D4RL-layout dataset of uniformly random-action segments.

    ``P`` (S, A, S); each of ``n_segments`` segments starts at a state drawn uniformly from
    ``starts`` (default: all states) and takes ``length`` steps. Observations and actions are ints
    (N,); ``terminals`` are all False (segments are truncated, not terminated); ``rewards`` zeros.
    """
    P = check_stochastic(check_array(P, "P", ndim=3), "P")
    n_segments = check_int(n_segments, "n_segments", minimum=1)
    length = check_int(length, "length", minimum=1)
    g = check_rng(rng)
    S, A, _ = P.shape
    starts = np.arange(S) if starts is None else check_array(starts, "starts", ndim=1, dtype="int")
    cdf = np.cumsum(P, axis=2)
    s = g.choice(starts, size=n_segments)
    obs, act, nxt = [], [], []
    for _ in range(length):
        a = g.integers(0, A, size=n_segments)
        u = g.random(n_segments)
        s2 = np.minimum((cdf[s, a] < u[:, None]).sum(axis=1), S - 1)
        obs.append(s), act.append(a), nxt.append(s2)
        s = s2
    n = n_segments * length
    obs = np.stack(obs, 1).reshape(-1)
    return {
        "observations": obs,
        "actions": np.stack(act, 1).reshape(-1),
        "rewards": np.zeros(n),
        "next_observations": np.stack(nxt, 1).reshape(-1),
        "terminals": np.zeros(n, dtype=bool),
    }
