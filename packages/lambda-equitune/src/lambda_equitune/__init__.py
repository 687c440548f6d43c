"""Equivariant transfer learning from pretrained models (Basu et al., NeurIPS 2023).

``EquiTune`` (group averaging), ``EquiZero`` (proxy-loss selection, straight-through gradient) and
``LambdaEquiTune`` (learned importance weights λ) wrap any ``nn.Module`` with a finite group from
``lambda_equitune.groups``; ``lambda_equitune.checks`` measures equivariance.
"""

from importlib.metadata import version as _version

from . import checks, groups, models, train
from .checks import assert_equivariant, equivariance_error
from .groups import D4, Group, HFlip, Rot90, Rot180Flip, TokenSwap, Trivial, VFlip
from .models import MLP, DigitsCNN, WeightNet
from .train import TrainResult, finetune, fit_lambda
from .wrappers import EquiTune, EquiZero, LambdaEquiTune, entropy_proxy, max_prob_proxy

__version__ = _version("lambda-equitune")
__all__ = [
    "D4",
    "MLP",
    "DigitsCNN",
    "EquiTune",
    "EquiZero",
    "Group",
    "HFlip",
    "LambdaEquiTune",
    "Rot90",
    "Rot180Flip",
    "TokenSwap",
    "TrainResult",
    "Trivial",
    "VFlip",
    "WeightNet",
    "__version__",
    "assert_equivariant",
    "checks",
    "entropy_proxy",
    "equivariance_error",
    "finetune",
    "fit_lambda",
    "groups",
    "max_prob_proxy",
    "models",
    "train",
]
