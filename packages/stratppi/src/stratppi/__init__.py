"""stratppi: Stratified Prediction-Powered Inference (StratPPI).

Fisch, Maynez, Hofer, Dhingra, Globerson, Cohen. "Stratified Prediction-Powered Inference for
Effective Hybrid Evaluation of Language Models", NeurIPS 2024. https://arxiv.org/abs/2406.04291

Valid confidence intervals from a few human labels plus many autorater scores, tighter than PPI++
when the autorater's quality varies across strata. API names follow ppi_py; the PPI++ baselines
(``ppi_mean_ci``, ``ppi_ols_ci``, ``ppi_logistic_ci``, ...) take ppi_py's exact arguments.
"""

from importlib.metadata import version as _version

from ._glm import SeparationWarning
from .allocation import allocate, heuristic_sigma, make_strata, neyman_variance
from .baselines import (
    classical_mean_ci,
    ppi_logistic_ci,
    ppi_logistic_pointestimate,
    ppi_logistic_pval,
    ppi_mean_ci,
    ppi_mean_pointestimate,
    ppi_mean_pval,
    ppi_ols_ci,
    ppi_ols_pointestimate,
)
from .mean import (
    stratppi_mean_ci,
    stratppi_mean_lam,
    stratppi_mean_pointestimate,
    stratppi_mean_pval,
    stratum_sigma,
)
from .regression import (
    stratppi_logistic_ci,
    stratppi_logistic_pointestimate,
    stratppi_ols_ci,
    stratppi_ols_pointestimate,
)
from .simulate import SimData, oracle_sigma, simulate

__version__ = _version("stratppi")
__all__ = [
    "__version__",
    "stratppi_mean_pointestimate",
    "stratppi_mean_ci",
    "stratppi_mean_pval",
    "stratppi_mean_lam",
    "stratum_sigma",
    "stratppi_ols_pointestimate",
    "stratppi_ols_ci",
    "stratppi_logistic_pointestimate",
    "stratppi_logistic_ci",
    "allocate",
    "make_strata",
    "heuristic_sigma",
    "neyman_variance",
    "SeparationWarning",
    "classical_mean_ci",
    "ppi_mean_pointestimate",
    "ppi_mean_ci",
    "ppi_mean_pval",
    "ppi_ols_pointestimate",
    "ppi_ols_ci",
    "ppi_logistic_pointestimate",
    "ppi_logistic_ci",
    "ppi_logistic_pval",
    "simulate",
    "oracle_sigma",
    "SimData",
]
