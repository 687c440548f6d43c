"""Fixed-horizon rollouts of a batch policy in any gymnasium-API environment, and two hand-coded
deterministic experts for the classic-control tasks (numpy only: gymnasium itself is not
imported here)."""

from __future__ import annotations

import copy
from dataclasses import dataclass

import numpy as np

from ._checks import check_array, check_callable, check_int, check_rng, describe


@dataclass(frozen=True)
class Rollouts:
    """n episodes of at most ``horizon`` steps, padded after an early end.

    ``observations``/``next_observations`` (n, H, *obs_shape), ``actions`` (n, H, *act_shape),
    ``rewards`` (n, H) (0 after the end), ``mask`` (n, H) bool (the step was taken) and
    ``terminals`` (n, H) bool (the env reported ``terminated`` at that step)."""

    observations: np.ndarray
    actions: np.ndarray
    rewards: np.ndarray
    next_observations: np.ndarray
    mask: np.ndarray
    terminals: np.ndarray

    @property
    def returns(self) -> np.ndarray:
        """Undiscounted return of each episode, (n,)."""
        return self.rewards.sum(axis=1)

    @property
    def lengths(self) -> np.ndarray:
        """Number of steps taken in each episode, (n,)."""
        return self.mask.sum(axis=1)

    def flat(self) -> tuple[np.ndarray, np.ndarray]:
        """(observations (N, *obs_shape), actions (N, *act_shape)) of the N steps taken."""
        return self.observations[self.mask], self.actions[self.mask]

    def to_d4rl(self) -> dict[str, np.ndarray]:
        """The steps taken as a D4RL-layout dict: ``observations, actions, rewards,
        next_observations, terminals`` (and ``timeouts``: the episode ended by the horizon or a
        truncation, not by termination), each with one row per step."""
        m = self.mask
        last = np.zeros_like(m)
        idx = np.arange(m.shape[0])[self.lengths > 0]
        last[idx, self.lengths[idx] - 1] = True
        return {
            "observations": self.observations[m],
            "actions": self.actions[m],
            "rewards": self.rewards[m],
            "next_observations": self.next_observations[m],
            "terminals": self.terminals[m],
            "timeouts": (last & ~self.terminals)[m],
        }


def _check_env(env):
    for method in ("reset", "step"):
        if not callable(getattr(env, method, None)):
            raise TypeError(
                f"env must have the gymnasium API (reset(seed=...), step(action)), got "
                f"{describe(env)} without {method}()"
            )
    return env


def rollout(env, policy, n_episodes, *, horizon, rng=None) -> Rollouts:
    """Run ``n_episodes`` episodes of ``policy`` in ``env`` for at most ``horizon`` steps each.

    ``policy`` maps a batch of observations (B, *obs_shape) to a batch of actions (B,) or
    (B, *act_shape) (numpy in, numpy out; e.g. ``CategoricalMLP.act``, :func:`cartpole_expert`).
    The episodes run in lockstep on deep copies of ``env`` (one call of the policy per step), each
    reset with its own seed drawn from ``rng``; an env that cannot be deep-copied runs them one
    after another with the same seeds. An episode ends at ``terminated`` or ``truncated`` (give
    a gymnasium env ``max_episode_steps >= horizon`` to fix the horizon)."""
    _check_env(env)
    check_callable(policy, "policy")
    n = check_int(n_episodes, "n_episodes", minimum=1)
    H = check_int(horizon, "horizon", minimum=1)
    g = check_rng(rng)
    seeds = [int(s) for s in g.integers(0, 2**31 - 1, size=n)]
    try:
        envs = [copy.deepcopy(env) for _ in range(n)]
    except Exception:
        envs = None
    if envs is None:
        parts = [_run([env], policy, [s], H) for s in seeds]
        return Rollouts(*(np.concatenate(f) for f in zip(*(_fields(p) for p in parts))))
    return _run(envs, policy, seeds, H)


def _fields(r: Rollouts):
    return (r.observations, r.actions, r.rewards, r.next_observations, r.mask, r.terminals)


def _run(envs, policy, seeds, H) -> Rollouts:
    n = len(envs)
    first = [np.asarray(e.reset(seed=s)[0]) for e, s in zip(envs, seeds)]
    obs_now = np.stack(first)
    obs = np.zeros((n, H, *obs_now.shape[1:]), dtype=obs_now.dtype)
    nxt = np.zeros_like(obs)
    rew = np.zeros((n, H))
    mask = np.zeros((n, H), dtype=bool)
    term = np.zeros((n, H), dtype=bool)
    act = None
    alive = np.arange(n)
    for h in range(H):
        if alive.size == 0:
            break
        batch = obs_now[alive]
        a = _actions(policy(batch), alive.size)
        if act is None:
            act = np.zeros((n, H, *a.shape[1:]), dtype=a.dtype)
        still = []
        for j, i in enumerate(alive):
            ai = int(a[j]) if a.ndim == 1 and a.dtype.kind in "iu" else a[j]
            o2, r, te, tr, _ = envs[i].step(ai)
            o2 = np.asarray(o2)
            obs[i, h], act[i, h], rew[i, h], nxt[i, h] = batch[j], a[j], float(r), o2
            mask[i, h], term[i, h] = True, bool(te)
            obs_now[i] = o2
            if not (te or tr):
                still.append(i)
        alive = np.asarray(still, dtype=np.int64)
    return Rollouts(obs, act, rew, nxt, mask, term)


def _actions(a, batch: int) -> np.ndarray:
    if type(a).__module__.startswith("torch") and hasattr(a, "detach"):
        a = a.detach().cpu().numpy()
    arr = check_array(a, "policy", dtype="numeric", ndim=None)
    if arr.ndim == 0 or arr.shape[0] != batch:
        raise ValueError(
            f"policy must return one action per observation ({batch}), got shape {arr.shape}"
        )
    return arr


def cartpole_expert(observations) -> np.ndarray:
    """A deterministic linear CartPole-v1 controller: push right (1) iff
    0.5 x + x_dot + 10 theta + 2 theta_dot > 0, else left (0). ``observations`` (..., 4) ->
    int actions (...). It keeps the pole up for 500 steps from every start tested."""
    o = check_array(observations, "observations", ndim=None)
    if o.ndim == 0 or o.shape[-1] != 4:
        raise ValueError(f"observations must have shape (..., 4), got {o.shape}")
    return (o @ np.array([0.5, 1.0, 10.0, 2.0]) > 0).astype(np.int64)


def pendulum_expert(observations) -> np.ndarray:
    """A deterministic Pendulum-v1 swing-up controller: energy pumping u = E_gap * theta_dot
    (E = theta_dot^2 / 2 + 15 (cos theta - 1), 0 at upright rest) far from the top, and the PD law
    u = -10 theta - 2 theta_dot once cos theta > 0.9; torque clipped to [-2, 2].
    ``observations`` (..., 3) = (cos theta, sin theta, theta_dot) -> actions (..., 1)."""
    o = check_array(observations, "observations", ndim=None)
    if o.ndim == 0 or o.shape[-1] != 3:
        raise ValueError(f"observations must have shape (..., 3), got {o.shape}")
    c, s, w = o[..., 0], o[..., 1], o[..., 2]
    theta = np.arctan2(s, c)
    energy = 0.5 * w**2 + 15.0 * (c - 1.0)
    u = np.where(c > 0.9, -10.0 * theta - 2.0 * w, -energy * w)
    return np.clip(u, -2.0, 2.0)[..., None]
