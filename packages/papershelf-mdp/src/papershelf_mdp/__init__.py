"""Tabular MDPs with exact evaluation, shared by the papershelf RL packages.

``TabularMDP(P, R, init=None, *, horizon=None, gamma=None)`` validates the arrays once; the
functions evaluate policies exactly (backward induction, or a linear solve when discounted),
find optimal policies, and give state-action distributions, occupancies, trajectories and a
gymnasium-style environment.
"""

from importlib.metadata import version as _version

from ._validation import check_policy, check_stochastic
from .evaluation import (
    occupancy,
    optimal_policy,
    optimal_q,
    optimal_value,
    policy_return,
    policy_value,
    q_values,
    state_action_distribution,
)
from .mdp import REWARD_KINDS, TabularMDP, random_mdp
from .sampling import TabularEnv, Trajectories, sample_trajectories

__version__ = _version("papershelf-mdp")
__all__ = [
    "REWARD_KINDS",
    "TabularEnv",
    "TabularMDP",
    "Trajectories",
    "__version__",
    "check_policy",
    "check_stochastic",
    "occupancy",
    "optimal_policy",
    "optimal_q",
    "optimal_value",
    "policy_return",
    "policy_value",
    "q_values",
    "random_mdp",
    "sample_trajectories",
    "state_action_distribution",
]
