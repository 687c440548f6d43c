"""A lean gymnasium-API environment over a finite-horizon TabularMDP (the real system when the
caller hands ``sim2real_transfer`` a TabularMDP). Same API and episode semantics as
``papershelf_mdp.TabularEnv`` (terminated after H steps), with the rows' cumulative sums
precomputed as Python lists so that one step costs a bisection, not a numpy cumsum."""

from __future__ import annotations

from bisect import bisect_right

import numpy as np

from ._checks import check_int, check_rng

#: Above this many transition entries, rows stay numpy arrays (searched with np.searchsorted)
#: instead of Python lists (which cost ~30 bytes per entry).
LIST_LIMIT = 2_000_000


class FastTabularEnv:
    def __init__(self, mdp):
        self.mdp = mdp
        self.horizon = mdp.horizon
        self.n_states, self.n_actions = mdp.n_states, mdp.n_actions
        P = np.asarray(mdp.P)  # (S, A, S) or (H, S, A, S): not repeated over steps
        self._tv = P.ndim == 4
        cum = np.cumsum(P, axis=-1)
        cum[..., -1] = np.inf  # rounding never falls off the end
        self._lists = cum.size <= LIST_LIMIT
        self._cum = cum.tolist() if self._lists else cum
        self._init = np.cumsum(mdp.init).tolist()
        self._init[-1] = float("inf")
        self._kind = mdp.reward_kind
        R = np.asarray(mdp.R, dtype=float)
        self._R = R.tolist() if R.size <= LIST_LIMIT else R
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
        row = self._cum[h][s][action] if self._tv else self._cum[s][action]
        u = self._rng.random()
        s2 = bisect_right(row, u) if self._lists else int(np.searchsorted(row, u, side="right"))
        R, k = self._R, self._kind
        if k == "sa":
            r = R[s][action]
        elif k == "sas":
            r = R[s][action][s2]
        elif k == "hsa":
            r = R[h][s][action]
        else:
            r = R[h][s][action][s2]
        self._h += 1
        terminated = self._h >= self.horizon
        self._state = None if terminated else s2
        return s2, float(r), terminated, False, {"h": self._h}
