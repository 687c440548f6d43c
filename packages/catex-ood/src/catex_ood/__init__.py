"""CATEX (Liu et al., NeurIPS 2023): category-extensible OOD detection with CLIP prompts.

Each class has a perceptual context (what separates it from the other classes) and spurious
contexts (what is "similar but not" the class). ``catex_score`` rescales the perceptual
similarities by the perceptual share ``sigmoid(s - s~)`` before MCM; banks trained on
disjoint class sets ``merge`` into one detector. Scores: higher = in-distribution. The OOD
metrics and logit scores are papershelf-ood's."""

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

from ._bank import PERTURB_METHODS, ContextBank
from ._encoders import TinyTextEncoder
from ._loss import catex_loss, spurious_orthogonality
from ._scores import catex_full_score, catex_logits, catex_score, mcm_score
from ._synth import OutlierSynthesizer, kth_nn_distance
from ._train import FitHistory, fit_contexts

__version__ = _version("catex-ood")
__all__ = [
    "PERTURB_METHODS",
    "ContextBank",
    "FitHistory",
    "OODMetrics",
    "OutlierSynthesizer",
    "TinyTextEncoder",
    "__version__",
    "aupr_in",
    "aupr_out",
    "auroc",
    "catex_full_score",
    "catex_logits",
    "catex_loss",
    "catex_score",
    "energy",
    "fit_contexts",
    "fpr_at_tpr",
    "kth_nn_distance",
    "max_logit",
    "mcm_score",
    "msp",
    "ood_metrics",
    "spurious_orthogonality",
]
