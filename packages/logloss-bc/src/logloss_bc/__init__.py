"""Behavior cloning with the logarithmic loss (Foster, Block, Misra, NeurIPS 2024).

The numpy core: exact tabular tools (``TabularMDP``, ``exact_value``, ``tabular_logloss_bc``,
``hellinger_sq``, ``tabular_dagger``), Monte-Carlo trajectory-level Hellinger estimates
(``hellinger_sq_from_logprobs``), fixed-horizon rollouts in any gymnasium-API environment and two
classic-control experts. The ``[torch]`` extra adds neural policies (``CategoricalMLP``,
``GaussianMLP``) and learners (``logloss_bc``, ``mse_bc``, ``dagger``), imported lazily: they are
reachable as ``logloss_bc.CategoricalMLP`` etc. but kept out of ``__all__`` so that
``from logloss_bc import *`` never imports torch.
"""

from importlib.metadata import version as _version

from papershelf_mdp import TabularEnv, TabularMDP, policy_value, sample_trajectories

from .rollout import Rollouts, cartpole_expert, pendulum_expert, rollout
from .tabular import (
    ImitationProblem,
    exact_value,
    exact_values,
    hellinger_sq,
    hellinger_sq_from_log_ratios,
    hellinger_sq_from_logprobs,
    policy_log_probs,
    random_imitation_mdp,
    tabular_dagger,
    tabular_logloss_bc,
)

__version__ = _version("logloss-bc")
__all__ = [
    "ImitationProblem",
    "Rollouts",
    "TabularEnv",
    "TabularMDP",
    "__version__",
    "cartpole_expert",
    "exact_value",
    "exact_values",
    "hellinger_sq",
    "hellinger_sq_from_log_ratios",
    "hellinger_sq_from_logprobs",
    "pendulum_expert",
    "policy_log_probs",
    "policy_value",
    "random_imitation_mdp",
    "rollout",
    "sample_trajectories",
    "tabular_dagger",
    "tabular_logloss_bc",
]

#: Names of the torch extra (``logloss_bc.neural``), imported on first access.
TORCH_NAMES = (
    "CategoricalMLP",
    "GaussianMLP",
    "dagger",
    "hellinger_sq_deterministic_expert",
    "logloss_bc",
    "mse_bc",
)


def __getattr__(name):
    if name in TORCH_NAMES:
        try:
            from . import neural
        except ImportError as err:
            if err.name != "torch":
                raise
            raise ImportError(f"{name} needs PyTorch: pip install 'logloss-bc[torch]'") from err
        return getattr(neural, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted([*globals(), *TORCH_NAMES])
