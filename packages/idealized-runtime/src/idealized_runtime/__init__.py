"""Idealized and denoised runtime cost models for autoregressive Transformer APIs.

Narayanan et al., "Cheaply Evaluating Inference Efficiency Metrics for Autoregressive
Transformer APIs" (NeurIPS 2023): ``T(p, o) = alpha(p) + beta * (o - 1)``, HELM's lookup rule,
HELM's shipped tables, fitting from profiles, profiling Hugging Face models (extra ``hf``).
"""

from importlib.metadata import version as _version

from ._cost_model import CostModel, load_helm_json
from ._costs import accelerator_time, dollar_cost, flops_estimate
from ._fit import FitReport, denoise, fit_cost_model
from ._profile import profile_model
from ._reference import (
    HELM_COMMIT,
    REFERENCE_A100,
    REFERENCE_DENOISED,
    REFERENCE_MODELS,
    ModelSpec,
)

__version__ = _version("idealized-runtime")
__all__ = [
    "HELM_COMMIT",
    "REFERENCE_A100",
    "REFERENCE_DENOISED",
    "REFERENCE_MODELS",
    "CostModel",
    "FitReport",
    "ModelSpec",
    "__version__",
    "accelerator_time",
    "denoise",
    "dollar_cost",
    "fit_cost_model",
    "flops_estimate",
    "load_helm_json",
    "profile_model",
]
