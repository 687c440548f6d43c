"""ESPACE (Sakr & Khailany, NeurIPS 2024): compress any PyTorch / Hugging Face model by
projecting the inputs of its linear layers onto calibrated principal components."""

from importlib.metadata import version as _version

from .calibration import OBJECTIVES, ActivationStats, calibrate, default_targets
from .layers import LowRankLinear, ProjectedLinear, apply_espace, svd_linear, whitened_svd
from .projection import projection_from_stats, random_projection, rank_for_compression
from .sensitivity import layer_sensitivity, select_calibrators

__version__ = _version("espace")
__all__ = [
    "OBJECTIVES",
    "ActivationStats",
    "LowRankLinear",
    "ProjectedLinear",
    "__version__",
    "apply_espace",
    "calibrate",
    "default_targets",
    "layer_sensitivity",
    "projection_from_stats",
    "random_projection",
    "rank_for_compression",
    "select_calibrators",
    "svd_linear",
    "whitened_svd",
]
