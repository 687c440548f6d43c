"""Exploration-policy transfer for sim2real RL (Wagenmaker et al., NeurIPS 2024).

Learn exploration policies in a simulator, play them with random tails in the real environment
(reached only through the gymnasium API), fit Q by least squares on the real data, and return
whichever of the fitted policy and the simulator's optimum does better in real evaluation
(Algorithm 1). Tabular tools (re-exported from papershelf-mdp), the combination-lock instance,
TV perturbations, feature coverage, the zeta-greedy and direct-transfer baselines, and 2-D
point-mass testbeds with an action-scale mismatch (8 discrete moves, or continuous actions).

The ``[torch]`` extra (``pip install 'sim2real-explore[torch]'``) adds the paper's practical
version, imported on first access: ``SAC``, ``DiverseEnsembleSAC`` (SAC exploration ensembles
with a diversity discriminator, in simulation), ``RealWorldLearner`` (SAC on the real data of
the transferred explorers), ``sac_exploration_transfer`` and the baseline
``sac_direct_transfer``. ``from sim2real_explore import *`` never imports torch.
"""

from importlib.metadata import version as _version

from papershelf_mdp import (
    TabularEnv,
    TabularMDP,
    optimal_policy,
    policy_value,
    state_action_distribution,
)

from .continuous import ContinuousPoint2D, continuous_action_scale_mismatch, rollout_returns
from .point2d import Point2D, action_scale_mismatch, plan_on_grid, waypoint_explorers
from .policies import GridEncoder, StateEncoder, TabularPolicy
from .tabular import (
    KEY_ACTION,
    e_optimal_design,
    exploration_policies,
    feature_coverage,
    low_rank_mdp,
    min_eigenvalues,
    one_hot_features,
    perturb,
    random_low_rank_mdp,
    random_tail,
    reach_policies,
    tv_distance,
    two_corridor_lock,
)
from .transfer import (
    TransferInfo,
    Transitions,
    direct_transfer,
    evaluate,
    exploration_transfer,
    fitted_q_iteration,
    greedy_policy,
    sim2real_transfer,
    zeta_greedy_transfer,
)

__version__ = _version("sim2real-explore")
__all__ = [
    "KEY_ACTION",
    "ContinuousPoint2D",
    "GridEncoder",
    "Point2D",
    "StateEncoder",
    "TabularEnv",
    "TabularMDP",
    "TabularPolicy",
    "TransferInfo",
    "Transitions",
    "__version__",
    "action_scale_mismatch",
    "continuous_action_scale_mismatch",
    "direct_transfer",
    "e_optimal_design",
    "evaluate",
    "exploration_policies",
    "exploration_transfer",
    "feature_coverage",
    "fitted_q_iteration",
    "greedy_policy",
    "low_rank_mdp",
    "min_eigenvalues",
    "one_hot_features",
    "optimal_policy",
    "perturb",
    "plan_on_grid",
    "policy_value",
    "random_low_rank_mdp",
    "random_tail",
    "reach_policies",
    "rollout_returns",
    "sim2real_transfer",
    "state_action_distribution",
    "tv_distance",
    "two_corridor_lock",
    "waypoint_explorers",
    "zeta_greedy_transfer",
]

#: Names of the torch extra (``sim2real_explore.sac``), imported on first access.
TORCH_NAMES = (
    "SAC",
    "DiverseEnsembleSAC",
    "RealWorldLearner",
    "ReplayBuffer",
    "SACPolicy",
    "SACTransferInfo",
    "sac_direct_transfer",
    "sac_exploration_transfer",
    "train_sac",
)


def __getattr__(name):
    if name in TORCH_NAMES:
        try:
            from . import sac
        except ImportError as err:
            if err.name != "torch":
                raise
            raise ImportError(
                f"{name} needs PyTorch: pip install 'sim2real-explore[torch]'"
            ) from err
        return getattr(sac, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted([*globals(), *TORCH_NAMES])
