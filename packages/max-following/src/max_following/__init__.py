"""Max-following over constituent policies, and MaxIteration (Hussing et al., NeurIPS 2024).

Exact tabular tools (``policy_value``, ``constituent_values``, ``max_following_policy``,
``optimal_value``) and the oracle-efficient learner ``MaxIteration`` for any environment with the
gymnasium API, with scikit-learn-style regressors as value oracles.
"""

from importlib.metadata import version as _version

from papershelf_mdp import TabularEnv, TabularMDP

from .envs import (
    WallGapNavigation,
    evaluate,
    go_to_gap,
    go_to_goal,
    random_instance,
    tabular_env,
    tie_break_example,
    zigzag,
)
from .exact import (
    TIE_BREAKS,
    constituent_values,
    max_following_policy,
    max_following_value,
    optimal_value,
    policy_value,
)
from .max_iteration import MaxFollowingPolicy, MaxIteration
from .oracles import RidgeOracle, TabularMeanOracle, rbf_features
from .policies import (
    FunctionPolicy,
    Policy,
    TabularPolicy,
    constant_policy,
    random_deterministic_policy,
)

__version__ = _version("max-following")
__all__ = [
    "TIE_BREAKS",
    "FunctionPolicy",
    "MaxFollowingPolicy",
    "MaxIteration",
    "Policy",
    "RidgeOracle",
    "TabularEnv",
    "TabularMDP",
    "TabularMeanOracle",
    "TabularPolicy",
    "WallGapNavigation",
    "__version__",
    "constant_policy",
    "constituent_values",
    "evaluate",
    "go_to_gap",
    "go_to_goal",
    "max_following_policy",
    "max_following_value",
    "optimal_value",
    "policy_value",
    "random_deterministic_policy",
    "random_instance",
    "rbf_features",
    "tabular_env",
    "tie_break_example",
    "zigzag",
]
