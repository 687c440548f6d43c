"""Stratified prediction-powered inference (StratPPI): tighter valid confidence intervals from few human labels plus many autorater scores."""

from importlib.metadata import version as _version

__version__ = _version("stratppi")
__all__ = ["__version__"]
