"""``PointMaze2D.to_gymnasium()``: the maze as a ``gymnasium.Env`` (the ``[gym]`` extra)."""

from __future__ import annotations

import gymnasium as gym
import numpy as np


class GymPointMaze(gym.Env):
    """A ``gymnasium.Env`` view of a ``PointMaze2D`` (same dynamics, rewards and seeding), with
    ``gymnasium.spaces.Box`` spaces."""

    metadata = {"render_modes": []}

    def __init__(self, maze):
        self.maze = maze
        o, a = maze.observation_space, maze.action_space
        self.observation_space = gym.spaces.Box(o.low, o.high, dtype=np.float64)
        self.action_space = gym.spaces.Box(
            a.low.astype(np.float32), a.high.astype(np.float32), dtype=np.float32
        )

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        return self.maze.reset(seed=seed, options=options)

    def step(self, action):
        return self.maze.step(np.asarray(action, dtype=float))
