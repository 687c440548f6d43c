"""dispo-rl: distributional successor features for zero-shot policy optimisation (DiSPO).

Reward-free outcome models fitted on offline D4RL-layout data, linear reward inference and
guided or shooting planning (numpy; the nonparametric particle model), the ``BehaviorSF``
one-step-improvement baseline, and the cliff grid of the stitching experiment.
"""

from importlib.metadata import version as _version

from .dispo import MODELS, PLANNERS, BehaviorSF, DiSPO, infer_reward_weights
from .envs import CliffGrid, cliff_grid, random_walk_dataset
from .features import OneHotFeatures, RandomFourierFeatures

__version__ = _version("dispo-rl")
__all__ = [
    "MODELS",
    "PLANNERS",
    "BehaviorSF",
    "CliffGrid",
    "DiSPO",
    "OneHotFeatures",
    "RandomFourierFeatures",
    "__version__",
    "cliff_grid",
    "infer_reward_weights",
    "random_walk_dataset",
]
