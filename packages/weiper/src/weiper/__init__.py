"""WeiPer (Granz, Heurich & Landgraf, NeurIPS 2024): post-hoc OOD detection from random
perturbations of the class projections of a classifier's final layer. numpy only; scores are
higher = more in-distribution. The OOD metrics and logit scores are papershelf-ood's."""

from importlib.metadata import version as _version

from papershelf_ood import (
    OODMetrics,
    aupr_in,
    aupr_out,
    auroc,
    energy,
    fpr_at_tpr,
    max_logit,
    msp,
    ood_metrics,
)

from ._core import (
    KLDComponents,
    WeiPerKLD,
    energy_weiper,
    msp_weiper,
    perturb_class_projections,
    react_threshold,
    react_weiper,
    weiper_logits,
)
from ._histogram import histogram_rows, symmetric_kl, uniform_smooth
from ._sweep import PAPER_GRID, SweepResult, sweep

__version__ = _version("weiper")
__all__ = [
    "KLDComponents",
    "OODMetrics",
    "PAPER_GRID",
    "SweepResult",
    "WeiPerKLD",
    "__version__",
    "aupr_in",
    "aupr_out",
    "auroc",
    "energy",
    "energy_weiper",
    "fpr_at_tpr",
    "histogram_rows",
    "max_logit",
    "msp",
    "msp_weiper",
    "ood_metrics",
    "perturb_class_projections",
    "react_threshold",
    "react_weiper",
    "sweep",
    "symmetric_kl",
    "uniform_smooth",
    "weiper_logits",
]
