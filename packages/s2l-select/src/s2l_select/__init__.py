"""SmallToLarge (S2L) data selection: cluster small-model loss trajectories and sample balanced
subsets for fine-tuning large models (Yang et al., NeurIPS 2024)."""

from importlib.metadata import version as _version

from ._baselines import (
    datamap_select,
    el2n_scores,
    el2n_select,
    facility_location_select,
    loss_select,
    random_select,
)
from ._cluster import cluster_trajectories
from ._diagnostics import GradientSimilarity, gradient_similarity
from ._sampling import Allocation, S2LSelector, SelectionReport, balanced_sample, water_fill

__version__ = _version("s2l-select")
__all__ = [
    "Allocation",
    "GradientSimilarity",
    "S2LSelector",
    "SelectionReport",
    "__version__",
    "balanced_sample",
    "cluster_trajectories",
    "datamap_select",
    "el2n_scores",
    "el2n_select",
    "facility_location_select",
    "gradient_similarity",
    "loss_select",
    "random_select",
    "water_fill",
]
