"""Agent states: model-free, recursively updated summaries of the history.

An agent state is any object with ``n_states`` (the size Z of its range, codes 0 .. Z-1),
``init(y) -> z_0`` and ``update(z, y, a) -> z_{t+1}`` where ``y`` is the new observation
y_{t+1} and ``a`` the action a_t just taken.
"""

from __future__ import annotations

import numpy as np

from ._checks import check_array, check_int
from ._validation import check_agent_state, check_code


class LastObservation:
    """z_t = y_t (the current observation); ``n_states = n_obs``."""

    def __init__(self, n_obs):
        self.n_obs = check_int(n_obs, "n_obs", minimum=1)

    @property
    def n_states(self) -> int:
        return self.n_obs

    def init(self, y) -> int:
        return check_code(y, "y", self.n_obs)

    def update(self, z, y, a) -> int:
        check_code(z, "z", self.n_obs)
        return check_code(y, "y", self.n_obs)

    def __repr__(self) -> str:
        return f"LastObservation(n_obs={self.n_obs})"


class FrameStack:
    """The last ``k`` observations and, when ``n_actions`` is given, the k-1 actions between
    them (a frame stack with action history), padded at the start of the trajectory.

    Codes are mixed-radix: the k-1 older observation slots take Y+1 values (Y is the pad), the
    newest observation Y values, each action slot A+1 values (A is the pad); so
    ``n_states = (Y+1)^(k-1) * Y * (A+1)^(k-1)`` (or ``(Y+1)^(k-1) * Y`` without actions).
    ``FrameStack(1, n_obs)`` is :class:`LastObservation`. ``decode(z)`` gives
    ``(observations, actions)`` oldest first, ``None`` for padding.
    """

    def __init__(self, k, n_obs, n_actions=None):
        self.k = check_int(k, "k", minimum=1)
        self.n_obs = check_int(n_obs, "n_obs", minimum=1)
        self.n_actions = None if n_actions is None else check_int(n_actions, "n_actions", minimum=1)
        # slots, oldest first: o_1, a_1, o_2, a_2, ..., a_{k-1}, o_k
        radices = []
        for _ in range(self.k - 1):
            radices.append(self.n_obs + 1)
            if self.n_actions is not None:
                radices.append(self.n_actions + 1)
        radices.append(self.n_obs)
        self._radices = tuple(radices)
        self._n = int(np.prod(radices, dtype=object))

    @property
    def n_states(self) -> int:
        return self._n

    def _encode(self, digits) -> int:
        z = 0
        for d, r in zip(digits, self._radices):
            z = z * r + d
        return z

    def _digits(self, z) -> list[int]:
        out = []
        for r in reversed(self._radices):
            z, d = divmod(z, r)
            out.append(d)
        return out[::-1]

    def init(self, y) -> int:
        y = check_code(y, "y", self.n_obs)
        pads = [r - 1 for r in self._radices[:-1]]
        return self._encode([*pads, y])

    def update(self, z, y, a) -> int:
        z = check_code(z, "z", self._n)
        y = check_code(y, "y", self.n_obs)
        if self.k == 1:
            return y
        d = self._digits(z)
        if self.n_actions is None:
            return self._encode([*d[1:], y])
        a = check_code(a, "a", self.n_actions)
        return self._encode([*d[2:], a, y])

    def decode(self, z) -> tuple[tuple, tuple]:
        """``(observations, actions)`` of code ``z``, oldest first, ``None`` for padding."""
        d = self._digits(check_code(z, "z", self._n))
        step = 1 if self.n_actions is None else 2
        obs = tuple(None if v == self.n_obs else v for v in d[::step])
        acts = (
            ()
            if self.n_actions is None
            else tuple(None if v == self.n_actions else v for v in d[1::2])
        )
        return obs, acts

    def __repr__(self) -> str:
        return f"FrameStack(k={self.k}, n_obs={self.n_obs}, n_actions={self.n_actions})"


class FiniteAutomaton:
    """An agent state given by tables: ``initial[y] = z_0`` (Y,) and
    ``transitions[z, y, a] = z'`` (Z, Y, A), both ints in [0, Z)."""

    def __init__(self, initial, transitions):
        T = check_array(transitions, "transitions", ndim=3, dtype="int")
        Z, Y, A = T.shape
        if T.min() < 0 or T.max() >= Z:
            raise ValueError(
                f"transitions must hold agent-state codes in [0, {Z}) (Z = transitions.shape[0]), "
                f"got values in [{T.min()}, {T.max()}]"
            )
        init = check_array(initial, "initial", ndim=1, dtype="int")
        if init.shape[0] != Y:
            raise ValueError(
                f"initial must have length {Y} (one entry per observation, as transitions), got "
                f"{init.shape[0]}"
            )
        if init.min() < 0 or init.max() >= Z:
            raise ValueError(
                f"initial must hold agent-state codes in [0, {Z}), got values in "
                f"[{init.min()}, {init.max()}]"
            )
        self.initial = init.astype(np.int64)
        self.transitions = T.astype(np.int64)
        self.initial.setflags(write=False)
        self.transitions.setflags(write=False)
        self.n_obs, self.n_actions = Y, A

    @property
    def n_states(self) -> int:
        return int(self.transitions.shape[0])

    def init(self, y) -> int:
        return int(self.initial[check_code(y, "y", self.n_obs)])

    def update(self, z, y, a) -> int:
        z = check_code(z, "z", self.n_states)
        y = check_code(y, "y", self.n_obs)
        a = check_code(a, "a", self.n_actions)
        return int(self.transitions[z, y, a])

    @classmethod
    def from_agent_state(cls, agent_state, n_obs, n_actions) -> FiniteAutomaton:
        """Tabulate any agent state over observations 0..n_obs-1 and actions 0..n_actions-1."""
        init, table = tabulate(agent_state, n_obs, n_actions)
        return cls(init, table)

    def __repr__(self) -> str:
        return f"FiniteAutomaton(n_states={self.n_states}, n_obs={self.n_obs}, n_actions={self.n_actions})"


def tabulate(agent_state, n_obs, n_actions) -> tuple[np.ndarray, np.ndarray]:
    """``(initial (Y,), transitions (Z, Y, A))`` of an agent state, by calling it on every
    (z, y, a). Codes outside [0, Z) raise ValueError naming agent_state."""
    Z = check_agent_state(agent_state)
    Y = check_int(n_obs, "n_obs", minimum=1)
    A = check_int(n_actions, "n_actions", minimum=1)
    if isinstance(agent_state, FiniteAutomaton):
        if (agent_state.n_obs, agent_state.n_actions) != (Y, A):
            raise ValueError(
                f"agent_state is a FiniteAutomaton over {agent_state.n_obs} observations and "
                f"{agent_state.n_actions} actions, but the POMDP has {Y} and {A}"
            )
        return agent_state.initial, agent_state.transitions
    if isinstance(agent_state, LastObservation):
        if agent_state.n_obs != Y:
            raise ValueError(
                f"agent_state is LastObservation({agent_state.n_obs}) but the POMDP has {Y} "
                "observations"
            )
        init = np.arange(Y)
        return init, np.broadcast_to(init[None, :, None], (Y, Y, A)).copy()
    if Z * Y * A > 5_000_000:
        raise ValueError(f"agent_state has {Z} states: tabulating {Z}x{Y}x{A} updates is too large")
    init = np.array([_code(agent_state.init(y), Z) for y in range(Y)], dtype=np.int64)
    table = np.empty((Z, Y, A), dtype=np.int64)
    for z in range(Z):
        for y in range(Y):
            for a in range(A):
                table[z, y, a] = _code(agent_state.update(z, y, a), Z)
    return init, table


def _code(z, Z: int) -> int:
    try:
        return check_int(z, "agent_state", minimum=0, maximum=Z - 1)
    except (TypeError, ValueError) as e:
        raise type(e)(
            f"agent_state returned {z!r}, not an agent-state code in [0, {Z}) "
            f"(agent_state.n_states = {Z}): {e}"
        ) from None
