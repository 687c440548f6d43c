"""A 2-D point mass with an action-scale mismatch: the cheap continuous stand-in for the paper's
robot tasks (sparse reward, the simulator's optimum gets nothing in the real system)."""

from __future__ import annotations

import math

import numpy as np

from ._checks import check_array, check_float, check_int, check_rng, describe
from .policies import GridEncoder, TabularPolicy

__all__ = [
    "MOVES",
    "Point2D",
    "WaypointPolicy",
    "action_scale_mismatch",
    "plan_on_grid",
    "waypoint_explorers",
]

#: The 8 moves (king moves): E, NE, N, NW, W, SW, S, SE, each scaled by step_size * action_scale.
MOVES = np.array([(1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1)], float)


def _init_point_mass(
    self, action_scale, horizon, step_size, noise, start, start_jitter, targets, rewards, radius
):
    """The validated parameters shared by :class:`Point2D` and ``ContinuousPoint2D``."""
    self.action_scale = check_float(action_scale, "action_scale", minimum=0.0, min_inclusive=False)
    self.horizon = check_int(horizon, "horizon", minimum=1)
    self.step_size = check_float(step_size, "step_size", minimum=0.0, min_inclusive=False)
    self.noise = check_float(noise, "noise", minimum=0.0)
    self.start = check_array(start, "start", shape=(2,))
    self.start_jitter = check_float(start_jitter, "start_jitter", minimum=0.0)
    self.targets = check_array(targets, "targets", shape=(None, 2))
    self.rewards = check_array(rewards, "rewards", shape=(self.targets.shape[0],))
    self.radius = check_float(radius, "radius", minimum=0.0, min_inclusive=False)
    self._rng = np.random.default_rng()
    self._pos = None
    self._h = 0


def _reset_point_mass(self, *, seed=None, options=None):
    """gymnasium ``reset``: a start drawn uniformly in ``start +- start_jitter``."""
    if seed is not None:
        self._rng = check_rng(seed, "seed")
    j = self.start_jitter
    pos = np.clip(self.start + self._rng.uniform(-j, j, size=2), 0.0, 1.0)
    self._pos = tuple(pos.tolist())
    self._h = 0
    return pos, {"h": 0}


class Point2D:
    """A point in the unit square with 8 discrete moves and the gymnasium API.

    A move displaces the point by ``step_size * action_scale * MOVES[a]`` plus N(0, noise^2)
    per coordinate, clipped to [0, 1]^2. Entering the disc of radius ``radius`` around
    ``targets[k]`` pays ``rewards[k]`` and terminates; the episode is truncated after
    ``horizon`` steps. Starts uniformly in ``start +- start_jitter``. Observations are float
    arrays (2,). With the defaults the far target (reward 1) is 21 steps away at
    ``action_scale=1`` and out of reach within 30 steps at 0.6 (34 needed), while the near target
    (reward 0.5) takes 7 and 12 steps: the simulator's optimum heads for the far target and
    collects nothing in the real system, whose optimum is the near one."""

    n_actions = 8

    def __init__(
        self,
        *,
        action_scale=1.0,
        horizon=30,
        step_size=0.04,
        noise=0.003,
        start=(0.1, 0.5),
        start_jitter=0.02,
        targets=((1.0, 0.5), (0.1, 0.15)),
        rewards=(1.0, 0.5),
        radius=0.08,
    ):
        _init_point_mass(
            self,
            action_scale,
            horizon,
            step_size,
            noise,
            start,
            start_jitter,
            targets,
            rewards,
            radius,
        )
        d = self.step_size * self.action_scale
        self._moves = [(d * mx, d * my) for mx, my in MOVES.tolist()]
        self._targets = self.targets.tolist()
        self._rewards = self.rewards.tolist()

    # the simulator's model (used by the planners in simulation, never on the real system)
    def move(self, pos, action) -> np.ndarray:
        """Noise-free next position(s): ``pos`` (..., 2), ``action`` int or (...,) ints."""
        return np.clip(pos + self.step_size * self.action_scale * MOVES[action], 0.0, 1.0)

    def hit(self, pos) -> np.ndarray:
        """Index of the target whose disc holds ``pos`` (..., 2), or -1."""
        d = np.linalg.norm(np.asarray(pos)[..., None, :] - self.targets, axis=-1)
        inside = d <= self.radius
        return np.where(inside.any(axis=-1), inside.argmax(axis=-1), -1)

    # gymnasium API
    reset = _reset_point_mass

    def step(self, action):
        if self._pos is None:
            raise RuntimeError("call reset() before step()")
        if type(action) is not int:
            action = check_int(action, "action")
        if not 0 <= action < 8:
            raise ValueError(f"action must be in [0, 8), got {action}")
        dx, dy = self._moves[action]
        x, y = self._pos
        x, y = min(max(x + dx, 0.0), 1.0), min(max(y + dy, 0.0), 1.0)
        if self.noise:
            ex, ey = self._rng.standard_normal(2).tolist()
            x = min(max(x + self.noise * ex, 0.0), 1.0)
            y = min(max(y + self.noise * ey, 0.0), 1.0)
        self._h += 1
        k = -1
        for i, (tx, ty) in enumerate(self._targets):
            if math.hypot(x - tx, y - ty) <= self.radius:
                k = i
                break
        reward = self._rewards[k] if k >= 0 else 0.0
        terminated = k >= 0
        truncated = not terminated and self._h >= self.horizon
        self._pos = None if terminated or truncated else (x, y)
        return np.array([x, y]), reward, terminated, truncated, {"h": self._h, "target": k}

    def __repr__(self) -> str:
        return f"Point2D(action_scale={self.action_scale}, horizon={self.horizon})"


def action_scale_mismatch(*, scale_sim=1.0, scale_real=0.6, horizon=30):
    """``(sim, real)``: two :class:`Point2D` that differ only in the action scale."""
    s = check_float(scale_sim, "scale_sim", minimum=0.0, min_inclusive=False)
    r = check_float(scale_real, "scale_real", minimum=0.0, min_inclusive=False)
    H = check_int(horizon, "horizon", minimum=1)
    return Point2D(action_scale=s, horizon=H), Point2D(action_scale=r, horizon=H)


def _check_point(sim, name="sim"):
    if not isinstance(sim, Point2D):
        raise TypeError(f"{name} must be a Point2D simulator, got {describe(sim)}")
    return sim


class WaypointPolicy:
    """Greedy one-step planning in the simulator's model towards ``waypoint``:
    ``act(obs, h, rng)`` plays the move whose simulated next position is closest to it."""

    def __init__(self, sim, waypoint):
        self.sim = _check_point(sim)
        self.waypoint = check_array(waypoint, "waypoint", shape=(2,))
        self._w = self.waypoint.tolist()
        self._moves = sim._moves

    def act(self, obs, h, rng=None) -> int:
        if type(obs) is np.ndarray and obs.shape == (2,) and obs.dtype.kind == "f":
            x, y = obs.tolist()
        else:
            x, y = check_array(obs, "obs", shape=(2,)).tolist()
        wx, wy = self._w
        best, arg = math.inf, 0
        for a, (dx, dy) in enumerate(self._moves):
            nx, ny = min(max(x + dx, 0.0), 1.0), min(max(y + dy, 0.0), 1.0)
            d = (nx - wx) ** 2 + (ny - wy) ** 2
            if d < best:
                best, arg = d, a
        return arg

    def __repr__(self) -> str:
        return f"WaypointPolicy(waypoint={self.waypoint.tolist()})"


def waypoint_explorers(sim, *, n_side=4):
    """``n_side**2`` diverse exploration policies learned in the simulator: one
    :class:`WaypointPolicy` per centre of an ``n_side x n_side`` grid over the square (the
    stand-in for the paper's diverse policy ensemble)."""
    _check_point(sim)
    n = check_int(n_side, "n_side", minimum=1)
    c = (np.arange(n) + 0.5) / n
    return [WaypointPolicy(sim, (x, y)) for x in c for y in c]


def plan_on_grid(sim, *, bins=100):
    """The simulator's optimal policy, by backward induction on a ``bins x bins`` grid model of
    ``sim`` (noise-free moves from cell centres). Returns a :class:`TabularPolicy`
    (H, bins**2, 8) on a :class:`GridEncoder`: direct sim2real transfer of a closed-loop
    policy."""
    _check_point(sim)
    b = check_int(bins, "bins", minimum=2)
    enc = GridEncoder([0.0, 0.0], [1.0, 1.0], b)
    centres = enc.centers()
    C, A, H = enc.n_codes, 8, sim.horizon
    nxt_pos = sim.move(centres[:, None, :], np.arange(A)[None, :])  # (C, A, 2)
    k = sim.hit(nxt_pos)  # (C, A)
    rew = np.where(k >= 0, sim.rewards[np.maximum(k, 0)], 0.0)
    term = k >= 0
    ix = np.clip(np.floor(nxt_pos * b).astype(np.int64), 0, b - 1)
    nxt = ix[..., 0] * b + ix[..., 1]
    probs = np.zeros((H, C, A))
    V = np.zeros(C)
    for h in range(H - 1, -1, -1):
        Q = rew + np.where(term, 0.0, V[nxt])
        best = np.argmax(Q, axis=-1)
        probs[h, np.arange(C), best] = 1.0
        V = Q.max(axis=-1)
    return TabularPolicy(probs, encoder=enc)
