"""A continuous-action 2-D point mass with an action-scale mismatch: the small sim/real pair on
which the ``[torch]`` SAC pipeline (the paper's practical algorithm) runs."""

from __future__ import annotations

import math

import numpy as np

from ._checks import check_array, check_float, check_int, check_rng, describe
from .point2d import _init_point_mass, _reset_point_mass

__all__ = ["ContinuousPoint2D", "continuous_action_scale_mismatch", "rollout_returns"]


class ContinuousPoint2D:
    """A point in the unit square with continuous 2-D velocity actions and the gymnasium API.

    An action ``a`` in [-1, 1]^2 displaces the point by ``step_size * action_scale * a`` plus
    N(0, noise^2) per coordinate, clipped to [0, 1]^2 (an action outside the box is a
    ValueError, not clipped). Entering the disc of radius ``radius`` around ``targets[k]`` pays
    ``rewards[k]`` and terminates; the episode is truncated after ``horizon`` steps. Starts
    uniformly in ``start +- start_jitter``; observations are float arrays (2,).

    ``shaping`` > 0 adds the potential-based term ``shaping * (phi(s') - phi(s))``, phi = minus
    the distance to ``targets[0]``, to the reward (a simulator's dense training signal; it
    leaves the optimal policies unchanged); ``info["task_reward"]`` is always the unshaped
    reward.

    With the defaults the far target (reward 1) needs 6 steps at ``action_scale=1`` and 11 at
    0.5, more than the horizon of 10, while the near target (reward 0.5, off the straight line)
    needs 2 and 4: the simulator's optimum heads for the far target and collects nothing in the
    real system, whose optimum is the near one.
    """

    obs_dim = 2
    action_dim = 2

    def __init__(
        self,
        *,
        action_scale=1.0,
        horizon=10,
        step_size=0.15,
        noise=0.005,
        start=(0.1, 0.5),
        start_jitter=0.02,
        targets=((1.0, 0.5), (0.45, 0.2)),
        rewards=(1.0, 0.5),
        radius=0.12,
        shaping=0.0,
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
        self.shaping = check_float(shaping, "shaping", minimum=0.0)
        self.action_low = -np.ones(2)
        self.action_high = np.ones(2)
        self._targets = self.targets.tolist()
        self._rewards = self.rewards.tolist()

    reset = _reset_point_mass

    def step(self, action):
        if self._pos is None:
            raise RuntimeError("call reset() before step()")
        a = check_array(action, "action", shape=(2,))
        if np.abs(a).max() > 1.0 + 1e-6:
            raise ValueError(f"action must lie in [-1, 1]^2, got {a.tolist()}")
        ax, ay = np.clip(a, -1.0, 1.0).tolist()  # only float rounding beyond +-1 is removed
        d = self.step_size * self.action_scale
        x, y = self._pos
        x, y = min(max(x + d * ax, 0.0), 1.0), min(max(y + d * ay, 0.0), 1.0)
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
        task = self._rewards[k] if k >= 0 else 0.0
        reward = task
        if self.shaping:
            tx, ty = self._targets[0]
            x0, y0 = self._pos
            reward += self.shaping * (math.hypot(x0 - tx, y0 - ty) - math.hypot(x - tx, y - ty))
        terminated = k >= 0
        truncated = not terminated and self._h >= self.horizon
        self._pos = None if terminated or truncated else (x, y)
        info = {"h": self._h, "target": k, "task_reward": task}
        return np.array([x, y]), reward, terminated, truncated, info

    def __repr__(self) -> str:
        return f"ContinuousPoint2D(action_scale={self.action_scale}, horizon={self.horizon})"


def continuous_action_scale_mismatch(*, scale_sim=1.0, scale_real=0.5, horizon=10, sim_shaping=1.0):
    """``(sim, real)``: two :class:`ContinuousPoint2D` whose dynamics differ only in the action
    scale; the simulator also offers the dense shaping term (``sim_shaping``, 0 for none), the
    real system only the sparse task reward."""
    s = check_float(scale_sim, "scale_sim", minimum=0.0, min_inclusive=False)
    r = check_float(scale_real, "scale_real", minimum=0.0, min_inclusive=False)
    H = check_int(horizon, "horizon", minimum=1)
    c = check_float(sim_shaping, "sim_shaping", minimum=0.0)
    return (
        ContinuousPoint2D(action_scale=s, horizon=H, shaping=c),
        ContinuousPoint2D(action_scale=r, horizon=H),
    )


def rollout_returns(env, policy, n_episodes, *, rng=None):
    """Returns of ``n_episodes`` episodes of ``policy`` (an object with ``act(obs, h, rng)``
    returning a continuous action) on ``env`` (gymnasium API; episodes run until terminated or
    truncated), (n,). ``rng`` seeds the first reset and the policy's noise."""
    if not (callable(getattr(env, "reset", None)) and callable(getattr(env, "step", None))):
        raise TypeError(f"env must be an environment with the gymnasium API, got {describe(env)}")
    if not callable(getattr(policy, "act", None)):
        raise TypeError(f"policy must have act(obs, h, rng), got {describe(policy)}")
    n = check_int(n_episodes, "n_episodes", minimum=1)
    g = check_rng(rng)
    out = np.zeros(n)
    for i in range(n):
        obs, _ = env.reset(seed=int(g.integers(2**31)) if i == 0 else None)
        h, total = 0, 0.0
        while True:
            obs, r, term, trunc, _ = env.step(policy.act(obs, h, g))
            total += float(r)
            h += 1
            if term or trunc:
                break
        out[i] = total
    return out
