"""Label, structural and feature homophily, the Tri-Hom metric, CSBM-3H graphs and baseline
homophily metrics (numpy/scipy).

Zheng et al., "What Is Missing In Homophily? Disentangling Graph Homophily For Graph Neural
Networks", NeurIPS 2024.
"""

from importlib.metadata import version as _version

from . import baselines
from ._core import (
    feature_homophily,
    label_homophily,
    spectral_radius,
    structural_homophily,
    tri_hom,
    tri_hom_from_graph,
)
from ._generate import csbm3h
from ._stats import Correlation, correlate
from .baselines import all_metrics

__version__ = _version("trihom")
__all__ = [
    "Correlation",
    "__version__",
    "all_metrics",
    "baselines",
    "correlate",
    "csbm3h",
    "feature_homophily",
    "label_homophily",
    "spectral_radius",
    "structural_homophily",
    "tri_hom",
    "tri_hom_from_graph",
]
