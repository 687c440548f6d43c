"""Small testbeds (the risky choice, Four Rooms) and Monte-Carlo returns."""

from __future__ import annotations

import math

import numpy as np

from ._checks import (
    check_array,
    check_bool,
    check_float,
    check_int,
    check_probability,
    check_rng,
)
from ._validation import check_policy, mdp_arrays
from .mdp import TabularMDP

#: Four Rooms action names and moves (dx, dy); y grows downwards (row index).
ACTIONS = (("left", (-1, 0)), ("right", (1, 0)), ("down", (0, 1)), ("up", (0, -1)))

# 13 x 13 Four Rooms of the paper's reference code: '#' wall, '.' free, 'G' goal, 'R' risky cell
FOUR_ROOMS_LAYOUT = (
    "#############",
    "#.....#....G#",
    "#.....#.....#",
    "#...........#",
    "#.....#.....#",
    "#.....#.....#",
    "##R####.....#",
    "#.....###.###",
    "#.....#.....#",
    "#.....#.....#",
    "#...........#",
    "#.....#.....#",
    "#############",
)


def risky_choice(*, safe_reward=-0.1, spread=1.0, gamma=0.9) -> TabularMDP:
    """One decision between a sure loss and a fair gamble, then absorption.

    States: 0 = the decision, 1 and 2 = absorbing (reward 0). Actions: 0 = "safe" (0 -> 1,
    reward ``safe_reward``), 1 = "risky" (0 -> 1 paying +spread or 0 -> 2 paying -spread, each
    with probability 1/2). init = state 0. With the defaults, mean-variance (lam = 0.5) values
    are -0.1 (safe) and -0.5 (risky); the mean-reward model (:func:`mean_reward_model`) has the
    same values for every policy but rates "risky" at 0."""
    safe = check_float(safe_reward, "safe_reward")
    spread = check_float(spread, "spread")
    P = np.zeros((3, 2, 3))
    R = np.zeros((3, 2, 3))
    P[0, 0, 1] = 1.0
    R[0, 0, 1] = safe
    P[0, 1, 1] = P[0, 1, 2] = 0.5
    R[0, 1, 1], R[0, 1, 2] = spread, -spread
    P[1, :, 1] = 1.0
    P[2, :, 2] = 1.0
    return TabularMDP(P, R, gamma=gamma, init=[1.0, 0.0, 0.0])


def risky_choice_policies(q) -> np.ndarray:
    """The policies of :func:`risky_choice` that take the gamble with probability ``q``.

    ``q`` (N,) in [0, 1]: one policy per entry, (N, 3, 2): at the decision state 0 "safe" with
    probability 1 - q and "risky" with probability q; action 0 in the absorbing states (their
    action does not matter). The family over which the mean-reward model is PVE but its
    second-moment residual at state 0 is -q (so the 2-moment loss is mean(q^2))."""
    qs = check_array(q, "q", ndim=1)
    if np.any((qs < 0.0) | (qs > 1.0)):
        raise ValueError(
            f"q must hold probabilities in [0, 1], got values from {qs.min()} to {qs.max()}"
        )
    pis = np.zeros((qs.size, 3, 2))
    pis[:, :, 0] = 1.0
    pis[:, 0] = np.stack([1 - qs, qs], axis=1)
    return pis


class GridMDP(TabularMDP):
    """A gridworld :class:`TabularMDP` with its geometry: ``cells`` (S, 2) the (x, y) of each
    state, ``layout`` (the rows as strings), ``goal_state``, ``risky_state`` and
    :meth:`state_at`."""

    def __init__(self, P, R, *, gamma, init, cells, layout, goal_state, risky_state):
        super().__init__(P, R, gamma=gamma, init=init)
        self.cells = np.asarray(cells, dtype=np.int64)
        self.cells.setflags(write=False)
        self.layout = tuple(layout)
        self.goal_state, self.risky_state = goal_state, risky_state
        self._index = {(int(x), int(y)): s for s, (x, y) in enumerate(self.cells)}

    def state_at(self, x, y) -> int:
        """The state index of the free cell at column ``x``, row ``y``."""
        x, y = check_int(x, "x"), check_int(y, "y")
        if (x, y) not in self._index:
            raise ValueError(f"(x, y) = ({x}, {y}) is not a free cell of the grid")
        return self._index[(x, y)]


def four_rooms(
    *,
    p_intended=0.8,
    risky_reward=-1.0,
    goal_reward=1.0,
    goal_absorbing=True,
    gamma=0.99,
    init=None,
) -> GridMDP:
    """Four Rooms of the paper's tabular experiments (13 x 13, 104 free cells, 4 actions), the
    risky cell in the doorway between the two left rooms; see :func:`gridworld`."""
    return gridworld(
        FOUR_ROOMS_LAYOUT,
        p_intended=p_intended,
        risky_reward=risky_reward,
        goal_reward=goal_reward,
        goal_absorbing=goal_absorbing,
        gamma=gamma,
        init=init,
    )


def gridworld(
    layout,
    *,
    p_intended=0.8,
    risky_reward=-1.0,
    goal_reward=1.0,
    goal_absorbing=True,
    gamma=0.99,
    init=None,
) -> GridMDP:
    """A gridworld from rows of text: ``#`` wall, ``.`` free, ``G`` goal (exactly one), ``R``
    risky cell (any number); actions left, right, down, up (:data:`ACTIONS`).

    The intended move happens with probability ``p_intended``, else one of the other three
    (uniformly); a move into a wall (or off the grid) stays put. Entering the goal pays
    ``goal_reward``; with ``goal_absorbing`` the goal then loops with reward 0 (the episode is
    over), otherwise it is an ordinary cell (the reference code's dynamics). Leaving a risky
    cell pays ``risky_reward`` on a slipped move and -risky_reward (1 - p)/p on the intended
    outcome (p its probability: 0.25 for a move along a corridor at p_intended = 0.8), so every
    action there has mean reward 0 and the cell only adds variance. (The reference code
    charges ``risky_reward`` for sure when the intended move bumps into a wall; here such a
    move's intended outcome is staying put.) ``init`` defaults to uniform over the non-goal
    cells. ``risky_state`` is the first risky cell (``None`` if there is none)."""
    if isinstance(layout, str) or not all(isinstance(row, str) for row in layout):
        raise TypeError("layout must be a sequence of strings (one per row)")
    layout = tuple(layout)
    if not layout or any(set(row) - set("#.GR") for row in layout):
        raise ValueError("layout rows may hold only '#', '.', 'G' and 'R', and not be empty")
    p = check_probability(p_intended, "p_intended", allow_zero=False)
    rr = check_float(risky_reward, "risky_reward")
    gr = check_float(goal_reward, "goal_reward")
    absorbing = check_bool(goal_absorbing, "goal_absorbing")
    cells = [(x, y) for y, row in enumerate(layout) for x, c in enumerate(row) if c != "#"]
    goals = [c for c in cells if layout[c[1]][c[0]] == "G"]
    if len(goals) != 1:
        raise ValueError(f"layout must have exactly one goal 'G', got {len(goals)}")
    index = {c: s for s, c in enumerate(cells)}
    S, A = len(cells), len(ACTIONS)
    goal = index[goals[0]]
    risky_cells = [index[c] for c in cells if layout[c[1]][c[0]] == "R"]
    P = np.zeros((S, A, S))
    R = np.zeros((S, A, S))

    def moved(c, d):
        return index.get((c[0] + d[0], c[1] + d[1]), index[c])

    for s, c in enumerate(cells):
        if absorbing and s == goal:
            P[s, :, s] = 1.0
            continue
        for a, (_, d) in enumerate(ACTIONS):
            for b, (_, d2) in enumerate(ACTIONS):
                P[s, a, moved(c, d2)] += p if b == a else (1.0 - p) / (A - 1)
            R[s, a, goal] += gr
            if s in risky_cells:
                intended = moved(c, d)
                p_eff = P[s, a, intended]
                for t in np.flatnonzero(P[s, a]):
                    R[s, a, t] += -rr * (1.0 - p_eff) / p_eff if t == intended else rr
    if init is None:
        init = np.ones(S)
        init[goal] = 0.0
        init /= init.sum() if init.sum() > 0 else 1.0
    return GridMDP(
        P,
        R,
        gamma=gamma,
        init=init,
        cells=cells,
        layout=layout,
        goal_state=goal,
        risky_state=risky_cells[0] if risky_cells else None,
    )


def mc_returns(mdp, pi, n_episodes, *, start=None, length=None, rng=None) -> np.ndarray:
    """Monte-Carlo discounted returns sum_{t < length} gamma^t R_t of ``n_episodes`` episodes of
    ``pi``: an (n_episodes,) array. Episodes start in ``start`` (a state index) or are drawn
    from ``mdp.init``; ``length`` defaults to the number of steps after which gamma^t < 1e-12.
    Episodes stuck in a zero-reward absorbing state stop early (their return is final)."""
    P, R, gamma = mdp_arrays(mdp)
    pi = check_policy(pi, mdp, "pi")
    n = check_int(n_episodes, "n_episodes", minimum=1)
    S = mdp.n_states
    if length is None:
        length = 1 if gamma == 0.0 else max(1, math.ceil(math.log(1e-12) / math.log(gamma)))
    L = check_int(length, "length", minimum=1)
    g = check_rng(rng)
    # joint law of (a, s') per state, on its support, as one sorted array of s + cumulative
    joint = (pi[:, :, None] * P).reshape(S, -1)
    rew = R.reshape(S, -1)
    support = [np.flatnonzero(row > 0) for row in joint]
    K = max(len(sp) for sp in support)
    cum = np.ones((S, K))
    nxt = np.zeros((S, K), dtype=np.int64)
    rw = np.zeros((S, K))
    for s, sp in enumerate(support):
        c = np.cumsum(joint[s, sp])
        c[-1] = 1.0
        cum[s, : len(sp)] = c
        nxt[s, : len(sp)] = sp % S
        rw[s, : len(sp)] = rew[s, sp]
        nxt[s, len(sp) :] = nxt[s, len(sp) - 1]
        rw[s, len(sp) :] = rw[s, len(sp) - 1]
    flat = (np.arange(S)[:, None] + cum).ravel()
    stuck = np.array(
        [bool(np.all(nxt[s] == s) and np.all(rw[s] == 0.0)) for s in range(S)], dtype=bool
    )
    if start is None:
        s = np.searchsorted(np.cumsum(mdp.init), g.random(n) * mdp.init.sum(), side="right")
        s = np.minimum(s, S - 1)
    else:
        s = np.full(n, check_int(start, "start", minimum=0, maximum=S - 1), dtype=np.int64)
    G = np.zeros(n)
    live = np.arange(n)
    disc = 1.0
    for _ in range(L):
        live = live[~stuck[s[live]]]
        if live.size == 0:
            break
        cur = s[live]
        k = np.searchsorted(flat, cur + g.random(live.size), side="right")
        k = np.minimum(k, (cur + 1) * K - 1)
        G[live] += disc * rw.ravel()[k]
        s[live] = nxt.ravel()[k]
        disc *= gamma
    return G
