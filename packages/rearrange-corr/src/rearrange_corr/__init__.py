"""rearrange-corr: the rearrangement correlation r# (Ai, NeurIPS 2024).

"Adjust Pearson's r to Measure Arbitrary Monotone Dependence", https://arxiv.org/abs/2205.04571.
r#(x, y) = s_xy / |s_{x↑,y↕}| is Pearson's covariance scaled by the rearrangement-inequality bound
instead of the Cauchy-Schwarz one: exactly +-1 for any strictly monotone relation, |r#| >= |r|,
Spearman's rho on untied ranks, O(n log n).
"""

from importlib.metadata import version as _version

from ._bounds import CovarianceBounds, additive_corr, bounds, concordance_corr
from ._core import ConstantInputWarning, rearrangement_corr
from ._permutation import RearrangementCorrTestResult, rearrangement_corr_test

__version__ = _version("rearrange-corr")
__all__ = [
    "ConstantInputWarning",
    "CovarianceBounds",
    "RearrangementCorrTestResult",
    "__version__",
    "additive_corr",
    "bounds",
    "concordance_corr",
    "rearrangement_corr",
    "rearrangement_corr_test",
]
