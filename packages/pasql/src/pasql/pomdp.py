"""The tabular POMDP (a gymnasium-style environment) and the example instances.

Conventions: ``P[s, a, s']`` (S, A, S); ``O[s, y]`` (S, Y) is the law of the observation emitted
in state s (y_0 ~ O(s_0), y_{t+1} ~ O(s_{t+1})); rewards R (S, A) or (S, A, S) (per transition);
``init`` (S,); discount ``gamma`` in [0, 1).
"""

from __future__ import annotations

import bisect

import numpy as np

from papershelf_mdp import TabularMDP, check_stochastic

from ._checks import check_array, check_int, check_rng
from ._validation import check_code, check_gamma


def _cdf(p: np.ndarray) -> np.ndarray:
    """Cumulative probabilities over the last axis for inverse-CDF draws ``(cdf <= u).sum(-1)``;
    from the last positive entry on the value is exactly 1, so rounding never draws an outcome
    of probability 0."""
    c = np.cumsum(p, axis=-1)
    k = p.shape[-1]
    last = (k - 1) - np.argmax(p[..., ::-1] > 0, axis=-1)
    c[np.arange(k) >= last[..., None]] = 1.0
    return c


def _alias(p: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Walker alias tables of the rows of p (rows, K): draw j = floor(u1 K), then j if
    u2 < prob[row, j] else alias[row, j]. Outcomes of probability 0 are never drawn."""
    rows, K = p.shape
    prob = np.zeros((rows, K))
    alias = np.zeros((rows, K), dtype=np.int64)
    for i in range(rows):
        q = p[i] * K
        small = [j for j in range(K) if q[j] < 1.0]
        large = [j for j in range(K) if q[j] >= 1.0]
        while small and large:
            s_, l_ = small.pop(), large.pop()
            prob[i, s_] = q[s_]
            alias[i, s_] = l_
            q[l_] = (q[l_] + q[s_]) - 1.0
            (small if q[l_] < 1.0 else large).append(l_)
        top = int(np.argmax(p[i]))
        for j in large + small:  # leftovers: 1 up to rounding
            if p[i, j] > 0:
                prob[i, j] = 1.0
            else:  # a rounding leftover of probability 0: always redirect
                prob[i, j] = 0.0
                alias[i, j] = top
    return prob, alias


class TabularPOMDP:
    """A finite POMDP, usable as an environment with the gymnasium API.

    Parameters
    ----------
    P
        Transitions ``P[s, a, s']`` (S, A, S); each row sums to 1.
    O
        Observation law ``O[s, y]`` (S, Y): the observation emitted in state s.
    R
        Rewards (S, A) or (S, A, S) (reward of each transition).
    init
        Initial state law (S,); ``None`` means uniform.
    gamma
        Discount in [0, 1).

    As an environment: ``reset(seed=None) -> (y, {"state": s})`` and
    ``step(a) -> (y, reward, False, False, {"state": s})`` (a continuing task: it never
    terminates). Attributes ``P, O, R, init, gamma, n_states, n_actions, n_obs, reward_kind``
    and ``mdp`` (the underlying ``papershelf_mdp.TabularMDP``).
    """

    def __init__(self, P, O, R, init, *, gamma):
        gamma = check_gamma(gamma)
        mdp = TabularMDP(P, R, init, gamma=gamma)
        S = mdp.n_states
        O = check_array(O, "O", ndim=2)
        if O.shape[0] != S:
            raise ValueError(f"O must have shape ({S}, Y) (one row per state), got {O.shape}")
        check_stochastic(O, "O")
        O.setflags(write=False)
        self.mdp = mdp
        self.P, self.R, self.init, self.O = mdp.P, mdp.R, mdp.init, O
        self.gamma = gamma
        self.n_states, self.n_actions, self.n_obs = S, mdp.n_actions, O.shape[1]
        self.reward_kind = mdp.reward_kind
        self._cdf_init = _cdf(self.init).tolist()
        self._cdf_P = _cdf(self.P).tolist()
        self._cdf_O = _cdf(self.O).tolist()
        self._R = self.R.tolist()
        self._rng = np.random.default_rng()
        self._state: int | None = None

    def expected_reward(self) -> np.ndarray:
        """r(s, a) = E[R | s, a], (S, A)."""
        return self.mdp.expected_reward()

    # ------------------------------------------------------------------ environment
    def reset(self, *, seed=None, options=None):
        """Start an episode: ``(y_0, {"state": s_0})``. ``seed`` (int or Generator) reseeds."""
        if seed is not None:
            self._rng = check_rng(seed, "seed")
        u0, u1 = self._rng.random(2).tolist()
        s = bisect.bisect_right(self._cdf_init, u0)
        self._state = s
        y = bisect.bisect_right(self._cdf_O[s], u1)
        return y, {"state": s}

    def step(self, action):
        """One transition: ``(y', reward, terminated=False, truncated=False, {"state": s'})``."""
        if self._state is None:
            raise RuntimeError("call reset() before step()")
        a = check_code(action, "action", self.n_actions)
        s = self._state
        u0, u1 = self._rng.random(2).tolist()
        s2 = bisect.bisect_right(self._cdf_P[s][a], u0)
        r = self._R[s][a] if self.reward_kind == "sa" else self._R[s][a][s2]
        y = bisect.bisect_right(self._cdf_O[s2], u1)
        self._state = s2
        return y, r, False, False, {"state": s2}

    def __repr__(self) -> str:
        return (
            f"TabularPOMDP(n_states={self.n_states}, n_actions={self.n_actions}, "
            f"n_obs={self.n_obs}, gamma={self.gamma})"
        )


def check_pomdp(pomdp, name: str = "pomdp") -> TabularPOMDP:
    if not isinstance(pomdp, TabularPOMDP):
        from ._checks import describe

        raise TypeError(f"{name} must be a TabularPOMDP, got {describe(pomdp)}")
    return pomdp


# ---------------------------------------------------------------------- examples
def phase_pomdp(*, gamma=0.9) -> TabularPOMDP:
    """The paper's phase example: S = {0, 1}, s_0 = 0, s_{t+1} = 1 - s_t whatever the action,
    one observation, reward 1{a_t = s_t}. With z = y: J*_1 = 1/(1 - gamma^2) (always play 0),
    J*_2 = 1/(1 - gamma) (play the phase)."""
    P = np.zeros((2, 2, 2))
    P[0, :, 1] = 1.0
    P[1, :, 0] = 1.0
    O = np.ones((2, 1))
    R = np.eye(2)
    return TabularPOMDP(P, O, R, [1.0, 0.0], gamma=gamma)


def random_pomdp(
    n_states, n_actions, n_obs, *, gamma=0.9, concentration=1.0, rng=None
) -> TabularPOMDP:
    """A random POMDP: Dirichlet(concentration) rows of P and O, Uniform(0, 1) rewards (S, A),
    a Dirichlet(1) initial law."""
    from ._checks import check_float

    S = check_int(n_states, "n_states", minimum=1)
    A = check_int(n_actions, "n_actions", minimum=1)
    Y = check_int(n_obs, "n_obs", minimum=1)
    c = check_float(concentration, "concentration", minimum=0.0, min_inclusive=False)
    g = check_rng(rng)
    P = g.dirichlet(np.full(S, c), size=(S, A))
    O = g.dirichlet(np.full(Y, c), size=S)
    R = g.random((S, A))
    init = g.dirichlet(np.ones(S))
    return TabularPOMDP(P, O, R, init, gamma=gamma)


#: Deterministic transitions of the six-state stand-in: NEXT[a][s] = s'.
_SIX_NEXT = ((2, 5, 2, 0, 5, 3), (1, 0, 5, 1, 0, 2))
#: Rewards of the six-state stand-in: REWARD[a][s].
_SIX_REWARD = ((0.5, 0.0, 0.0, 1.0, 1.0, 0.0), (0.0, 0.0, 0.5, 0.0, 0.0, 0.0))


def six_state_standin(*, gamma=0.9) -> TabularPOMDP:
    """A STAND-IN for the paper's six-state example (its transition graph is only given as a
    figure and could not be transcribed): 6 states, 2 actions, 2 observations with the paper's
    observation map (states 0-2 emit y = 0, states 3-5 emit y = 1), deterministic transitions,
    rewards in {0, 0.5, 1}, start in state 0. Found by a seeded random search (see the README)
    so that periodic policies beat stationary ones: J*_2 - J*_1 >= 0.5."""
    P = np.zeros((6, 2, 6))
    R = np.zeros((6, 2))
    for a in range(2):
        for s in range(6):
            P[s, a, _SIX_NEXT[a][s]] = 1.0
            R[s, a] = _SIX_REWARD[a][s]
    O = np.zeros((6, 2))
    O[:3, 0] = 1.0
    O[3:, 1] = 1.0
    init = np.zeros(6)
    init[0] = 1.0
    return TabularPOMDP(P, O, R, init, gamma=gamma)
