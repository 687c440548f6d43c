"""Hierarchical exponential-family energy-based (HEE) models (Dong & Wu, NeurIPS 2023).

A directed hierarchy p(x_0:L) = p(x_L) prod_l p(x_{l-1} | x_l) of exponential-family conditionals
(``GaussianFixedVar``, ``Bernoulli``, ``Poisson``) with natural parameters
eta_{l-1} = g(x_l) W[l-1]^T + b[l-1] (:class:`HEE`); inference by neural sampling (Langevin
dynamics of the latent neurons, with fast interneurons estimating each layer's log-partition
gradient A'(eta); adaptation as momentum) in :func:`infer`; the local learning rule without a
negative phase in :func:`learn`; joint and marginal generation in :func:`generate`; closed-form
references for linear-Gaussian models; MMD, Gabor fits and bundled scikit-learn data.
"""

from importlib.metadata import version as _version

from .dynamics import GENERATION_MODES, InferenceResult, LearnResult, generate, infer, learn
from .exact import (
    GaussianPosterior,
    linear_gaussian_marginal,
    linear_gaussian_posterior,
    log_marginal,
)
from .families import Bernoulli, ExponentialFamily, GaussianFixedVar, Poisson
from .metrics import gabor_fit, mmd_rbf
from .model import HEE, NONLINEARITIES, TOP_PRIORS

__version__ = _version("hee-model")
__all__ = [
    "GENERATION_MODES",
    "HEE",
    "NONLINEARITIES",
    "TOP_PRIORS",
    "Bernoulli",
    "ExponentialFamily",
    "GaussianFixedVar",
    "GaussianPosterior",
    "InferenceResult",
    "LearnResult",
    "Poisson",
    "__version__",
    "gabor_fit",
    "generate",
    "infer",
    "learn",
    "linear_gaussian_marginal",
    "linear_gaussian_posterior",
    "log_marginal",
    "mmd_rbf",
]
