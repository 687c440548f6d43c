"""Weighted score matching for temporal point processes.

Cao et al., "Is Score Matching Suitable for Estimating Point Processes?", NeurIPS 2024 -
https://arxiv.org/abs/2410.04037. Simulators, parametric models with closed-form score terms,
the AWSM estimator and its ASM / DSM / MLE baselines, and evaluation. The torch loss for neural
intensities lives in :mod:`wsm_tpp.torch_loss` (``pip install wsm-tpp[torch]``), which
``import wsm_tpp`` never imports.
"""

from importlib.metadata import version as _version

from .evaluate import log_likelihood, type_accuracy
from .fit import FitResult, fit
from .models import ExpHawkes, GaussHawkes, InhomogeneousPoisson
from .objectives import objective
from .simulate import simulate_hawkes, simulate_poisson
from .weights import weight

__version__ = _version("wsm-tpp")
__all__ = [
    "ExpHawkes",
    "FitResult",
    "GaussHawkes",
    "InhomogeneousPoisson",
    "__version__",
    "fit",
    "log_likelihood",
    "objective",
    "simulate_hawkes",
    "simulate_poisson",
    "type_accuracy",
    "weight",
]
