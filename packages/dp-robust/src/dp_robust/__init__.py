"""dp-robust: the Dirichlet-process smooth-ambiguity robust criterion.

Bariletto & Ho, "Bayesian Nonparametrics Meets Data-Driven Distributionally Robust Optimization",
NeurIPS 2024 — https://papers.nips.cc/paper_files/paper/2024/hash/402542c2341e5d2eadc1dd0891275901-Abstract-Conference.html
"""

from importlib.metadata import version as _version

from .criterion import SmoothAmbiguityRisk
from .estimators import DPRobustLinearRegression, DPRobustLogisticRegression, DPRobustMean
from .neutral import RiskMoments, dp_risk_moments, neutral_closed_form, neutral_mean_closed_form
from .posterior import (
    DirichletProcessPosterior,
    PosteriorDraws,
    dirichlet_weights,
    gaussian_prior,
    laplace_axis_prior,
    location_gaussian_prior,
    logistic_gaussian_prior,
    stick_breaking_weights,
)

__version__ = _version("dp-robust")
__all__ = [
    "DPRobustLinearRegression",
    "DPRobustLogisticRegression",
    "DPRobustMean",
    "DirichletProcessPosterior",
    "PosteriorDraws",
    "RiskMoments",
    "SmoothAmbiguityRisk",
    "__version__",
    "dirichlet_weights",
    "dp_risk_moments",
    "gaussian_prior",
    "laplace_axis_prior",
    "location_gaussian_prior",
    "logistic_gaussian_prior",
    "neutral_closed_form",
    "neutral_mean_closed_form",
    "stick_breaking_weights",
]
