"""PointMaze2D: a point mass with inertia in a 2-D maze (numpy, gymnasium's API), and its
offline datasets."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._checks import check_array, check_float, check_int, check_rng

__all__ = ["U_MAZE", "Box", "PointMaze2D", "pointmaze_dataset"]

#: D4RL's U-maze: '#' walls, '.' free cells (cell size 1; x = column, y = row).
U_MAZE = ("#####", "#...#", "###.#", "#...#", "#####")


@dataclass(frozen=True)
class Box:
    """A box space like ``gymnasium.spaces.Box`` (``low``, ``high``, ``shape``, ``dtype``,
    ``sample(rng)``, ``contains(x)``); ``PointMaze2D.to_gymnasium()`` gives real gymnasium spaces."""

    low: np.ndarray
    high: np.ndarray

    @property
    def shape(self) -> tuple[int, ...]:
        return self.low.shape

    @property
    def dtype(self):
        return self.low.dtype

    def sample(self, rng=None) -> np.ndarray:
        return check_rng(rng).uniform(self.low, self.high).astype(self.dtype)

    def contains(self, x) -> bool:
        x = np.asarray(x)
        return x.shape == self.shape and bool(np.all((x >= self.low) & (x <= self.high)))


class PointMaze2D:
    """A point mass in a maze of unit cells, with gymnasium's API.

    Observation (x, y, vx, vy) float64; action (ax, ay) in [-1, 1]^2 (clipped). Dynamics per step:
    v' = damping * v + accel * a, clipped to [-max_speed, max_speed] per axis; then the move
    p' = p + v' axis by axis, x first: a move whose end point lies in a wall cell (or outside the
    maze) is cancelled on that axis and that velocity component set to 0 (the point slides
    along walls). Steps are shorter than a cell, so walls cannot be crossed.

    ``reset(seed=None, options=None) -> (obs, info)``: a uniformly random free position at rest
    and the constructor's ``goal``, else a uniformly random goal, drawn at every reset
    (``options``: ``{"start": (x, y), "goal": (x, y)}`` fix them for the episode; the same seed
    gives the same episode); ``step(a) -> (obs,
    reward, terminated, truncated, info)``: reward 1 and terminated when |p - goal| <=
    ``goal_radius``, else 0; truncated after ``horizon`` steps; ``info["success"]``.
    """

    metadata = {"render_modes": []}

    def __init__(
        self,
        layout=U_MAZE,
        *,
        goal=None,
        goal_radius=0.5,
        horizon=100,
        damping=0.8,
        accel=0.05,
        max_speed=0.25,
    ):
        if not isinstance(layout, list | tuple) or not all(isinstance(r, str) for r in layout):
            raise TypeError(f"layout must be a sequence of strings, got {type(layout).__name__}")
        rows = [r for r in layout]
        if not rows or len({len(r) for r in rows}) != 1 or not rows[0]:
            raise ValueError("layout must be non-empty strings of equal length")
        if set("".join(rows)) - {"#", "."}:
            raise ValueError("layout may hold only '#' (wall) and '.' (free)")
        self.layout = tuple(rows)
        self.wall = np.array([[ch == "#" for ch in r] for r in rows])
        if self.wall.all():
            raise ValueError("layout must have at least one free cell '.'")
        self.height, self.width = self.wall.shape
        self.goal_radius = check_float(goal_radius, "goal_radius", minimum=0.0, min_inclusive=False)
        self.horizon = check_int(horizon, "horizon", minimum=1)
        self.damping = check_float(damping, "damping", minimum=0.0, maximum=1.0)
        self.accel = check_float(accel, "accel", minimum=0.0, min_inclusive=False)
        self.max_speed = check_float(max_speed, "max_speed", minimum=0.0, min_inclusive=False)
        if self.max_speed >= 1.0:
            raise ValueError(f"max_speed must be < 1 (a cell), got {self.max_speed}")
        self.goal = None if goal is None else self._check_position(goal, "goal")
        self._fixed_goal = self.goal
        lim = np.array([self.width, self.height, self.max_speed, self.max_speed], dtype=float)
        self.observation_space = Box(np.array([0, 0, -lim[2], -lim[3]], dtype=float), lim)
        self.action_space = Box(-np.ones(2), np.ones(2))
        self._state = None
        self._rng = np.random.default_rng()
        self._t = 0

    # ---------------------------------------------------------------- geometry
    @property
    def free_cells(self) -> np.ndarray:
        """Centres (x, y) of the free cells: (n, 2)."""
        r, c = np.nonzero(~self.wall)
        return np.stack([c + 0.5, r + 0.5], 1).astype(float)

    def is_free(self, positions) -> np.ndarray:
        """Whether each position (..., 2) lies in a free cell."""
        p = np.asarray(positions, dtype=float)
        c, r = np.floor(p[..., 0]).astype(int), np.floor(p[..., 1]).astype(int)
        inside = (c >= 0) & (c < self.width) & (r >= 0) & (r < self.height)
        out = np.zeros(p.shape[:-1], dtype=bool)
        out[inside] = ~self.wall[r[inside], c[inside]]
        return out

    def _check_position(self, p, name):
        p = check_array(p, name, shape=(2,))
        if not self.is_free(p):
            raise ValueError(f"{name} must be a position in a free cell, got {p.tolist()}")
        return p

    def sample_free(self, n, rng=None) -> np.ndarray:
        """n uniform positions in the free cells: (n, 2)."""
        n = check_int(n, "n", minimum=1)
        g = check_rng(rng)
        cells = self.free_cells
        return cells[g.integers(0, len(cells), n)] + g.uniform(-0.5, 0.5, (n, 2)) * 0.98

    def dynamics(self, observations, actions) -> np.ndarray:
        """The next observation of a batch: (B, 4), (B, 2) -> (B, 4) (no goal, no termination)."""
        s = check_array(observations, "observations", ndim=2)
        a = check_array(actions, "actions", ndim=2)
        if s.shape[1] != 4 or a.shape[1] != 2 or len(s) != len(a):
            raise ValueError(
                f"observations (B, 4) and actions (B, 2) must match, got {s.shape} and {a.shape}"
            )
        a = np.clip(a, -1.0, 1.0)
        v = np.clip(self.damping * s[:, 2:] + self.accel * a, -self.max_speed, self.max_speed)
        p = s[:, :2].copy()
        for ax in (0, 1):
            q = p.copy()
            q[:, ax] += v[:, ax]
            ok = self.is_free(q)
            p[ok] = q[ok]
            v[~ok, ax] = 0.0
        return np.concatenate([p, v], 1)

    # ---------------------------------------------------------------- gymnasium API
    def reset(self, *, seed=None, options=None):
        if seed is not None:
            self._rng = check_rng(seed, "seed")
        options = {} if options is None else dict(options)
        if "goal" in options:
            self.goal = self._check_position(options["goal"], "goal")
        elif self._fixed_goal is not None:
            self.goal = self._fixed_goal.copy()
        else:
            self.goal = self.sample_free(1, self._rng)[0]
        if "start" in options:
            p = self._check_position(options["start"], "start")
        else:
            p = self.sample_free(1, self._rng)[0]
        self._state = np.concatenate([p, np.zeros(2)])
        self._t = 0
        return self._state.copy(), {"goal": self.goal.copy()}

    def step(self, action):
        if self._state is None:
            raise ValueError("call reset() before step()")
        a = check_array(action, "action", shape=(2,))
        self._state = self.dynamics(self._state[None], a[None])[0]
        self._t += 1
        success = bool(np.linalg.norm(self._state[:2] - self.goal) <= self.goal_radius)
        truncated = self._t >= self.horizon and not success
        info = {"success": success, "goal": self.goal.copy()}
        return self._state.copy(), float(success), success, truncated, info

    def goal_reward(self, observations, goal=None, *, scale=0.5) -> np.ndarray:
        """A dense goal reward exp(-|p - goal|^2 / (2 scale^2)) of observations (B, 4): (B,)."""
        s = check_array(observations, "observations", ndim=2)
        if s.shape[1] < 2:
            raise ValueError(f"observations must have the position columns, got shape {s.shape}")
        g = self.goal if goal is None else check_array(goal, "goal", shape=(2,))
        if g is None:
            raise ValueError("goal must be given (the env has no goal yet)")
        scale = check_float(scale, "scale", minimum=0.0, min_inclusive=False)
        return np.exp(-((s[:, :2] - g) ** 2).sum(1) / (2 * scale**2))

    def to_gymnasium(self):
        """This maze as a ``gymnasium.Env`` (needs ``dispo-rl[gym]``)."""
        try:
            from ._gym import GymPointMaze
        except ImportError as err:
            if err.name != "gymnasium":
                raise
            raise ImportError("to_gymnasium needs gymnasium: pip install 'dispo-rl[gym]'") from err
        return GymPointMaze(self)

    def __repr__(self) -> str:
        return f"PointMaze2D({self.height}x{self.width}, horizon={self.horizon})"


def pointmaze_dataset(env, n_segments, length, *, noise=0.3, rng=None) -> dict:
    """Reward-free D4RL-layout dataset of waypoint-following segments in a ``PointMaze2D``.

    Each segment starts at rest at a uniform free position and steers (a PD controller plus
    Gaussian action noise ``noise``) towards a random neighbouring free cell's centre, then from
    there towards a random neighbour of that cell (not going straight back with prob. 0.75), and
    so on for ``length`` steps: corridor-following motion whose segments are short, so that long
    paths exist in the data only by stitching segments. ``terminals`` are all False.
    """
    if not isinstance(env, PointMaze2D):
        raise TypeError(f"env must be a PointMaze2D, got {type(env).__name__}")
    n_segments = check_int(n_segments, "n_segments", minimum=1)
    length = check_int(length, "length", minimum=1)
    noise = check_float(noise, "noise", minimum=0.0)
    g = check_rng(rng)
    free = ~env.wall
    p = env.sample_free(n_segments, g)
    s = np.concatenate([p, np.zeros((n_segments, 2))], 1)
    cell = np.floor(p).astype(int)  # (col, row)
    prev = cell.copy()
    target = cell.copy()
    moves = np.array([[1, 0], [-1, 0], [0, 1], [0, -1]])

    def next_target(i):
        opts = [cell[i] + m for m in moves if free[cell[i][1] + m[1], cell[i][0] + m[0]]]
        fwd = [o for o in opts if not np.array_equal(o, prev[i])]
        if fwd and (len(fwd) == len(opts) or g.random() < 0.75):
            opts = fwd
        return opts[g.integers(len(opts))] if opts else cell[i]

    for i in range(n_segments):
        target[i] = next_target(i)
    obs, act, nxt = [], [], []
    for _ in range(length):
        aim = target + 0.5
        a = 4.0 * (aim - s[:, :2]) - 8.0 * s[:, 2:] + noise * g.normal(size=(n_segments, 2))
        a = np.clip(a, -1.0, 1.0)
        s2 = env.dynamics(s, a)
        obs.append(s), act.append(a), nxt.append(s2)
        s = s2
        for i in range(n_segments):
            if np.linalg.norm(s[i, :2] - (target[i] + 0.5)) < 0.35:
                prev[i], cell[i] = cell[i], target[i]
                target[i] = next_target(i)
    n = n_segments * length
    return {
        "observations": np.stack(obs, 1).reshape(n, 4),
        "actions": np.stack(act, 1).reshape(n, 2),
        "rewards": np.zeros(n),
        "next_observations": np.stack(nxt, 1).reshape(n, 4),
        "terminals": np.zeros(n, dtype=bool),
    }
