"""The rearrangement correlation r#: a Pearson-type coefficient that captures arbitrary monotone dependence."""

from importlib.metadata import version as _version

__version__ = _version("rearrange-corr")
__all__ = ["__version__"]
