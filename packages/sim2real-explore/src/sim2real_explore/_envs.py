"""A lean gymnasium-API environment over a finite-horizon TabularMDP (the real system when the
caller hands ``sim2real_transfer`` a TabularMDP). Same API and episode semantics as
``papershelf_mdp.TabularEnv`` (terminated after H steps), with the rows' cumulative sums
precomputed as Python lists so that one step costs a bisection, not a numpy cumsum."""

from __future__ import annotations

from bisect import bisect_right

import numpy as np

from ._checks import check_int, check_rng


class FastTabularEnv:
    def __init__(self, mdp):
        self.mdp = mdp
        self.horizon = mdp.horizon
        self.n_states, self.n_actions = mdp.n_states, mdp.n_actions
        P = mdp.transitions()
        cum = np.cumsum(P, axis=-1)
        cum[..., -1] = np.inf  # rounding never falls off the end
        self._cum = cum.tolist()  # (H, S, A, S)
        self._init = np.cumsum(mdp.init).tolist()
        self._init[-1] = float("inf")
        kind = mdp.reward_kind
        R = np.asarray(mdp.R)
        H = self.horizon
        if kind == "sa":
            R = np.broadcast_to(R[None, :, :, None], (H, *R.shape, self.n_states))
        elif kind == "sas":
            R = np.broadcast_to(R[None], (H, *R.shape))
        elif kind == "hsa":
            R = np.broadcast_to(R[..., None], (*R.shape, self.n_states))
        self._R = np.asarray(R, dtype=float).tolist()  # (H, S, A, S)
        self._rng = np.random.default_rng()
        self._state = None
        self._h = 0

    def reset(self, *, seed=None, options=None):
        if seed is not None:
            self._rng = check_rng(seed, "seed")
        self._h = 0
        self._state = bisect_right(self._init, self._rng.random())
        return self._state, {"h": 0}

    def step(self, action):
        if self._state is None:
            raise RuntimeError("call reset() before step()")
        if type(action) is not int:
            action = check_int(action, "action")
        if not 0 <= action < self.n_actions:
            raise ValueError(f"action must be in [0, {self.n_actions}), got {action}")
        h, s = self._h, self._state
        s2 = bisect_right(self._cum[h][s][action], self._rng.random())
        r = self._R[h][s][action][s2]
        self._h += 1
        terminated = self._h >= self.horizon
        self._state = None if terminated else s2
        return s2, r, terminated, False, {"h": self._h}
