"""Consistency model posterior estimation (CMPE): fast few-step amortised simulation-based inference in PyTorch."""

from importlib.metadata import version as _version

from ._core import (
    ConsistencyPosterior,
    FitHistory,
    FlowMatchingPosterior,
    ResidualMLP,
    discretization_steps,
    karras_grid,
)
from .metrics import c2st, sbc_chi2, sbc_ranks
from .summary import DeepSet
from .tasks import (
    gaussian_conjugate,
    gaussian_conjugate_posterior,
    gaussian_conjugate_reference,
    gmm_bimodal,
    gmm_bimodal_reference,
    inverse_kinematics,
    inverse_kinematics_reference,
    two_moons,
    two_moons_reference,
)

__version__ = _version("cmpe")
__all__ = [
    "ConsistencyPosterior",
    "DeepSet",
    "FitHistory",
    "FlowMatchingPosterior",
    "ResidualMLP",
    "__version__",
    "c2st",
    "discretization_steps",
    "gaussian_conjugate",
    "gaussian_conjugate_posterior",
    "gaussian_conjugate_reference",
    "gmm_bimodal",
    "gmm_bimodal_reference",
    "inverse_kinematics",
    "inverse_kinematics_reference",
    "karras_grid",
    "sbc_chi2",
    "sbc_ranks",
    "two_moons",
    "two_moons_reference",
]
