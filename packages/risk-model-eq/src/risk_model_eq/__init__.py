"""Moment (statistical-functional) model equivalence for risk-sensitive RL (Kastner, Erdogdu,
Farahmand; NeurIPS 2023).

Exact raw return moments of tabular policies (``moment_evaluation``, ``moment_bellman``), the
proper m-moment equivalence loss (``moment_loss``; m = 1 is proper value equivalence), model
fitting by that loss (``fit_model``), and mean-variance planning and evaluation
(``mean_variance_vi``, ``mean_variance``). numpy only; tabular MDPs from papershelf-mdp.
"""

from importlib.metadata import version as _version

from papershelf_mdp import TabularEnv, optimal_policy, policy_value

from .envs import (
    ACTIONS,
    FOUR_ROOMS_LAYOUT,
    GridMDP,
    four_rooms,
    gridworld,
    mc_returns,
    risky_choice,
    risky_choice_policies,
)
from .fit import POLICY_KINDS, FittedModel, fit_model, random_policies
from .mdp import TabularMDP, mean_reward_model
from .moments import moment_bellman, moment_evaluation, moment_loss
from .planning import hitting_probability, mean_variance, mean_variance_vi

__version__ = _version("risk-model-eq")
__all__ = [
    "ACTIONS",
    "FOUR_ROOMS_LAYOUT",
    "POLICY_KINDS",
    "FittedModel",
    "GridMDP",
    "TabularEnv",
    "TabularMDP",
    "__version__",
    "fit_model",
    "four_rooms",
    "gridworld",
    "hitting_probability",
    "mc_returns",
    "mean_reward_model",
    "mean_variance",
    "mean_variance_vi",
    "moment_bellman",
    "moment_evaluation",
    "moment_loss",
    "optimal_policy",
    "policy_value",
    "random_policies",
    "risky_choice",
    "risky_choice_policies",
]
