"""Shared OOD-detection metrics (AUROC, AUPR-In/Out, FPR@TPR) and logit scores (MSP, energy,
max-logit) for papershelf packages, numpy only. Scores: higher = more in-distribution."""

from importlib.metadata import version as _version

from ._metrics import OODMetrics, aupr_in, aupr_out, auroc, fpr_at_tpr, ood_metrics
from ._scores import energy, max_logit, msp

__version__ = _version("papershelf-ood")
__all__ = [
    "OODMetrics",
    "__version__",
    "aupr_in",
    "aupr_out",
    "auroc",
    "energy",
    "fpr_at_tpr",
    "max_logit",
    "msp",
    "ood_metrics",
]
