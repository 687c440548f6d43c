"""Data attribution for PyTorch models (an independent implementation of dattri's API).

One :class:`AttributionTask` (model, per-example loss, checkpoints, attributed layers) and
attributors with ``cache`` / ``attribute`` / ``self_attribute``: influence functions with an
explicit, conjugate-gradient, LiSSA or Arnoldi inverse-Hessian-vector product, TracIn and TRAK;
a tight L-BFGS fit to the optimum they assume (:func:`fit_to_optimum`); plus the retraining ground truth (leave-one-out, linear datamodeling subsets with their saved
indices) and the metrics (LOO correlation, LDS, noisy-label AUC). Positive score = helpful.
"""

from importlib.metadata import version as _version

from .attributors import IFCG, TRAK, IFArnoldi, IFExplicit, IFLiSSA, TracIn
from .metrics import (
    LDSGroundTruth,
    LOOGroundTruth,
    lds,
    loo_corr,
    mislabel_auc,
    retrain_lds,
    retrain_loo,
)
from .optimum import OptimumFit, fit_to_optimum
from .task import AttributionTask

__version__ = _version("data-attrib")
__all__ = [
    "TRAK",
    "AttributionTask",
    "IFArnoldi",
    "IFCG",
    "IFExplicit",
    "IFLiSSA",
    "LDSGroundTruth",
    "LOOGroundTruth",
    "OptimumFit",
    "TracIn",
    "__version__",
    "fit_to_optimum",
    "lds",
    "loo_corr",
    "mislabel_auc",
    "retrain_lds",
    "retrain_loo",
]
