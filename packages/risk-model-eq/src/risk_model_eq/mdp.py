"""The discounted tabular MDP with per-transition rewards, and the mean-reward (PVE) model."""

from __future__ import annotations

import numpy as np

import papershelf_mdp as pm

from ._checks import check_array, check_float
from ._validation import mdp_arrays


class TabularMDP(pm.TabularMDP):
    """A discounted finite MDP whose reward is a deterministic function of the transition.

    A thin subclass of :class:`papershelf_mdp.TabularMDP` with ``gamma`` keyword-only and
    required and rewards stored as (S, A, S).

    Parameters
    ----------
    P
        Transition probabilities ``P[s, a, s']`` (S, A, S); every ``P[s, a, :]`` sums to 1.
    R
        Reward of each transition ``R[s, a, s']`` (S, A, S). A reward of shape (S, A) (paid
        whatever s') is accepted and broadcast to (S, A, S). A random reward per (s, a) is
        expressed through distinct next states (the moment operators use E[R^j M(s')] jointly).
    gamma
        Discount in [0, 1).
    init
        Initial state distribution (S,); ``None`` means uniform.

    Attributes
    ----------
    P, R (always (S, A, S)), init, gamma, horizon (``None``), n_states, n_actions
    """

    def __init__(self, P, R, *, gamma, init=None):
        gamma = check_float(gamma, "gamma", minimum=0.0, maximum=1.0, max_inclusive=False)
        P = check_array(P, "P", ndim=3)
        S, A = P.shape[0], P.shape[1]
        if P.shape[2] != S:
            raise ValueError(f"P must have shape (S, A, S), got shape {P.shape}")
        R = check_array(R, "R", ndim=(2, 3))
        if R.ndim == 2:
            if R.shape != (S, A):
                raise ValueError(
                    f"R must have shape ({S}, {A}, {S}) (S, A, S) or ({S}, {A}) (S, A), "
                    f"got shape {R.shape}"
                )
            R = np.repeat(R[:, :, None], S, axis=2)
        elif R.shape != (S, A, S):
            raise ValueError(f"R must have shape ({S}, {A}, {S}) (S, A, S), got shape {R.shape}")
        super().__init__(P, R, init, gamma=gamma, reward_kind="sas")

    def __repr__(self) -> str:
        return (
            f"TabularMDP(n_states={self.n_states}, n_actions={self.n_actions}, gamma={self.gamma})"
        )


def mean_reward_model(mdp) -> TabularMDP:
    """The model with the same ``P`` and every reward replaced by its mean given (s, a).

    It is proper value equivalent to ``mdp`` for every policy (V^pi is unchanged) but has no
    reward variance: the paper's counterexample to risk-sensitive planning with PVE models."""
    P, R, gamma = mdp_arrays(mdp)
    r = np.einsum("sat,sat->sa", P, R)
    return TabularMDP(P, r, gamma=gamma, init=mdp.init)
