"""dispo-rl: distributional successor features for zero-shot policy optimisation (DiSPO).

Reward-free outcome models fitted on offline D4RL-layout data, linear reward inference and
guided or shooting planning. The numpy core holds the nonparametric particle model, the
``BehaviorSF`` baseline, the cliff grid and ``PointMaze2D``; the ``[torch]`` extra adds the
neural outcome models (``DiSPO(model="gmm" | "diffusion")``, ``GaussianMixtureOutcomeModel``,
``DiffusionOutcomeModel``) and the ``OneStepModelMPC`` baseline, imported lazily: ``import
dispo_rl`` and ``from dispo_rl import *`` never import torch.
"""

from importlib.metadata import version as _version

from .dispo import MODELS, PLANNERS, BehaviorSF, DiSPO, infer_reward_weights
from .envs import CliffGrid, cliff_grid, random_walk_dataset
from .features import OneHotFeatures, RandomFourierFeatures
from .mpc import OneStepModelMPC
from .pointmaze import U_MAZE, Box, PointMaze2D, pointmaze_dataset

__version__ = _version("dispo-rl")
__all__ = [
    "MODELS",
    "PLANNERS",
    "U_MAZE",
    "BehaviorSF",
    "Box",
    "CliffGrid",
    "DiSPO",
    "OneHotFeatures",
    "OneStepModelMPC",
    "PointMaze2D",
    "RandomFourierFeatures",
    "__version__",
    "cliff_grid",
    "infer_reward_weights",
    "pointmaze_dataset",
    "random_walk_dataset",
]

#: Names of the torch extra (``dispo_rl._torch_models``), imported on first access.
TORCH_NAMES = ("DiffusionOutcomeModel", "GaussianMixtureOutcomeModel")


def __getattr__(name):
    if name in TORCH_NAMES:
        from .dispo import _torch_models

        return getattr(_torch_models(name), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted([*globals(), *TORCH_NAMES])
