"""Algorithm 1 (exploration-policy transfer) and its baselines, on any gymnasium-API real env.

The real environment is reached only through ``reset(seed=...)`` and ``step(action)``; every
episode started on it counts against ``n_episodes`` and is reported as ``info.episodes_used``.
"""

from __future__ import annotations

import math
import numbers
from bisect import bisect_right
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

import numpy as np

import papershelf_mdp as pm
from papershelf_mdp import TabularMDP

from ._checks import (
    check_array,
    check_bool,
    check_float,
    check_int,
    check_probability,
    check_rng,
    describe,
)
from ._envs import FastTabularEnv
from ._validation import check_env, check_finite_mdp, env_n_actions
from .policies import StateEncoder, TabularPolicy
from .tabular import check_exploration, exploration_policies

__all__ = [
    "TransferInfo",
    "Transitions",
    "direct_transfer",
    "exploration_transfer",
    "fitted_q_iteration",
    "greedy_policy",
    "sim2real_transfer",
    "zeta_greedy_transfer",
]


# --------------------------------------------------------------------------- data and FQI


@dataclass(frozen=True)
class Transitions:
    """Real transitions, one entry each: step h, state (table row), action, reward, next state,
    and whether the episode terminated on it (then nothing is bootstrapped after it)."""

    step: np.ndarray
    state: np.ndarray
    action: np.ndarray
    reward: np.ndarray
    next_state: np.ndarray
    terminal: np.ndarray

    def __len__(self) -> int:
        return int(self.step.shape[0])

    @classmethod
    def from_arrays(cls, step, state, action, reward, next_state, terminal=None) -> Transitions:
        """Validated arrays of equal length (``terminal`` defaults to all False)."""
        arrs = {
            "step": check_array(step, "step", ndim=1, dtype="int", allow_empty=True),
            "state": check_array(state, "state", ndim=1, dtype="int", allow_empty=True),
            "action": check_array(action, "action", ndim=1, dtype="int", allow_empty=True),
            "reward": check_array(reward, "reward", ndim=1, allow_empty=True),
            "next_state": check_array(
                next_state, "next_state", ndim=1, dtype="int", allow_empty=True
            ),
        }
        n = arrs["step"].shape[0]
        term = (
            np.zeros(n, dtype=bool)
            if terminal is None
            else check_array(terminal, "terminal", ndim=1, dtype="bool", allow_empty=True)
        )
        arrs["terminal"] = term
        for k, v in arrs.items():
            if v.shape[0] != n:
                raise ValueError(f"{k} must have length {n} (as step), got {v.shape[0]}")
        return cls(**arrs)


def fitted_q_iteration(data, *, horizon, n_states, n_actions, pool_steps=False, gamma=1.0):
    """Fitted Q-iteration with the tabular least-squares class, backwards in h (Algorithm 1, step 4).

    ``f_h(s, a)`` = the mean of ``r + max_a' f_{h+1}(s', a')`` over the transitions at (h, s, a)
    (the least-squares fit of one-hot features); nothing is bootstrapped after a terminal
    transition or after the last step, and an (h, s, a) without data gets 0 (the minimum-norm
    solution). Returns Q (H, S, A).

    ``pool_steps=True`` fits every ``f_h`` on all transitions whatever their step (one function
    class shared by the steps): valid when the real dynamics and rewards do not depend on h
    (e.g. :class:`Point2D`), and H times more data per fit."""
    if not isinstance(data, Transitions):
        raise TypeError(f"data must be a Transitions, got {describe(data)}")
    H = check_int(horizon, "horizon", minimum=1)
    S = check_int(n_states, "n_states", minimum=1)
    A = check_int(n_actions, "n_actions", minimum=1)
    for name, arr, hi in (
        ("step", data.step, H),
        ("state", data.state, S),
        ("next_state", data.next_state, S),
        ("action", data.action, A),
    ):
        if arr.size and (arr.min() < 0 or arr.max() >= hi):
            raise ValueError(
                f"data.{name} must lie in [0, {hi}), got values in [{arr.min()}, {arr.max()}]"
            )
    pool = check_bool(pool_steps, "pool_steps")
    gam = check_float(gamma, "gamma", minimum=0.0, maximum=1.0)
    Q = np.zeros((H, S, A))
    for h in range(H - 1, -1, -1):
        m = np.ones(len(data), dtype=bool) if pool else data.step == h
        if not np.any(m):
            continue
        y = data.reward[m].copy()
        if h + 1 < H:
            boot = Q[h + 1].max(axis=-1)[data.next_state[m]]
            y += gam * np.where(data.terminal[m], 0.0, boot)
        idx = data.state[m] * A + data.action[m]
        tot = np.bincount(idx, weights=y, minlength=S * A)
        cnt = np.bincount(idx, minlength=S * A)
        Q[h] = np.where(cnt > 0, tot / np.maximum(cnt, 1), 0.0).reshape(S, A)
    return Q


def greedy_policy(Q):
    """The deterministic greedy policy of Q (..., A) as action probabilities; ties go to the lowest
    action index."""
    Q = check_array(Q, "Q", ndim=(2, 3))
    pi = np.zeros_like(Q)
    np.put_along_axis(pi, np.argmax(Q, axis=-1)[..., None], 1.0, axis=-1)
    return pi


# --------------------------------------------------------------------------- result


@dataclass(frozen=True)
class TransferInfo(Mapping):
    """What a transfer run did. Fields (also readable as ``info["episodes_used"]``):

    ``episodes_used`` real episodes started (<= n_episodes); ``n_explore`` of them for
    exploration; ``n_eval`` evaluation episodes per candidate; ``selected`` "fqi" or "sim";
    ``fqi_policy`` / ``sim_policy`` the two candidates; ``fqi_return`` / ``sim_return`` their
    mean real returns in the evaluation (None without evaluation episodes); ``explore_return``
    the mean return of the exploration episodes; ``q_values`` the FQI estimate (H, S, A);
    ``counts`` visits of every (h, s, a) in the exploration data; ``data`` those transitions."""

    episodes_used: int
    n_explore: int
    n_eval: int
    selected: str
    fqi_policy: Any
    sim_policy: Any
    fqi_return: float | None
    sim_return: float | None
    explore_return: float
    q_values: np.ndarray
    counts: np.ndarray
    data: Transitions

    def __getitem__(self, key):
        if key not in self._keys():
            raise KeyError(key)
        return getattr(self, key)

    def __iter__(self):
        return iter(self._keys())

    def __len__(self) -> int:
        return len(self._keys())

    @classmethod
    def _keys(cls) -> tuple[str, ...]:
        return tuple(f.name for f in fields(cls))

    def __repr__(self) -> str:
        fr = "None" if self.fqi_return is None else f"{self.fqi_return:.4g}"
        sr = "None" if self.sim_return is None else f"{self.sim_return:.4g}"
        return (
            f"TransferInfo(episodes_used={self.episodes_used}, n_explore={self.n_explore}, "
            f"n_eval={self.n_eval}, selected={self.selected!r}, fqi_return={fr}, sim_return={sr})"
        )

    __hash__ = None  # holds arrays


# --------------------------------------------------------------------------- the runner


class _Actor:
    """Acts from (obs, row, h, rng): a table over rows, or an object with ``act(obs, h, rng)``."""

    def __init__(self, policy, n_rows, n_actions, horizon, name):
        self.table = None
        if isinstance(policy, np.ndarray | list | tuple):
            arr = check_array(policy, name, ndim=(2, 3))
            want = (n_rows, n_actions) if arr.ndim == 2 else (horizon, n_rows, n_actions)
            if arr.shape != want:
                raise ValueError(f"{name} must have shape {want}, got {arr.shape}")
            pm.check_stochastic(arr, name)
            if arr.ndim == 2:
                arr = np.broadcast_to(arr, (horizon, n_rows, n_actions))
            self.table = np.cumsum(arr, axis=-1).tolist()
        elif callable(getattr(policy, "act", None)):
            self.policy = policy
        else:
            raise TypeError(
                f"{name} must be action probabilities or an object with act(obs, h, rng), "
                f"got {describe(policy)}"
            )
        self.n_actions, self.name = n_actions, name

    def __call__(self, obs, row, h, g, u):
        if self.table is not None:
            return min(bisect_right(self.table[h][row], u), self.n_actions - 1)
        a = self.policy.act(obs, h, g)
        if (
            not isinstance(a, numbers.Integral)
            or isinstance(a, bool)
            or not 0 <= a < self.n_actions
        ):
            raise ValueError(
                f"{self.name}.act must return an action in [0, {self.n_actions}), got {a!r}"
            )
        return int(a)


class _Runner:
    """Runs episodes on the real env through reset/step only and counts them."""

    def __init__(self, env, horizon, n_actions, encoder, g):
        self.env, self.H, self.A, self.encoder, self.g = env, horizon, n_actions, encoder, g
        self.episodes = 0

    def run(self, act, switch=None, record=None):
        """One episode; ``act(obs, row, h, g, u)``; uniform actions from step ``switch`` on."""
        g, H, A = self.g, self.H, self.A
        # the env is seeded once, from rng, at its first reset; later resets continue its stream
        out = (
            self.env.reset(seed=int(g.integers(2**63 - 1)))
            if self.episodes == 0
            else self.env.reset()
        )
        self.episodes += 1
        if not (isinstance(out, tuple) and len(out) == 2):
            raise TypeError(f"real_env.reset must return (obs, info), got {describe(out)}")
        obs = out[0]
        row = self.encoder(obs)
        ret = 0.0
        us = g.random(H).tolist()
        if switch is None:
            switch = H
        for h in range(H):
            a = min(int(us[h] * A), A - 1) if h >= switch else act(obs, row, h, g, us[h])
            res = self.env.step(a)
            if not (type(res) is tuple and len(res) == 5):
                raise TypeError(
                    f"real_env.step must return (obs, reward, terminated, truncated, info), got {describe(res)}"
                )
            obs2, r, term, trunc, _ = res
            r = float(r)
            if not math.isfinite(r):
                raise ValueError(f"real_env returned a non-finite reward {r} at step {h}")
            row2 = self.encoder(obs2)
            if record is not None:
                record.append((h, row, a, r, row2, bool(term)))
            ret += r
            if term or trunc:
                break
            obs, row = obs2, row2
        return ret


def _budget(n):
    n_eval = n // 4
    return n - 2 * n_eval, n_eval


def _transfer(
    runner, behaviours, sim_actor, sim_policy, *, n_episodes, n_rows, wrap, pool=False, gamma=1.0
):
    """Steps 3-6 of Algorithm 1 with exploration episodes drawn by ``behaviours()``."""
    n_explore, n_eval = _budget(n_episodes)
    H, A = runner.H, runner.A
    rec: list = []
    rets = [runner.run(*behaviours(), record=rec) for _ in range(n_explore)]
    arr = np.array(rec, dtype=float).reshape(-1, 6)
    data = Transitions(
        arr[:, 0].astype(np.int64),
        arr[:, 1].astype(np.int64),
        arr[:, 2].astype(np.int64),
        arr[:, 3],
        arr[:, 4].astype(np.int64),
        arr[:, 5].astype(bool),
    )
    Q = fitted_q_iteration(
        data, horizon=H, n_states=n_rows, n_actions=A, pool_steps=pool, gamma=gamma
    )
    counts = np.bincount(
        (data.step * n_rows + data.state) * A + data.action, minlength=H * n_rows * A
    ).reshape(H, n_rows, A)
    fqi_probs = greedy_policy(Q)
    fqi_actor = _Actor(fqi_probs, n_rows, A, H, "fqi_policy")
    if n_eval:
        fqi_ret = float(np.mean([runner.run(fqi_actor) for _ in range(n_eval)]))
        sim_ret = float(np.mean([runner.run(sim_actor) for _ in range(n_eval)]))
        selected = "fqi" if fqi_ret > sim_ret else "sim"
    else:
        fqi_ret = sim_ret = None
        selected = "fqi"
    fqi_policy = wrap(fqi_probs)
    info = TransferInfo(
        episodes_used=runner.episodes,
        n_explore=n_explore,
        n_eval=n_eval,
        selected=selected,
        fqi_policy=fqi_policy,
        sim_policy=sim_policy,
        fqi_return=fqi_ret,
        sim_return=sim_ret,
        explore_return=float(np.mean(rets)),
        q_values=Q,
        counts=counts,
        data=data,
    )
    return (fqi_policy if selected == "fqi" else sim_policy), info


# --------------------------------------------------------------------------- tabular sims


def _real(real_env, sim):
    if isinstance(real_env, TabularMDP):
        if real_env.n_states != sim.n_states or real_env.n_actions != sim.n_actions:
            raise ValueError(
                f"real_env has {real_env.n_states} states and {real_env.n_actions} actions but sim "
                f"has {sim.n_states} and {sim.n_actions}"
            )
        if real_env.horizon is None:
            raise ValueError("real_env: a TabularMDP real system needs a finite horizon")
        real_env = FastTabularEnv(real_env)
    check_env(real_env)
    n = env_n_actions(real_env)
    if n is not None and n != sim.n_actions:
        raise ValueError(f"real_env has {n} actions but sim has {sim.n_actions}")
    return real_env


def direct_transfer(sim):
    """Direct sim2real transfer: the simulator's optimal policy pi^{sim,*} (H, S, A), deterministic
    (backward induction in ``sim``; ties to the lowest action index)."""
    check_finite_mdp(sim, "sim")
    return pm.optimal_policy(sim)[1]


def sim2real_transfer(
    sim, real_env, *, n_episodes, rng=None, exploration=None, pool_steps=False, gamma=1.0
):
    """Exploration-policy transfer (Algorithm 1 of the paper) with a tabular simulator.

    1. exploration policies from ``sim`` (:func:`exploration_policies`, or ``exploration``: one
       list of (H, S, A) policies per switch step, e.g. from :func:`e_optimal_design`);
    2.-3. ``n_explore = n_episodes - 2 * (n_episodes // 4)`` real episodes, each with a uniformly
       drawn switch step h and a uniformly drawn policy of ``exploration[h]``, played up to step
       h - 1, then uniformly random actions (the random tail);
    4. fitted Q-iteration on those transitions (:func:`fitted_q_iteration`), greedy policy;
    5. pi^{sim,*} (:func:`direct_transfer`);
    6. ``n_episodes // 4`` real episodes of each candidate; the one with the higher mean return is
       returned (ties to pi^{sim,*}; with fewer than 4 episodes there is no evaluation and the
       FQI policy is returned).

    ``real_env`` has the gymnasium API with integer observations in [0, S) (a
    :class:`TabularMDP` is wrapped in a :class:`TabularEnv`); episodes stop after ``sim.horizon``
    steps or when the env terminates or truncates. Returns ``(policy (H, S, A), info)`` with
    ``info`` a :class:`TransferInfo` (``info.episodes_used <= n_episodes``). ``pool_steps`` and
    ``gamma`` are passed to :func:`fitted_q_iteration` (defaults: the paper's per-step,
    undiscounted FQI; ``pool_steps=True`` suits real systems whose dynamics do not depend on h)."""
    check_finite_mdp(sim, "sim")
    real_env = _real(real_env, sim)
    n = check_int(n_episodes, "n_episodes", minimum=1)
    g = check_rng(rng)
    pool = check_bool(pool_steps, "pool_steps")
    gam = check_float(gamma, "gamma", minimum=0.0, maximum=1.0)
    H, S, A = sim.horizon, sim.n_states, sim.n_actions
    explore = (
        exploration_policies(sim) if exploration is None else check_exploration(exploration, sim)
    )
    actors = [[_Actor(p, S, A, H, "exploration") for p in step] for step in explore]
    sim_policy = direct_transfer(sim)
    runner = _Runner(real_env, H, A, StateEncoder(S), g)

    def behaviour():
        h = int(g.integers(H))
        return actors[h][int(g.integers(len(actors[h])))], h

    return _transfer(
        runner,
        behaviour,
        _Actor(sim_policy, S, A, H, "sim_policy"),
        sim_policy,
        n_episodes=n,
        n_rows=S,
        wrap=lambda p: p,
        pool=pool,
        gamma=gam,
    )


def zeta_greedy_transfer(sim, real_env, *, n_episodes, zeta, rng=None, pool_steps=False, gamma=1.0):
    """The zeta-greedy baseline: explore with pi^{sim,*} that plays a uniformly random action with
    probability ``zeta`` at every step, then the same FQI and selection as
    :func:`sim2real_transfer` (same budget split), so only the exploration differs.
    ``zeta`` in [0, 1]. Returns ``(policy (H, S, A), info)``."""
    check_finite_mdp(sim, "sim")
    real_env = _real(real_env, sim)
    n = check_int(n_episodes, "n_episodes", minimum=1)
    z = check_probability(zeta, "zeta")
    g = check_rng(rng)
    pool = check_bool(pool_steps, "pool_steps")
    gam = check_float(gamma, "gamma", minimum=0.0, maximum=1.0)
    H, S, A = sim.horizon, sim.n_states, sim.n_actions
    sim_policy = direct_transfer(sim)
    explore = _Actor((1.0 - z) * sim_policy + z / A, S, A, H, "exploration")
    runner = _Runner(real_env, H, A, StateEncoder(S), g)
    return _transfer(
        runner,
        lambda: (explore, None),
        _Actor(sim_policy, S, A, H, "sim_policy"),
        sim_policy,
        n_episodes=n,
        n_rows=S,
        wrap=lambda p: p,
        pool=pool,
        gamma=gam,
    )


# --------------------------------------------------------------------------- any sim


def exploration_transfer(
    real_env,
    explorers,
    sim_policy,
    *,
    n_episodes,
    horizon,
    encoder,
    n_actions=None,
    pool_steps=False,
    gamma=1.0,
    rng=None,
):
    """Algorithm 1 with exploration policies and pi^{sim,*} obtained elsewhere (any simulator).

    ``explorers``: policies learned in simulation, each an object with ``act(obs, h, rng)`` or
    action probabilities over the encoder's rows; a flat list is used at every switch step, a
    list of ``horizon`` lists gives one set per step. Each exploration episode draws a switch
    step h uniformly, an explorer uniformly, plays it up to step h - 1 and uniformly random
    actions from step h on. FQI runs on ``encoder(obs)`` rows (e.g. a :class:`GridEncoder`);
    ``sim_policy`` is the direct-transfer candidate. ``n_actions`` defaults to
    ``real_env.action_space.n`` (or ``real_env.n_actions``). Returns ``(policy, info)``: the FQI
    candidate is a :class:`TabularPolicy` on ``encoder``. ``pool_steps``: see
    :func:`fitted_q_iteration` (for time-homogeneous real systems)."""
    check_env(real_env)
    pool = check_bool(pool_steps, "pool_steps")
    gam = check_float(gamma, "gamma", minimum=0.0, maximum=1.0)
    H = check_int(horizon, "horizon", minimum=1)
    n = check_int(n_episodes, "n_episodes", minimum=1)
    if not callable(encoder) or not hasattr(encoder, "n_codes"):
        raise TypeError(
            f"encoder must be callable (obs -> row) with an n_codes attribute, got {describe(encoder)}"
        )
    C = check_int(encoder.n_codes, "encoder.n_codes", minimum=1)
    A = env_n_actions(real_env)
    if n_actions is not None:
        A2 = check_int(n_actions, "n_actions", minimum=1)
        if A is not None and A2 != A:
            raise ValueError(f"n_actions is {A2} but real_env has {A} actions")
        A = A2
    if A is None:
        raise ValueError("n_actions is required: real_env has neither action_space.n nor n_actions")
    g = check_rng(rng)
    if isinstance(explorers, np.ndarray) or not isinstance(explorers, list | tuple):
        raise TypeError(f"explorers must be a list of policies, got {describe(explorers)}")
    if not explorers:
        raise ValueError("explorers must hold at least one policy, got an empty list")
    per_step = all(isinstance(e, list | tuple) for e in explorers)
    if per_step:
        if len(explorers) != H:
            raise ValueError(
                f"explorers: a list of lists needs one list per step (H={H}), got {len(explorers)}"
            )
        sets = [
            [_Actor(p, C, A, H, f"explorers[{h}][{k}]") for k, p in enumerate(e)]
            for h, e in enumerate(explorers)
        ]
        for h, s in enumerate(sets):
            if not s:
                raise ValueError(f"explorers[{h}] must hold at least one policy, got an empty list")
    else:
        flat = [_Actor(p, C, A, H, f"explorers[{k}]") for k, p in enumerate(explorers)]
        sets = [flat] * H
    sim_actor = _Actor(sim_policy, C, A, H, "sim_policy")
    runner = _Runner(real_env, H, A, encoder, g)

    def behaviour():
        h = int(g.integers(H))
        return sets[h][int(g.integers(len(sets[h])))], h

    return _transfer(
        runner,
        behaviour,
        sim_actor,
        sim_policy,
        n_episodes=n,
        n_rows=C,
        wrap=lambda p: TabularPolicy(p, encoder=encoder),
        pool=pool,
        gamma=gam,
    )


class _NoRows:
    """For policies that act on observations: no table row is needed."""

    n_codes = 1

    def __call__(self, obs) -> int:
        return 0


def evaluate(env, policy, n_episodes, *, horizon, encoder=None, rng=None):
    """Returns of ``n_episodes`` episodes of ``policy`` on ``env`` (gymnasium API), (n,).

    ``policy``: an object with ``act(obs, h, rng)`` or action probabilities over ``encoder`` rows
    (default: integer observations are rows)."""
    check_env(env, "env")
    H = check_int(horizon, "horizon", minimum=1)
    n = check_int(n_episodes, "n_episodes", minimum=1)
    A = env_n_actions(env, "env")
    g = check_rng(rng)
    table = isinstance(policy, np.ndarray | list | tuple)
    if encoder is None:
        if table:
            arr = check_array(policy, "policy", ndim=(2, 3))
            encoder = StateEncoder(arr.shape[-2])
        else:
            encoder = _NoRows()
    elif not callable(encoder) or not hasattr(encoder, "n_codes"):
        raise TypeError(
            f"encoder must be callable with an n_codes attribute, got {describe(encoder)}"
        )
    if A is None:
        if not table:
            raise ValueError("env must expose action_space.n or n_actions")
        A = np.asarray(policy).shape[-1]
    actor = _Actor(policy, encoder.n_codes, A, H, "policy")
    runner = _Runner(env, H, A, encoder, g)
    return np.array([runner.run(actor) for _ in range(n)])
