"""Topological parallax: compare a model's accepted region with a dataset's Rips persistence
using only model queries (Smith et al., NeurIPS 2023)."""

from importlib.metadata import version as _version

from . import toys
from ._core import (
    admissible_edges,
    evaluate_model,
    flag_diagrams,
    parallax_diagrams,
    rips_diagrams,
)
from ._gudhi import parallax_simplex_tree
from ._report import ParallaxReport, bottleneck_distance, parallax_report

__version__ = _version("topo-parallax")
__all__ = [
    "ParallaxReport",
    "__version__",
    "admissible_edges",
    "bottleneck_distance",
    "evaluate_model",
    "flag_diagrams",
    "parallax_diagrams",
    "parallax_report",
    "parallax_simplex_tree",
    "rips_diagrams",
    "toys",
]
