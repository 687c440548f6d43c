"""Exact tabular tools: the MDP, Q-values, occupancies and the paper's performance-gap identity.

Built on :mod:`papershelf_mdp` (the shared tabular MDP of the papershelf RL packages):
``q_values``, ``occupancy`` and ``policy_value`` are its exact evaluators (one linear solve each),
re-exported here.

The paper's Theorem (Lei, Zhang, Tao 2024): for discounted MDPs and any two policies,

    J(pi*) - J(pi) = (1 - gamma)^-1 E_{s ~ d_pi} [ sum_a q_{pi*}(s, a) (pi*(a|s) - pi(a|s)) ],

with d_pi the normalised discounted state occupancy of ``pi`` and J the expected discounted return
from ``init``. Its corollary bounds the gap by the action-value weighted decision difference,
|J(pi*) - J(pi)| <= (1 - gamma)^-1 E_{d_pi}[sum_a q_{pi*}(s, a) |pi*(a|s) - pi(a|s)|] (for
non-negative rewards), against the earlier 2 R_max (1 - gamma)^-2 E_{s ~ d_pi*} TV bound.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

import papershelf_mdp as pm
from papershelf_mdp import optimal_policy, optimal_q

from ._checks import check_float

__all__ = [
    "GapBounds",
    "TabularMDP",
    "gap_bounds",
    "occupancy",
    "optimal_policy",
    "optimal_q",
    "performance_gap_identity",
    "policy_return",
    "policy_value",
    "q_values",
]


class TabularMDP(pm.TabularMDP):
    """A discounted finite MDP: ``P[s, a, s']`` (S, A, S), rewards ``R`` (S, A) or (S, A, S),
    a discount ``gamma`` in [0, 1) and an initial state distribution ``init`` (S,).

    A thin subclass of :class:`papershelf_mdp.TabularMDP` (so every ``papershelf_mdp`` function
    accepts it) with ``gamma`` and ``init`` keyword-only and required. Attributes ``P``, ``R``,
    ``init``, ``gamma``, ``n_states``, ``n_actions`` (read-only arrays).

    >>> import numpy as np
    >>> P = np.zeros((2, 2, 2)); P[:, 0, 0] = 1.0; P[:, 1, 1] = 1.0
    >>> mdp = TabularMDP(P, np.array([[0.0, 0.0], [1.0, 1.0]]), gamma=0.5, init=[1.0, 0.0])
    >>> policy_value(mdp, np.array([[0.0, 1.0], [0.0, 1.0]])).round(6).tolist()
    [1.0, 2.0]
    """

    def __init__(self, P, R, *, gamma, init, reward_kind=None):
        if gamma is None:
            raise TypeError("gamma must be a real number in [0, 1), got None")
        if init is None:
            raise TypeError(
                "init must be an array of numbers (a distribution over states), got None"
            )
        super().__init__(P, R, init, gamma=gamma, reward_kind=reward_kind)
        if self.reward_kind not in ("sa", "sas"):  # pragma: no cover - guarded by gamma
            raise ValueError(f"R must have shape (S, A) or (S, A, S), got {self.R.shape}")

    def __repr__(self) -> str:
        return (
            f"TabularMDP(n_states={self.n_states}, n_actions={self.n_actions}, gamma={self.gamma})"
        )


def _check_discounted(mdp, name: str = "mdp") -> pm.TabularMDP:
    if not isinstance(mdp, pm.TabularMDP):
        raise TypeError(f"{name} must be a TabularMDP, got {type(mdp).__name__}")
    if mdp.gamma is None:
        raise ValueError(f"{name} must be discounted (gamma in [0, 1)), got horizon={mdp.horizon}")
    return mdp


def q_values(mdp, pi) -> np.ndarray:
    """Q of ``pi`` (S, A): r + gamma P V_pi, V_pi from one exact linear solve."""
    _check_discounted(mdp)
    return pm.q_values(mdp, _policy(pi, mdp, "pi"))


def policy_value(mdp, pi) -> np.ndarray:
    """V of ``pi`` (S,): the solution of (I - gamma P_pi) V = r_pi."""
    _check_discounted(mdp)
    return pm.policy_value(mdp, _policy(pi, mdp, "pi"))


def occupancy(mdp, pi) -> np.ndarray:
    """Normalised discounted state-action occupancy (S, A), summing to 1:
    (1 - gamma) sum_t gamma^t Pr(s_t = s, a_t = a). Sum over actions (``.sum(axis=1)``) for the
    state occupancy d_pi of the paper's Theorem."""
    _check_discounted(mdp)
    return pm.occupancy(mdp, _policy(pi, mdp, "pi"))


def policy_return(mdp, pi) -> float:
    """J(pi) = init @ V_pi: the expected discounted return from the initial distribution."""
    _check_discounted(mdp)
    return pm.policy_return(mdp, _policy(pi, mdp, "pi"))


def _policy(pi, mdp, name: str) -> np.ndarray:
    return np.asarray(pm.check_policy(pi, mdp, name), dtype=np.float64)


def performance_gap_identity(mdp, pi, pi_star) -> tuple[float, float]:
    """Both sides of the paper's Theorem, computed independently.

    ``lhs = J(pi_star) - J(pi)`` (two exact policy evaluations) and
    ``rhs = (1 - gamma)^-1 sum_s d_pi(s) sum_a q_{pi_star}(s, a) (pi_star(a|s) - pi(a|s))``
    (the exact normalised discounted state occupancy of ``pi`` and the exact Q of ``pi_star``).
    They agree to rounding error for every discounted MDP and pair of policies.
    """
    _check_discounted(mdp)
    pi = _policy(pi, mdp, "pi")
    pi_star = _policy(pi_star, mdp, "pi_star")
    lhs = pm.policy_return(mdp, pi_star) - pm.policy_return(mdp, pi)
    d_pi = occupancy(mdp, pi).sum(axis=1)  # state occupancy, sums to 1
    q_star = q_values(mdp, pi_star)
    rhs = float(d_pi @ np.einsum("sa,sa->s", q_star, pi_star - pi)) / (1.0 - mdp.gamma)
    return float(lhs), rhs


@dataclass(frozen=True)
class GapBounds:
    """The performance gap of ``pi`` against ``pi_star`` and the paper's two bounds on it.

    gap
        J(pi_star) - J(pi).
    weighted
        The Corollary (Av-PBC) bound, (1 - gamma)^-1 E_{d_pi}[sum_a q*(s, a)|pi*(a|s) - pi(a|s)|]
        (valid for non-negative rewards).
    tv
        The earlier bound 2 R_max (1 - gamma)^-2 E_{s ~ d_pi_star} TV(pi*(.|s), pi(.|s)).
    weighted_error, tv_error
        The two inner expectations (the "epsilon" of each bound).
    """

    gap: float
    weighted: float
    tv: float
    weighted_error: float
    tv_error: float


def gap_bounds(mdp, pi, pi_star, *, r_max=None) -> GapBounds:
    """The gap J(pi_star) - J(pi) and the paper's weighted (Corollary) and TV bounds on it.

    ``r_max`` defaults to the largest |expected reward|; the weighted bound needs rewards >= 0
    (a ``ValueError`` otherwise, since q >= 0 is what makes it a bound).
    """
    _check_discounted(mdp)
    pi = _policy(pi, mdp, "pi")
    pi_star = _policy(pi_star, mdp, "pi_star")
    r = mdp.expected_reward()
    if np.any(r < 0):
        raise ValueError("mdp must have non-negative rewards for the weighted bound, got r < 0")
    if r_max is None:
        r_max = float(np.abs(r).max())
    else:
        r_max = check_float(r_max, "r_max", minimum=0.0)
        if r_max < float(np.abs(r).max()) - 1e-12:
            raise ValueError(f"r_max must be >= max |r(s, a)| = {np.abs(r).max()}, got {r_max}")
    g = mdp.gamma
    gap = pm.policy_return(mdp, pi_star) - pm.policy_return(mdp, pi)
    d_pi = occupancy(mdp, pi).sum(axis=1)
    d_star = occupancy(mdp, pi_star).sum(axis=1)
    q_star = q_values(mdp, pi_star)
    weighted_error = float(d_pi @ np.einsum("sa,sa->s", q_star, np.abs(pi_star - pi)))
    tv_error = float(d_star @ (0.5 * np.abs(pi_star - pi).sum(axis=1)))
    return GapBounds(
        gap=float(gap),
        weighted=weighted_error / (1.0 - g),
        tv=2.0 * r_max * tv_error / (1.0 - g) ** 2,
        weighted_error=weighted_error,
        tv_error=tv_error,
    )
